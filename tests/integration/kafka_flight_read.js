'use strict';
// The Flight API's view of a topic table, read by an independent client (@grpc/grpc-js with our
// spec/arrow/Flight.proto, apache-arrow to decode): one DoGet of the table's log with meta
// columns. Prints one JSON line per row: {"partition", "offset", "key", "value" (hex or null),
// "headers": [[key, hex or null]], "timestamp" (epoch ms)}.
//
// Usage: node kafka_flight_read.js <flight port> <db.table>

const path = require('path');
const modules = path.join(__dirname, '..', 'node', 'node_modules');
const grpc = require(path.join(modules, '@grpc', 'grpc-js'));
const protoLoader = require(path.join(modules, '@grpc', 'proto-loader'));
const {collect, tableFromFlightData} = require(path.join(__dirname, '..', 'node', 'flight_data'));

const [port, table] = process.argv.slice(2);
const protoPath = path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto');
const definition = protoLoader.loadSync(protoPath, {keepCase: true, longs: String, enums: String,
                                                    defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const client = new flight.FlightService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

const hex = (v) => (v === null || v === undefined ? null : Buffer.from(v).toString('hex'));

async function main() {
  const ticket = {table, mode: 'log', from: 'earliest', meta: true};
  const t = tableFromFlightData(await collect(client.DoGet({ticket: Buffer.from(JSON.stringify(ticket))})));
  const fields = t.schema.fields.map((f) => `${f.name}:${f.type}`);
  console.error(`schema: ${fields.join(', ')}`);
  const key = t.getChild('key');
  const value = t.getChild('value');
  const headers = t.getChild('headers');
  const timestamp = t.getChild('timestamp');
  const bucket = t.getChild('__bucket');
  const offset = t.getChild('__offset');
  for (let i = 0; i < t.numRows; i++) {
    const hs = headers.get(i);
    const list = [];
    if (hs) {
      for (let j = 0; j < hs.length; j++) {
        const h = hs.get(j);
        list.push([h.key, hex(h.value)]);
      }
    }
    const ts = timestamp.get(i);
    console.log(JSON.stringify({
      partition: Number(String(bucket.get(i)).replace(/^.*b/, '')),
      offset: Number(offset.get(i)),
      key: hex(key.get(i)),
      value: hex(value.get(i)),
      headers: list,
      timestamp: ts === null ? null : Number(ts),
    }));
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
