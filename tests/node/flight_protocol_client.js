'use strict';
// An independent Flight client for Mink's protocol-layer interop test: @grpc/grpc-js with
// @grpc/proto-loader reading our spec/arrow/Flight.proto. It calls ListFlights, GetFlightInfo
// (found and missing), DoAction, DoGet and DoPut against the fake handler of
// src/flight/tests/test_handler.h and prints what it saw as one JSON object on stdout.
//
// Usage: node flight_protocol_client.js <port>

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const port = process.argv[2];
if (!port) {
  console.error('usage: node flight_protocol_client.js <port>');
  process.exit(2);
}

const protoPath = path.join(__dirname, '..', '..', 'spec', 'arrow', 'Flight.proto');
const definition = protoLoader.loadSync(protoPath, {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const client = new flight.FlightService(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
  'grpc.max_receive_message_length': 256 << 20,
  'grpc.max_send_message_length': 256 << 20,
});

function unary(method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

// Every message of a server stream, or the call's error.
function collect(stream) {
  return new Promise((resolve, reject) => {
    const messages = [];
    stream.on('data', (message) => messages.push(message));
    stream.on('end', () => resolve(messages));
    stream.on('error', reject);
  });
}

// The same bytes as PatternBody in test_handler.h.
function patternBody(index, size) {
  const body = Buffer.alloc(size);
  for (let j = 0; j < size; j++) body[j] = (index * 7 + j) % 251;
  return body;
}

function byteSum(buffer) {
  let sum = 0;
  for (const b of buffer) sum = (sum + b) % 4294967296;
  return sum;
}

async function main() {
  const out = {};

  const flights = await collect(client.ListFlights({ expression: Buffer.alloc(0) }));
  out.list_flights = flights.map((info) => ({
    type: info.flight_descriptor.type,
    path: info.flight_descriptor.path,
    total_records: info.total_records,
    endpoints: info.endpoint.map((e) => ({
      ticket: e.ticket.ticket.toString(),
      locations: e.location.map((l) => l.uri),
    })),
  }));

  const info = await unary('GetFlightInfo', { type: 'PATH', path: ['db', 't1'] });
  out.flight_info = {
    schema: info.schema.toString(),
    total_records: info.total_records,
    total_bytes: info.total_bytes,
    ordered: info.ordered,
    app_metadata: info.app_metadata.toString(),
  };

  try {
    await unary('GetFlightInfo', { type: 'PATH', path: ['db', 'x'] });
    out.missing = { code: 0 };
  } catch (error) {
    out.missing = { code: error.code, details: error.details };
  }

  const results = await collect(client.DoAction({ type: 'count', body: Buffer.from('3') }));
  out.do_action = results.map((r) => r.body.toString());

  const data = await collect(client.DoGet({ ticket: Buffer.from('count:3:size:100000') }));
  out.do_get = data.map((d, i) => ({
    header: d.data_header.toString(),
    app_metadata: d.app_metadata.toString(),
    body_length: d.data_body.length,
    body_matches: d.data_body.equals(patternBody(i, 100000)),
  }));

  const put = client.DoPut();
  const acks = collect(put);
  put.write({
    flight_descriptor: { type: 'PATH', path: ['db', 't1'] },
    data_header: Buffer.from('js-0'),
    data_body: patternBody(0, 50000),
  });
  put.write({ data_header: Buffer.from('js-1'), data_body: patternBody(1, 70000) });
  put.write({ data_header: Buffer.from('js-2'), app_metadata: Buffer.from('m2') });
  put.end();
  out.do_put = (await acks).map((r) => r.app_metadata.toString());

  client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((error) => {
  console.error(`flight_protocol_client: ${error.stack || error}`);
  process.exit(1);
});
