'use strict';
// What the Flight SQL test clients share: a FlightService client of @grpc/grpc-js over our
// spec/arrow/Flight.proto, Flight SQL's messages through protobufjs (spec/arrow/FlightSql.proto)
// packed in google.protobuf.Any, and the GetFlightInfo-then-DoGet read. Every call takes the
// gRPC Metadata to send (who the caller is), or none.

const assert = require('assert');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');
const {collect, tableFromFlightData} = require('./flight_data');

const spec = path.join(__dirname, '..', '..', 'spec', 'arrow');
const definition = protoLoader.loadSync(path.join(spec, 'Flight.proto'),
  {keepCase: true, longs: String, enums: String, defaults: true, oneofs: true});
const flight = grpc.loadPackageDefinition(definition).arrow.flight.protocol;
const sql = new protobuf.Root().loadSync(path.join(spec, 'FlightSql.proto'), {keepCase: true});
const PREFIX = 'arrow.flight.protocol.sql.';

function type(name) { return sql.lookupType(PREFIX + name); }

// A Flight SQL command: the message packed in a google.protobuf.Any.
function pack(name, fields) {
  const t = type(name);
  const value = t.encode(t.create(fields)).finish();
  return Buffer.from(type('Any').encode({type_url: `type.googleapis.com/${PREFIX}${name}`, value})
    .finish());
}

function unpack(bytes, name) {
  const any = type('Any').decode(bytes);
  assert.strictEqual(any.type_url, `type.googleapis.com/${PREFIX}${name}`);
  return type(name).decode(any.value);
}

function rows(table) {
  return table.toArray().map((r) => {
    const o = r.toJSON();
    for (const k of Object.keys(o)) if (typeof o[k] === 'bigint') o[k] = o[k].toString();
    return o;
  });
}

// Metadata that says who the caller is: {authorization: 'Basic ...'} and the like.
function metadataOf(headers) {
  const m = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers || {})) m.set(k, v);
  return m;
}

function basic(user, password) {
  return {authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')};
}

function connect(port) {
  const client = new flight.FlightService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  function unary(method, request, headers) {
    return new Promise((resolve, reject) =>
      client[method](request, metadataOf(headers), (e, r) => (e ? reject(e) : resolve(r))));
  }
  // GetFlightInfo for a command, then DoGet of its (single) endpoint.
  async function fetch(name, fields, headers) {
    const info = await unary('GetFlightInfo', {type: 'CMD', cmd: pack(name, fields)}, headers);
    assert.strictEqual(info.endpoint.length, 1);
    const table = tableFromFlightData(
      await collect(client.DoGet(info.endpoint[0].ticket, metadataOf(headers))));
    return {info, table};
  }
  function action(actionType, body, headers) {
    return collect(client.DoAction({type: actionType, body}, metadataOf(headers)));
  }
  // DoPut of one command (no batches); the PutResults.
  function update(name, fields, headers) {
    const put = client.DoPut(metadataOf(headers));
    const results = collect(put);
    put.write({flight_descriptor: {type: 'CMD', cmd: pack(name, fields)}});
    put.end();
    return results;
  }
  return {client, unary, fetch, action, update};
}

module.exports = {grpc, type, pack, unpack, rows, metadataOf, basic, connect};
