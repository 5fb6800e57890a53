'use strict';
// mink-query serve in front of a cluster with authentication on, as a stranger and as its users
// would call it (@grpc/grpc-js, no Mink code): the cluster has users root (super), reader (read
// on shop.orders, describe on secret.salaries) and the tables shop.orders, secret.salaries and
// secret.bonuses. Prints one "ok: ..." line
// per check; exits 1 at the first failure.
//
// Usage: node flight_sql_auth_client.js <port> <root password> <reader password>

const assert = require('assert');
const {collect} = require('./flight_data');
const {grpc, pack, unpack, rows, basic, metadataOf, connect} = require('./flight_sql');

const [port, rootPassword, readerPassword] = process.argv.slice(2);
const {client, unary, fetch, action, update} = connect(port);
const ROOT = basic('root', rootPassword);
const READER = basic('reader', readerPassword);
const ORDERS = 'SELECT id, region FROM mink.shop.orders ORDER BY id';

function ok(what) { console.log(`ok: ${what}`); }

async function refused(what, code, call, mentions) {
  try {
    await call();
  } catch (e) {
    assert.strictEqual(e.code, code, `${what}: ${e}`);
    if (mentions) assert.ok(e.details.includes(mentions), `${what}: ${e.details}`);
    ok(`${what}: refused (${grpc.status[code]})`);
    return e;
  }
  assert.fail(`${what}: not refused`);
}

async function main() {
  // ---- Strangers.
  await refused('no credentials: a query', grpc.status.UNAUTHENTICATED, () => fetch('CommandStatementQuery', {query: ORDERS}));
  await refused('no credentials: the catalog list', grpc.status.UNAUTHENTICATED, () => fetch('CommandGetCatalogs', {}));
  await refused('a wrong password', grpc.status.UNAUTHENTICATED,
    () => fetch('CommandStatementQuery', {query: ORDERS}, basic('reader', 'not-the-password')));
  await refused('an unknown user', grpc.status.UNAUTHENTICATED,
    () => fetch('CommandStatementQuery', {query: ORDERS}, basic('mallory', 'x')));
  await refused('a made-up bearer token', grpc.status.UNAUTHENTICATED,
    () => fetch('CommandStatementQuery', {query: ORDERS}, {authorization: 'Bearer 00ff00ff'}));

  // ---- reader reads what the cluster grants it, and nothing else.
  const got = rows((await fetch('CommandStatementQuery', {query: ORDERS}, READER)).table);
  assert.deepStrictEqual(got, [{id: '1', region: 'us'}, {id: '2', region: 'eu'}]);
  ok('reader reads shop.orders (read granted)');
  await refused('reader reads secret.salaries (describe only)', grpc.status.PERMISSION_DENIED,
    () => fetch('CommandStatementQuery', {query: 'SELECT * FROM mink.secret.salaries'}, READER), 'secret.salaries');
  await refused('reader reads secret.bonuses (no grant)', grpc.status.PERMISSION_DENIED,
    () => fetch('CommandStatementQuery', {query: 'SELECT * FROM mink.secret.bonuses'}, READER),
    'user reader may not describe table secret.bonuses');
  await refused('reader reads a database it may not see', grpc.status.INVALID_ARGUMENT,
    () => fetch('CommandStatementQuery', {query: 'SELECT * FROM mink.hidden.things'}, READER), 'does not exist');
  const salaries = rows((await fetch('CommandStatementQuery',
    {query: 'SELECT name, amount FROM mink.secret.salaries'}, ROOT)).table);
  assert.deepStrictEqual(salaries.map((r) => r.name), ['ada']);
  ok('root reads secret.salaries (super user): the server reads as each caller');

  // ---- The Flight handshake answers a bearer token that stands for the caller.
  const token = await new Promise((resolve, reject) => {
    const call = client.Handshake(metadataOf(READER));
    call.on('metadata', (m) => resolve(String(m.get('authorization')[0] || '')));
    call.on('error', reject);
    call.write({protocol_version: 0, payload: Buffer.alloc(0)});
    call.end();
  });
  assert.ok(token.startsWith('Bearer '), token);
  const byToken = rows((await fetch('CommandStatementQuery', {query: ORDERS}, {authorization: token})).table);
  assert.strictEqual(byToken.length, 2);
  ok('Handshake with Basic answers a bearer token; the token reads as reader');
  await refused('reader\'s token reads secret.salaries', grpc.status.PERMISSION_DENIED,
    () => fetch('CommandStatementQuery', {query: 'SELECT * FROM mink.secret.salaries'}, {authorization: token}));

  // ---- Handles belong to their caller.
  const created = await action('CreatePreparedStatement',
    pack('ActionCreatePreparedStatementRequest', {query: 'SELECT name, amount FROM mink.secret.salaries'}), ROOT);
  const handle = unpack(created[0].body, 'ActionCreatePreparedStatementResult').prepared_statement_handle;
  await refused('reader runs root\'s prepared statement', grpc.status.NOT_FOUND,
    () => fetch('CommandPreparedStatementQuery', {prepared_statement_handle: handle}, READER));
  await refused('reader closes root\'s prepared statement', grpc.status.NOT_FOUND,
    () => action('ClosePreparedStatement', pack('ActionClosePreparedStatementRequest', {prepared_statement_handle: handle}), READER));
  const own = rows((await fetch('CommandPreparedStatementQuery', {prepared_statement_handle: handle}, ROOT)).table);
  assert.deepStrictEqual(own.map((r) => r.name), ['ada']);
  ok('root still runs its own prepared statement');
  const info = await unary('GetFlightInfo', {type: 'CMD', cmd: pack('CommandStatementQuery', {query: ORDERS})}, ROOT);
  await refused('reader reads root\'s statement ticket', grpc.status.NOT_FOUND,
    () => collect(client.DoGet(info.endpoint[0].ticket, metadataOf(READER))));

  // ---- Authenticated callers only read: no DuckDB table shared with the next caller, no file.
  await refused('root copies salaries into a local table', grpc.status.PERMISSION_DENIED,
    () => update('CommandStatementUpdate', {query: 'CREATE TABLE leak AS SELECT * FROM mink.secret.salaries'}, ROOT));
  await refused('reader reads the local table', grpc.status.INVALID_ARGUMENT,
    () => fetch('CommandStatementQuery', {query: 'SELECT * FROM leak'}, READER), 'leak');
  await refused('reader reads a file of the server', grpc.status.PERMISSION_DENIED,
    () => fetch('CommandStatementQuery', {query: "SELECT * FROM read_csv('/etc/passwd')"}, READER));
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
