'use strict';
// Every RPC of Arrow Flight against one address without credentials, as a stranger would call
// them (@grpc/grpc-js, no Mink code). Prints one JSON line per RPC: {"rpc", "code"} with the
// gRPC status code it ended with (0 when it succeeded).
//
// Usage: node flight_walk.js <port>

const {connect, pack} = require('./flight_sql');

const port = process.argv[2];
const {client} = connect(port);

function unary(method, request) {
  return new Promise((resolve) => client[method](request, (e) => resolve(e ? e.code : 0)));
}

// A streaming call: its final status, after writing `writes` (for client streams).
function stream(call, writes) {
  return new Promise((resolve) => {
    call.on('data', () => {});
    call.on('error', (e) => resolve(e.code));
    call.on('end', () => resolve(0));
    if (writes) {
      for (const w of writes) call.write(w);
      call.end();
    }
  });
}

async function main() {
  const command = {type: 'CMD', cmd: pack('CommandStatementQuery', {query: 'SELECT 1'})};
  const path = {type: 'PATH', path: ['shop.orders']};
  const results = [
    ['Handshake', await stream(client.Handshake(), [{protocol_version: 0, payload: Buffer.from('x')}])],
    ['ListFlights', await stream(client.ListFlights({expression: Buffer.alloc(0)}))],
    ['GetFlightInfo', await unary('GetFlightInfo', path)],
    ['GetFlightInfo (Flight SQL)', await unary('GetFlightInfo', command)],
    ['PollFlightInfo', await unary('PollFlightInfo', path)],
    ['GetSchema', await unary('GetSchema', path)],
    ['DoGet', await stream(client.DoGet({ticket: Buffer.from('{"table":"shop.orders"}')}))],
    ['DoPut', await stream(client.DoPut(), [{flight_descriptor: path, data_header: Buffer.alloc(0)}])],
    ['DoExchange', await stream(client.DoExchange(), [{flight_descriptor: path}])],
    ['DoAction', await stream(client.DoAction({type: 'list-databases', body: Buffer.from('{}')}))],
    ['DoAction (create-user)', await stream(client.DoAction({type: 'create-user',
      body: Buffer.from('{"name":"mallory","password":"x"}')}))],
    ['ListActions', await stream(client.ListActions({}))],
  ];
  for (const [rpc, code] of results) console.log(JSON.stringify({rpc, code}));
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
