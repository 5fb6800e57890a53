'use strict';
// An independent Flight SQL client for mink-query serve: @grpc/grpc-js and protobufjs with our
// copies of Arrow's protocol files (flight_sql.js), and Arrow JS (apache-arrow) for the data. Against a mink-query
// serve whose cluster holds the quick start's shop.orders and shop.events, it runs a query, a
// prepared statement with a parameter, and the catalog commands, and checks the values. Prints
// one "ok: ..." line per check; exits 1 at the first failure.
//
// Usage: node flight_sql_client.js <port>

const assert = require('assert');
const arrow = require('apache-arrow');
const {collect, tableToFlightData} = require('./flight_data');
const {grpc, type, pack, unpack, rows, connect} = require('./flight_sql');

const port = process.argv[2];
const {client, fetch} = connect(port);

// A DECIMAL value of Arrow JS (little-endian 32-bit words) as text with its scale.
function decimalText(words, scale) {
  let v = 0n;
  for (let i = words.length - 1; i >= 0; --i) v = (v << 32n) | BigInt(words[i]);
  if (v >= 1n << 127n) v -= 1n << 128n;
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + digits.slice(0, digits.length - scale) + '.' + digits.slice(-scale);
}

function ok(what) { console.log(`ok: ${what}`); }

async function main() {
  // ---- A query (CommandStatementQuery): the aggregate of README.md's SQL section.
  const q = await fetch('CommandStatementQuery', {query:
    'SELECT region, sum(amount) AS total FROM mink.shop.orders GROUP BY region ORDER BY region'});
  const querySchema = arrow.tableFromIPC(Buffer.from(q.info.schema)).schema;
  assert.deepStrictEqual(querySchema.fields.map((f) => f.name), ['region', 'total']);
  const totalType = q.table.schema.fields[1].type;
  assert.ok(arrow.DataType.isDecimal(totalType), `total is ${totalType}`);
  const got = q.table.toArray().map((r) =>
    [r.region, decimalText(r.total, totalType.scale)]);
  assert.deepStrictEqual(got, [['eu', '3.00'], ['us', '11.00']]);
  ok('CommandStatementQuery: eu 3.00, us 11.00');

  // A ticket is read once.
  try {
    await collect(client.DoGet(q.info.endpoint[0].ticket));
    assert.fail('a used ticket was read again');
  } catch (e) {
    assert.strictEqual(e.code, grpc.status.NOT_FOUND, String(e));
  }
  ok('a statement ticket is read once');

  // ---- A prepared statement with one parameter, bound with DoPut.
  const created = await collect(client.DoAction({type: 'CreatePreparedStatement',
    body: pack('ActionCreatePreparedStatementRequest',
               {query: 'SELECT id, amount FROM mink.shop.orders WHERE region = $1'})}));
  const prepared = unpack(created[0].body, 'ActionCreatePreparedStatementResult');
  const datasetSchema = arrow.tableFromIPC(Buffer.from(prepared.dataset_schema)).schema;
  assert.deepStrictEqual(datasetSchema.fields.map((f) => f.name), ['id', 'amount']);
  const parameterSchema = arrow.tableFromIPC(Buffer.from(prepared.parameter_schema)).schema;
  assert.strictEqual(parameterSchema.fields.length, 1);
  const handle = prepared.prepared_statement_handle;
  for (const [region, want] of [['us', [['1', '11.00']]], ['eu', [['2', '3.00']]], ['ap', []]]) {
    const params = new arrow.Table({p1: arrow.vectorFromArray([region], new arrow.Utf8())});
    const messages = tableToFlightData(params);
    messages[0].flight_descriptor = {type: 'CMD',
      cmd: pack('CommandPreparedStatementQuery', {prepared_statement_handle: handle})};
    const put = client.DoPut();
    const results = collect(put);
    for (const m of messages) put.write(m);
    put.end();
    const putResults = await results;
    const bound = type('DoPutPreparedStatementResult').decode(putResults[0].app_metadata);
    assert.ok(Buffer.from(bound.prepared_statement_handle).equals(Buffer.from(handle)));
    const r = await fetch('CommandPreparedStatementQuery', {prepared_statement_handle: handle});
    const amountType = r.table.schema.fields[1].type;
    const values = r.table.toArray().map((row) =>
      [row.id.toString(), decimalText(row.amount, amountType.scale)]);
    assert.deepStrictEqual(values, want);
  }
  ok('prepared statement with a parameter: us, eu, ap');
  await collect(client.DoAction({type: 'ClosePreparedStatement',
    body: pack('ActionClosePreparedStatementRequest', {prepared_statement_handle: handle})}));
  try {
    await fetch('CommandPreparedStatementQuery', {prepared_statement_handle: handle});
    assert.fail('a closed prepared statement ran');
  } catch (e) {
    assert.strictEqual(e.code, grpc.status.NOT_FOUND, String(e));
  }
  ok('ClosePreparedStatement');

  // ---- Catalog commands.
  const catalogs = rows((await fetch('CommandGetCatalogs', {})).table).map((r) => r.catalog_name);
  assert.ok(catalogs.includes('mink'), JSON.stringify(catalogs));
  ok(`GetCatalogs: ${catalogs.join(', ')}`);

  const schemas = rows((await fetch('CommandGetDbSchemas', {catalog: 'mink'})).table);
  assert.deepStrictEqual(schemas, [{catalog_name: 'mink', db_schema_name: 'shop'}]);
  ok('GetDbSchemas: mink.shop');

  const tables = await fetch('CommandGetTables',
    {catalog: 'mink', db_schema_filter_pattern: 'sh%', include_schema: true});
  const tableRows = tables.table.toArray();
  assert.deepStrictEqual(tableRows.map((r) => [r.catalog_name, r.db_schema_name, r.table_name,
                                               r.table_type]),
                         [['mink', 'shop', 'events', 'TABLE'], ['mink', 'shop', 'orders', 'TABLE']]);
  const ordersSchema = arrow.tableFromIPC(Buffer.from(tableRows[1].table_schema)).schema;
  assert.deepStrictEqual(ordersSchema.fields.map((f) => `${f.name}:${f.type}`),
                         ['id:Int64', 'region:Utf8', 'amount:Decimal[10e+2]']);
  ok('GetTables with include_schema');

  const filtered = rows((await fetch('CommandGetTables',
    {catalog: 'mink', table_name_filter_pattern: 'ord_rs'})).table);
  assert.deepStrictEqual(filtered.map((r) => r.table_name), ['orders']);
  ok('GetTables with a table name pattern');

  const keys = rows((await fetch('CommandGetPrimaryKeys',
    {catalog: 'mink', db_schema: 'shop', table: 'orders'})).table);
  assert.deepStrictEqual(keys.map((k) => [k.column_name, k.key_sequence]), [['id', 1], ['region', 2]]);
  ok('GetPrimaryKeys: id, region');

  const info = await fetch('CommandGetSqlInfo', {info: [0, 3, 4, 504, 508]});
  const infoSchema = arrow.tableFromIPC(Buffer.from(info.info.schema)).schema;
  assert.strictEqual(String(infoSchema.fields[1].type.mode), String(arrow.UnionMode.Dense));
  const byId = {};
  for (const r of info.table.toArray()) byId[r.info_name] = r.value;
  assert.strictEqual(byId[0], 'Mink');
  assert.strictEqual(byId[3], true);
  assert.strictEqual(byId[4], true);
  assert.strictEqual(byId[504], '"');
  const keywords = byId[508].toArray();
  assert.ok(keywords.includes('select') || keywords.includes('SELECT'), keywords.join(','));
  ok(`GetSqlInfo: ${byId[0]}, read-only, SQL, quote ${byId[504]}, ${keywords.length} keywords`);

  const all = (await fetch('CommandGetSqlInfo', {})).table;
  assert.ok(all.numRows >= 20, `${all.numRows} info rows`);
  ok(`GetSqlInfo without ids: ${all.numRows} rows`);

  const types = rows((await fetch('CommandGetXdbcTypeInfo', {})).table);
  const bigint = types.find((t) => t.type_name === 'BIGINT');
  assert.strictEqual(bigint.data_type, -5);
  assert.strictEqual(types.find((t) => t.type_name === 'VARCHAR').data_type, 12);
  const sorted = types.map((t) => t.data_type);
  assert.deepStrictEqual(sorted, [...sorted].sort((a, b) => a - b));
  const onlyInt = rows((await fetch('CommandGetXdbcTypeInfo', {data_type: 4})).table);
  assert.deepStrictEqual(onlyInt.map((t) => t.type_name), ['INTEGER']);
  ok(`GetXdbcTypeInfo: ${types.length} types`);

  // ---- Continuous SQL through executeUpdate (CommandStatementUpdate): the statements go to the
  // node, and the view they create is a table the next query reads.
  {
    const put = client.DoPut();
    const results = collect(put);
    put.write({flight_descriptor: {type: 'CMD', cmd: pack('CommandStatementUpdate', {query:
      "CREATE SOURCE ticks FROM GENERATOR ('rows.per.second' = '10'); " +
      'CREATE MATERIALIZED VIEW tick_totals AS SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq FROM ticks'})}});
    put.end();
    const putResults = await results;
    const updated = type('DoPutUpdateResult').decode(putResults[0].app_metadata);
    assert.strictEqual(Number(updated.record_count), 2);
    let seen = [];
    for (let i = 0; i < 50 && seen.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      seen = rows((await fetch('CommandStatementQuery',
        {query: 'SELECT rows_seen, last_seq FROM mink.continuous.tick_totals'})).table);
    }
    assert.strictEqual(seen.length, 1, JSON.stringify(seen));
    assert.strictEqual(BigInt(seen[0].last_seq) + 1n, BigInt(seen[0].rows_seen), JSON.stringify(seen));
  }
  ok('continuous SQL through executeUpdate: the view fills');

  // ---- SQL errors: INVALID_ARGUMENT with DuckDB's message.
  try {
    await fetch('CommandStatementQuery', {query: 'SELECT * FROM mink.shop.nope'});
    assert.fail('no error');
  } catch (e) {
    assert.strictEqual(e.code, grpc.status.INVALID_ARGUMENT, String(e));
    assert.ok(e.details.includes('Table with name nope does not exist'), e.details);
  }
  try {
    await fetch('CommandStatementQuery', {query: 'SELEC 1'});
    assert.fail('no error');
  } catch (e) {
    assert.strictEqual(e.code, grpc.status.INVALID_ARGUMENT, String(e));
    assert.ok(e.details.includes('syntax error at or near "SELEC"'), e.details);
  }
  ok('SQL errors are INVALID_ARGUMENT with DuckDB\'s message');
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
