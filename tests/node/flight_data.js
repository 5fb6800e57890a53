'use strict';
// FlightData <-> Arrow JS, shared by the Flight test clients: a FlightData message carries one
// IPC message (the flatbuffer header in data_header, the body in data_body) without the IPC
// stream's continuation marker and length prefix, which these functions add or strip.

const arrow = require('apache-arrow');

// Every message of a gRPC stream, once it ends.
function collect(stream) {
  return new Promise((resolve, reject) => {
    const out = [];
    stream.on('data', (m) => out.push(m));
    stream.on('end', () => resolve(out));
    stream.on('error', reject);
  });
}

// An IPC stream (bytes) -> FlightData messages.
function ipcToFlightData(ipc) {
  const view = Buffer.from(ipc);
  const messages = [];
  let pos = 0;
  while (pos + 8 <= view.length) {
    let len = view.readInt32LE(pos);
    pos += 4;
    if (len === -1) {  // continuation marker, then the length
      len = view.readInt32LE(pos);
      pos += 4;
    }
    if (len === 0) break;  // end of stream
    const header = view.subarray(pos, pos + len);
    pos += len;
    const bodyLength = Number(arrow.Message.decode(header).bodyLength);
    messages.push({data_header: header, data_body: view.subarray(pos, pos + bodyLength)});
    pos += bodyLength;
  }
  return messages;
}

// An Arrow JS table -> FlightData messages.
function tableToFlightData(table) {
  return ipcToFlightData(arrow.tableToIPC(table, 'stream'));
}

// FlightData messages -> an IPC stream -> an Arrow JS table.
function tableFromFlightData(messages) {
  const parts = [];
  for (const m of messages) {
    const header = Buffer.from(m.data_header);
    const pad = (8 - (header.length % 8)) % 8;
    const prefix = Buffer.alloc(8);
    prefix.writeInt32LE(-1, 0);
    prefix.writeInt32LE(header.length + pad, 4);
    parts.push(prefix, header, Buffer.alloc(pad), Buffer.from(m.data_body));
  }
  return arrow.tableFromIPC(Buffer.concat(parts));
}

module.exports = {collect, ipcToFlightData, tableToFlightData, tableFromFlightData};
