'use strict';
// A generic Arrow Flight client (@grpc/grpc-js with spec/arrow/Flight.proto, apache-arrow to
// decode; nothing of Mink's code) against a node that asks clients to authenticate:
//   1. DoAction list-databases with no authorization header;
//   2. Handshake with Basic credentials of a wrong password;
//   3. Handshake with Basic credentials: the "authorization" response header's bearer token;
//   4. DoAction list-databases, then GetFlightInfo + DoGet of TABLE, with that token;
//   5. DoAction list-databases with the token changed.
// Prints one JSON line per step: {"step": n, "ok": bool, "code": grpc code, ...}.
//
// Usage: node flight_auth_client.js <host:port> <user> <password> <db.table>

const path = require('path');
const modules = path.join(__dirname, '..', 'node', 'node_modules');
const grpc = require(path.join(modules, '@grpc', 'grpc-js'));
const protoLoader = require(path.join(modules, '@grpc', 'proto-loader'));
const {collect, tableFromFlightData} = require(path.join(__dirname, '..', 'node', 'flight_data'));

const [address, user, password, table] = process.argv.slice(2);
if (!address || !user || !password || !table) {
  console.error('usage: node flight_auth_client.js <host:port> <user> <password> <db.table>');
  process.exit(2);
}
const definition = protoLoader.loadSync(path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto'),
                                        {keepCase: true, longs: String, enums: String, defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const client = new flight.FlightService(address, grpc.credentials.createInsecure());
const deadline = () => ({deadline: new Date(Date.now() + 20000)});

function headers(authorization) {
  const m = new grpc.Metadata();
  if (authorization) m.set('authorization', authorization);
  return m;
}

function listDatabases(authorization) {
  return new Promise((resolve) => {
    const results = [];
    const call = client.DoAction({type: 'list-databases', body: Buffer.from('{}')}, headers(authorization), deadline());
    call.on('data', (r) => results.push(JSON.parse(Buffer.from(r.body).toString())));
    call.on('error', (e) => resolve({ok: false, code: e.code, message: e.details}));
    call.on('end', () => resolve({ok: true, databases: results.length ? results[0].databases : []}));
  });
}

function handshake(authorization) {
  return new Promise((resolve) => {
    const call = client.Handshake(headers(authorization), deadline());
    let token = null;
    call.on('metadata', (m) => {
      const v = m.get('authorization');
      if (v.length) token = String(v[0]);
    });
    call.on('data', () => {});
    call.on('error', (e) => resolve({ok: false, code: e.code, message: e.details}));
    call.on('end', () => resolve({ok: true, token}));
    call.write({protocol_version: 0, payload: Buffer.from('')});
    call.end();
  });
}

async function readTable(authorization) {
  const [database, name] = table.split('.');
  const info = await new Promise((resolve, reject) => client.GetFlightInfo(
      {type: 'PATH', path: [database, name]}, headers(authorization), deadline(),
      (e, r) => (e ? reject(e) : resolve(r))));
  let rows = 0;
  for (const endpoint of info.endpoint) {
    const call = client.DoGet(endpoint.ticket, headers(authorization), deadline());
    rows += tableFromFlightData(await collect(call)).numRows;
  }
  return rows;
}

(async () => {
  const basic = (p) => 'Basic ' + Buffer.from(`${user}:${p}`).toString('base64');
  console.log(JSON.stringify({step: 1, ...(await listDatabases(null))}));
  console.log(JSON.stringify({step: 2, ...(await handshake(basic(password + 'x')))}));
  const shake = await handshake(basic(password));
  console.log(JSON.stringify({step: 3, ok: shake.ok, code: shake.code,
                              bearer: Boolean(shake.token && shake.token.startsWith('Bearer '))}));
  if (!shake.token) process.exit(1);
  const listed = await listDatabases(shake.token);
  let rows = null;
  try {
    rows = await readTable(shake.token);
  } catch (e) {
    rows = `error ${e.code}: ${e.details}`;
  }
  console.log(JSON.stringify({step: 4, ...listed, rows}));
  const forged = shake.token.slice(0, -2) + (shake.token.endsWith('AA') ? 'BB' : 'AA');
  console.log(JSON.stringify({step: 5, ...(await listDatabases(forged))}));
  client.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
