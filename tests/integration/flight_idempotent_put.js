'use strict';
// One idempotent write by an independent Flight client (@grpc/grpc-js with our
// spec/arrow/Flight.proto, apache-arrow to build the batch), so a test can send the very same
// (writer id, sequence) through several nodes of a cluster.
//
// Usage: node flight_idempotent_put.js <flight port> init-writer
//          prints {"writer_id": N}
//        node flight_idempotent_put.js <flight port> put <db.table> <writer id> <sequence> <first id> <count>
//          DoPut of rows {id, note} with ids first..first+count-1; prints the PutResult's app_metadata
//        node flight_idempotent_put.js <flight port> put-ints <db.table> <writer id> <sequence> <columns> <rows>
//          DoPut of BIGINT columns (a,b) with rows "1,5;2,7"
// A writer id of -1 sends the write without one (not idempotent). On an error it prints
// "<gRPC code> <details>" on stderr and exits 1.

const path = require('path');
const modules = path.join(__dirname, '..', 'node', 'node_modules');
const grpc = require(path.join(modules, '@grpc', 'grpc-js'));
const protoLoader = require(path.join(modules, '@grpc', 'proto-loader'));
const arrow = require(path.join(modules, 'apache-arrow'));
const {collect, tableToFlightData} = require(path.join(__dirname, '..', 'node', 'flight_data'));

const [port, what, ...args] = process.argv.slice(2);
const protoPath = path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto');
const definition = protoLoader.loadSync(protoPath, {keepCase: true, longs: String, enums: String,
                                                    defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const client = new flight.FlightService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

async function main() {
  if (what === 'init-writer') {
    const results = await collect(client.DoAction({type: 'init-writer', body: Buffer.from('{}')}));
    console.log(Buffer.from(results[0].body).toString());
    return;
  }
  const [table, writer, sequence, a, b] = args;
  let batch;
  if (what === 'put-ints') {
    const columns = a.split(',');
    const rows = b.split(';').map((r) => r.split(',').map((v) => BigInt(v)));
    const vectors = {};
    columns.forEach((c, i) => {
      vectors[c] = arrow.vectorFromArray(rows.map((r) => r[i]), new arrow.Int64());
    });
    batch = new arrow.Table(vectors);
  } else {
    const ids = [];
    for (let i = 0; i < Number(b); i++) ids.push(BigInt(a) + BigInt(i));
    batch = new arrow.Table({
      id: arrow.vectorFromArray(ids, new arrow.Int64()),
      note: arrow.vectorFromArray(ids.map((i) => `idempotent ${i}`), new arrow.Utf8()),
    });
  }
  const messages = tableToFlightData(batch);
  const descriptor = {table};
  if (Number(writer) >= 0) Object.assign(descriptor, {writer_id: Number(writer), sequence: Number(sequence)});
  messages[0].flight_descriptor = {type: 'CMD', cmd: Buffer.from(JSON.stringify(descriptor))};
  const put = client.DoPut();
  const results = collect(put);
  for (const m of messages) put.write(m);
  put.end();
  for (const r of await results) console.log(Buffer.from(r.app_metadata).toString());
}

main().then(() => process.exit(0), (e) => {
  console.error(`${e.code} ${e.details || e.message}`);
  process.exit(1);
});
