#!/usr/bin/env node
// Drives a node's Iceberg REST catalog with iceberg-js (an Iceberg REST client Mink's authors did
// not write) and prints what each step answered, one JSON object per line:
// {"step": name, "ok": true, "value": ...} or {"step": name, "ok": false, "status": HTTP status,
// "type": Iceberg exception type, "message": ...}. The test (tests/integration) asserts on them.
//
//   node iceberg_rest_client.mjs BASE_URL TOKEN
//
// Steps: list namespaces and tables and load Mink's tiered table shop.bills; create namespace
// ext.raw with properties and a table in it; commit a schema change with requirements; the same
// requirement again (a conflict); an append snapshot and its conflict; a commit to shop.bills
// that does not assert main's snapshot and sets properties (refused: only a snapshot that keeps
// mink-offsets is accepted on a tiered table); a retried POST with the same Idempotency-Key (the same answer, one
// change); rename, drop and drop of the namespace.

import { IcebergRestCatalog } from 'iceberg-js';

const [baseUrl, token] = process.argv.slice(2);
if (!baseUrl) {
  console.error('usage: node iceberg_rest_client.mjs BASE_URL TOKEN');
  process.exit(2);
}

// Every POST goes out twice with one Idempotency-Key (a retry after a lost answer); both
// answers are kept so the test can compare them.
const retried = [];
async function retryingFetch(url, init) {
  if (init?.method !== 'POST' || !url.includes('/tables')) return fetch(url, init);
  const key = crypto.randomUUID();
  const headers = { ...init.headers, 'Idempotency-Key': key };
  const first = await fetch(url, { ...init, headers });
  const firstText = await first.text();
  const second = await fetch(url, { ...init, headers });
  const secondText = await second.text();
  retried.push({ url: new URL(url).pathname, status: [first.status, second.status],
                 same: firstText === secondText });
  return new Response(secondText, { status: second.status, headers: second.headers });
}

const catalog = new IcebergRestCatalog({
  baseUrl,
  auth: token ? { type: 'bearer', token } : { type: 'none' },
  fetch: retryingFetch,
});

async function step(name, fn) {
  try {
    const value = await fn();
    console.log(JSON.stringify({ step: name, ok: true, value: value ?? null }));
    return value;
  } catch (e) {
    console.log(JSON.stringify({ step: name, ok: false, status: e.status ?? null,
                                 type: e.icebergType ?? null, message: e.message }));
    return undefined;
  }
}

const bills = { namespace: ['shop'], name: 'bills' };
const raw = { namespace: ['ext', 'raw'] };
const events = { namespace: ['ext', 'raw'], name: 'events' };

await step('list namespaces', () => catalog.listNamespaces());
await step('list tables of shop', () => catalog.listTables({ namespace: ['shop'] }));
await step('load shop.bills', async () => {
  const m = await catalog.loadTable(bills);
  const snapshot = m.snapshots.find(s => s['snapshot-id'] === m['current-snapshot-id']);
  return {
    columns: m.schemas.find(s => s['schema-id'] === m['current-schema-id']).fields.map(f => [f.id, f.name, f.type]),
    spec: m['partition-specs'][0].fields.map(f => f.transform),
    offsets: JSON.parse(snapshot.summary['mink-offsets']),
  };
});
await step('create namespace ext.raw', () => catalog.createNamespace(raw, { properties: { owner: 'ana' } }));
await step('namespace ext.raw exists', () => catalog.namespaceExists(raw));
await step('load namespace ext.raw', () => catalog.loadNamespaceMetadata(raw));
await step('list namespaces under ext', () => catalog.listNamespaces({ namespace: ['ext'] }));
const created = await step('create table ext.raw.events', async () => {
  const m = await catalog.createTable(raw, {
    name: 'events',
    schema: { type: 'struct', fields: [
      { id: 1, name: 'id', type: 'long', required: true },
      { id: 2, name: 'kind', type: 'string', required: false },
    ] },
    'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 2, name: 'kind', transform: 'identity' }] },
    properties: { 'write.format.default': 'parquet' },
  });
  return { uuid: m['table-uuid'], location: m.location, spec: m['partition-specs'][0].fields,
           last_column: m['last-column-id'] };
});
await step('list tables of ext.raw', () => catalog.listTables(raw));
await step('add a column with requirements', async () => {
  const r = await catalog.updateTable(events, {
    requirements: [
      { type: 'assert-table-uuid', uuid: created?.uuid },
      { type: 'assert-current-schema-id', 'current-schema-id': 0 },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 2 },
    ],
    updates: [
      { action: 'add-schema', schema: { type: 'struct', 'schema-id': 1, fields: [
        { id: 1, name: 'id', type: 'long', required: true },
        { id: 2, name: 'kind', type: 'string', required: false },
        { id: 3, name: 'at', type: 'timestamptz', required: false },
      ] }, 'last-column-id': 3 },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'set-properties', updates: { 'comment': 'events from outside' } },
    ],
  });
  return { current_schema: r.metadata['current-schema-id'], last_column: r.metadata['last-column-id'],
           log: r.metadata['metadata-log'].length, location: r['metadata-location'] };
});
await step('the same requirement again', () => catalog.updateTable(events, {
  requirements: [{ type: 'assert-current-schema-id', 'current-schema-id': 0 }],
  updates: [{ action: 'set-properties', updates: { 'lost': 'yes' } }],
}));
const appendCommit = (id, seq) => ({
  requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null }],
  updates: [
    { action: 'add-snapshot', snapshot: { 'snapshot-id': id, 'sequence-number': seq, 'timestamp-ms': Date.now(),
      'manifest-list': `${created?.location}/metadata/snap-${id}.avro`, summary: { operation: 'append' }, 'schema-id': 1 } },
    { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': id },
  ],
});
await step('append a snapshot', async () => {
  const r = await catalog.updateTable(events, appendCommit(101, 1));
  return { current: r.metadata['current-snapshot-id'], main: r.metadata.refs.main,
           sequence: r.metadata['last-sequence-number'] };
});
await step('a second writer appends on the same base', () => catalog.updateTable(events, appendCommit(102, 1)));
await step('load ext.raw.events', async () => {
  const m = await catalog.loadTable(events);
  return { current: m['current-snapshot-id'], snapshots: m.snapshots.map(s => s['snapshot-id']),
           properties: m.properties, schemas: m.schemas.length };
});
await step('commit to shop.bills', () => catalog.updateTable(bills, {
  requirements: [], updates: [{ action: 'set-properties', updates: { 'x': 'y' } }],
}));
await step('drop shop.bills', () => catalog.dropTable(bills));
await step('drop namespace ext.raw while it has a table', () => catalog.dropNamespace(raw));
await step('drop ext.raw.events', () => catalog.dropTable(events));
await step('ext.raw.events exists', () => catalog.tableExists(events));
await step('drop namespace ext.raw', () => catalog.dropNamespace(raw));
await step('retried POSTs', () => retried);
