'use strict';
// Flight calls whose bytes a test chooses, as a stranger sends them (@grpc/grpc-js, no Mink
// code): DoAction with any body, DoGet with any ticket, DoPut with any command descriptor and no
// data. Prints one JSON line per call: {"call", "code", "details"} with the gRPC status code it
// ended with (0 when it succeeded).
//
// Usage: node flight_calls.js <port> '<JSON array of {"call": "DoAction", "type", "body"} |
//        {"call": "DoGet", "ticket"} | {"call": "DoPut", "cmd"}>'

const {connect} = require('./flight_sql');

const port = process.argv[2];
const calls = JSON.parse(process.argv[3]);
const {client} = connect(port);

function finish(call, writes) {
  return new Promise((resolve) => {
    call.on('data', () => {});
    call.on('error', (e) => resolve({code: e.code, details: e.details}));
    call.on('end', () => resolve({code: 0, details: ''}));
    if (writes) {
      for (const w of writes) call.write(w);
      call.end();
    }
  });
}

function run(c) {
  switch (c.call) {
    case 'DoAction': return finish(client.DoAction({type: c.type, body: Buffer.from(c.body)}));
    case 'DoGet': return finish(client.DoGet({ticket: Buffer.from(c.ticket)}));
    case 'DoPut': return finish(client.DoPut(), [{flight_descriptor: {type: 'CMD', cmd: Buffer.from(c.cmd)},
      data_header: Buffer.alloc(0)}]);
    default: throw new Error(`unknown call ${c.call}`);
  }
}

async function main() {
  for (const c of calls) {
    const {code, details} = await run(c);
    console.log(JSON.stringify({call: c.call + (c.type ? ` ${c.type}` : ''), code, details}));
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
