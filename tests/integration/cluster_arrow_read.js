'use strict';
// An independent Arrow Flight client reading a table of a Mink cluster the way a generic Flight
// client does (@grpc/grpc-js with our spec/arrow/Flight.proto, apache-arrow to decode; nothing of
// Mink's own code): GetFlightInfo(PATH [database, table]) on ONE node, then, for each endpoint,
// a connection to the endpoint's location (grpc://host:port, the bucket owner's advertised
// address) and DoGet with the endpoint's ticket. This proves that the endpoints of one node's
// FlightInfo name the owners of the buckets and that each location serves its ticket, so the
// union of the endpoints' streams is the whole table.
//
// The ticket is used as the node sent it (log mode from the earliest offset, docs/flight-api.md);
// `snapshot` mode, or `meta`, are added to the ticket's JSON (the ticket format is a documented
// JSON object, so a client may ask for the current rows of a primary-key table or for the
// __bucket/__offset/__change columns).
//
// Usage: node cluster_arrow_read.js <host:port> <db.table> [log|snapshot] [meta]
// Prints JSON lines on stdout:
//   {"kind":"info","endpoints":N,"total_records":N,"schema":["name:type", ...]}
//   {"kind":"endpoint","endpoint":i,"location":"grpc://...","ticket":{...},"rows":N}
//   {"kind":"row","endpoint":i,"location":"grpc://...","row":{column: value, ...}}
// int64 values are printed as numbers when they are safe integers, otherwise as strings.

const path = require('path');
const modules = path.join(__dirname, '..', 'node', 'node_modules');
const grpc = require(path.join(modules, '@grpc', 'grpc-js'));
const protoLoader = require(path.join(modules, '@grpc', 'proto-loader'));
const {collect, tableFromFlightData} = require(path.join(__dirname, '..', 'node', 'flight_data'));

const [address, table, mode = 'log', meta = ''] = process.argv.slice(2);
if (!address || !table || !['log', 'snapshot'].includes(mode)) {
  console.error('usage: node cluster_arrow_read.js <host:port> <db.table> [log|snapshot] [meta]');
  process.exit(2);
}
const protoPath = path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto');
const definition = protoLoader.loadSync(protoPath, {keepCase: true, longs: String, enums: String,
                                                    defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const DEADLINE_MS = 30000;

const clients = new Map();
function clientFor(target) {
  if (!clients.has(target)) {
    clients.set(target, new flight.FlightService(target, grpc.credentials.createInsecure()));
  }
  return clients.get(target);
}

function deadline() {
  return {deadline: new Date(Date.now() + DEADLINE_MS)};
}

// grpc://host:port (or grpc+tcp://) -> host:port; the node we asked for an empty location or
// Flight's "reuse this connection" URI.
function targetOf(uri) {
  if (!uri || uri.startsWith('arrow-flight-reuse-connection:')) return address;
  const m = /^grpc(\+tcp)?:\/\/(.+)$/.exec(uri);
  if (!m) throw new Error(`unsupported endpoint location ${uri}`);
  return m[2].replace(/\/$/, '');
}

function plain(v) {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'object' && typeof v.toJSON === 'function') return plain(v.toJSON());
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = plain(v[k]);
    return o;
  }
  return v;
}

async function main() {
  const dot = table.indexOf('.');
  const descriptor = {type: 'PATH', path: [table.slice(0, dot), table.slice(dot + 1)]};
  const info = await new Promise((resolve, reject) =>
    clientFor(address).GetFlightInfo(descriptor, deadline(), (e, r) => (e ? reject(e) : resolve(r))));
  console.log(JSON.stringify({kind: 'info', endpoints: info.endpoint.length,
                              total_records: Number(info.total_records)}));
  for (let i = 0; i < info.endpoint.length; i++) {
    const e = info.endpoint[i];
    const location = e.location.length ? e.location[0].uri : '';
    const ticket = JSON.parse(Buffer.from(e.ticket.ticket).toString());
    if (mode === 'snapshot') ticket.mode = 'snapshot';
    if (meta === 'meta') ticket.meta = true;
    const stream = clientFor(targetOf(location)).DoGet(
      {ticket: Buffer.from(JSON.stringify(ticket))}, deadline());
    const messages = await collect(stream);
    const t = tableFromFlightData(messages);
    console.log(JSON.stringify({kind: 'endpoint', endpoint: i, location, ticket, rows: t.numRows,
                                schema: t.schema.fields.map((f) => `${f.name}:${f.type}`)}));
    const names = t.schema.fields.map((f) => f.name);
    const columns = names.map((n) => t.getChild(n));
    for (let r = 0; r < t.numRows; r++) {
      const row = {};
      names.forEach((n, c) => { row[n] = plain(columns[c].get(r)); });
      console.log(JSON.stringify({kind: 'row', endpoint: i, location, row}));
    }
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(`cluster_arrow_read: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
