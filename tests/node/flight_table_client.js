'use strict';
// An independent Flight client for the table interop test: @grpc/grpc-js with our
// spec/arrow/Flight.proto, and Arrow JS (apache-arrow) to build and read the data. Against a
// running Mink node it creates a table, writes rows with DoPut, and reads them back with DoGet
// (log with meta columns, snapshot, and the per-bucket endpoints of GetFlightInfo). It prints
// what it read as one JSON object on stdout.
//
// Usage: node flight_table_client.js <port>

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const arrow = require('apache-arrow');
const {collect, tableToFlightData, tableFromFlightData} = require('./flight_data');

const port = process.argv[2];
const protoPath = path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto');
const definition = protoLoader.loadSync(protoPath, {keepCase: true, longs: String, enums: String,
                                                    defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const client = new flight.FlightService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

function unary(method, request) {
  return new Promise((resolve, reject) =>
    client[method](request, (e, r) => (e ? reject(e) : resolve(r))));
}

async function action(type, body) {
  const results = await collect(client.DoAction({type, body: Buffer.from(JSON.stringify(body))}));
  return results.length ? JSON.parse(Buffer.from(results[0].body).toString()) : null;
}

function rows(table) {
  return table.toArray().map((r) => {
    const o = r.toJSON();
    for (const k of Object.keys(o)) if (typeof o[k] === 'bigint') o[k] = o[k].toString();
    return o;
  });
}

async function doGet(ticket) {
  return tableFromFlightData(await collect(client.DoGet({ticket: Buffer.from(JSON.stringify(ticket))})));
}

async function main() {
  const out = {};
  await action('create-database', {name: 'interop'});
  await action('create-table', {table: 'interop.items',
    columns: ['id BIGINT NOT NULL', 'name STRING', 'price DOUBLE', 'ok BOOLEAN', 'at TIMESTAMP_LTZ(3)'],
    primary_key: ['id'], bucket_count: 2});
  const table = new arrow.Table({
    id: arrow.vectorFromArray([1n, 2n, 3n, 1n], new arrow.Int64()),
    name: arrow.vectorFromArray(['one', null, 'three', 'uno'], new arrow.Utf8()),
    price: arrow.vectorFromArray([1.5, 2.25, null, 9.75], new arrow.Float64()),
    ok: arrow.vectorFromArray([true, false, true, null], new arrow.Bool()),
    at: arrow.vectorFromArray([1700000000000, 1700000001000, 1700000002000, 1700000003000],
                              new arrow.TimestampMillisecond('UTC')),
  });
  // Arrow JS marks every field nullable; the server matches columns by name and type.
  const messages = tableToFlightData(table);
  const put = client.DoPut();
  const results = collect(put);
  messages[0].flight_descriptor = {type: 'CMD', cmd: Buffer.from(JSON.stringify({table: 'interop.items'}))};
  for (const m of messages) put.write(m);
  put.end();
  out.put = (await results).map((r) => JSON.parse(Buffer.from(r.app_metadata).toString()));
  out.snapshot = rows(await doGet({table: 'interop.items', mode: 'snapshot'}));
  out.changelog = rows(await doGet({table: 'interop.items', meta: true, columns: ['id', 'name']}));
  const info = await unary('GetFlightInfo', {type: 'PATH', path: ['interop', 'items']});
  out.endpoints = info.endpoint.length;
  out.locations = info.endpoint.map((e) => e.location.map((l) => l.uri));
  out.schema_fields = arrow.tableFromIPC(Buffer.from(info.schema)).schema.fields.map(
    (f) => `${f.name}:${f.type}`);
  let total = 0;
  for (const e of info.endpoint) {
    const ticket = JSON.parse(Buffer.from(e.ticket.ticket).toString());
    total += (await doGet(ticket)).numRows;
  }
  out.endpoint_rows = total;
  try {
    await doGet({table: 'interop.nope'});
    out.missing = 'no error';
  } catch (e) {
    out.missing = `${e.code} ${e.details}`;
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
