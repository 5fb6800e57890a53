'use strict';
// kafkajs 2.2.4 (tests/node/node_modules) against the Kafka listener of a running node
// (with_kafka_node.sh starts it): ApiVersions v2, Metadata v6, Produce v7, Fetch v11 (read
// committed), the v3-v5 group APIs, InitProducerId v1.
//
// - admin: createTopics (two partitions), fetchTopicMetadata, fetchTopicOffsets
// - an idempotent producer (idempotent: true) sending 60 records in several requests: every
//   base offset as expected, keys, headers and explicit timestamps
// - a consumer group of two consumers: the first joins alone and gets both partitions, the second
//   joins and each gets one; records produced after that go to the member owning their
//   partition; together they read every record exactly once with its key, value, headers,
//   timestamp and offset; the group's committed offsets (admin.fetchOffsets) are the ends after
//   they stop
// - DeleteRecords (admin.deleteTopicRecords): the log start moves, a consumer from the beginning
//   starts there, a group committed below it resets to it, an offset beyond the end is refused
// - DeleteGroups (admin.deleteGroups): refused for a group with a member; an empty group goes
//   with its committed offsets
// - the table view of the same rows (`mink read`)
//
// Usage: MINK_TEST_BROKER=host:port MINK_BIN=path/to/mink node kafka_kafkajs_test.js

const path = require('path');
const {execFileSync} = require('child_process');
const {Kafka, logLevel} = require(path.join(__dirname, '..', 'node', 'node_modules', 'kafkajs'));

const broker = process.env.MINK_TEST_BROKER;
const TOPIC = 'js-topic';
const GROUP = 'js-group';
const N = 60;      // before the group starts
const LATER = 20;  // after the second member joined

let failures = 0;
function ok(name, condition, detail) {
  if (condition) {
    console.log(`ok: ${name}`);
  } else {
    failures++;
    console.error(`FAIL: ${name}${detail !== undefined ? ': ' + detail : ''}`);
  }
  return condition;
}
function expect(name, expected, actual) {
  const e = JSON.stringify(expected);
  const a = JSON.stringify(actual);
  return ok(name, e === a, `\n--- expected\n${e}\n--- actual\n${a}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(seconds, condition) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(100);
  }
  return false;
}

const kafka = new Kafka({
  clientId: 'mink-kafkajs-test',
  brokers: [broker],
  logLevel: logLevel.ERROR,
  retry: {retries: 5, initialRetryTime: 100, maxRetryTime: 1000},
  connectionTimeout: 5000,
  requestTimeout: 15000,
});

const baseTs = Date.now() - 7200 * 1000;
function record(i) {
  return {
    partition: i % 2,
    key: `js-key-${i}`,
    value: `js-value-${i}`,
    headers: {n: String(i), from: 'kafkajs'},
    timestamp: String(baseTs + i),
  };
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  expect('admin.createTopics', true,
         await admin.createTopics({topics: [{topic: TOPIC, numPartitions: 2}], waitForLeaders: true}));
  const meta = await admin.fetchTopicMetadata({topics: [TOPIC]});
  expect('fetchTopicMetadata: two partitions led by node 1', [[0, 1], [1, 1]],
         meta.topics[0].partitions.map((p) => [p.partitionId, p.leader]).sort());

  // ---- Idempotent producer: 60 records in 6 requests (and 20 more in 2 once the group is up).
  const producer = kafka.producer({idempotent: true, maxInFlightRequests: 1});
  await producer.connect();
  const bases = [];
  async function sendBatches(from, to) {
    for (let batch = from; batch < to; batch++) {
      const messages = [];
      for (let i = batch * 10; i < batch * 10 + 10; i++) messages.push(record(i));
      const result = await producer.send({topic: TOPIC, acks: -1, messages});
      for (const r of result) bases.push([batch, r.partition, r.errorCode, Number(r.baseOffset)]);
    }
  }
  await sendBatches(0, N / 10);
  const expectedBases = [];
  for (let batch = 0; batch < (N + LATER) / 10; batch++) {
    for (const p of [0, 1]) expectedBases.push([batch, p, 0, batch * 5]);
  }
  expect('idempotent producer: base offsets of every request',
         expectedBases.slice(0, N / 5), bases.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  const offsets = await admin.fetchTopicOffsets(TOPIC);
  expect('fetchTopicOffsets: 30 per partition', [[0, '0', '30'], [1, '0', '30']],
         offsets.map((o) => [o.partition, o.low, o.high]).sort());

  // ---- A consumer group of two.
  const seen = [];
  const joins = {};
  const consumers = [];
  for (const name of ['js-a', 'js-b']) {
    const consumer = kafka.consumer({
      groupId: GROUP, sessionTimeout: 6000, rebalanceTimeout: 10000, heartbeatInterval: 500,
      maxWaitTimeInMs: 100, retry: {retries: 5},
    });
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      joins[name] = (e.payload.memberAssignment[TOPIC] || []).slice().sort();
    });
    await consumer.connect();
    await consumer.subscribe({topics: [TOPIC], fromBeginning: true});
    await consumer.run({
      eachMessage: async ({partition, message}) => {
        seen.push({
          member: name, partition, offset: message.offset, key: message.key.toString(),
          value: message.value.toString(), timestamp: message.timestamp,
          headers: Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, v.toString()])),
        });
      },
    });
    consumers.push(consumer);
    if (name === 'js-a') {
      ok('group: the first consumer joins with both partitions',
         await waitFor(30, () => JSON.stringify(joins['js-a']) === '[0,1]'), JSON.stringify(joins));
    }
  }
  ok('group: after the second joins, one partition each',
     await waitFor(40, () => joins['js-a'] && joins['js-b'] && joins['js-a'].length === 1 &&
                             joins['js-b'].length === 1 && joins['js-a'][0] !== joins['js-b'][0]),
     JSON.stringify(joins));
  ok('group: the records produced before consumed', await waitFor(30, () => seen.length >= N),
     `${seen.length} of ${N}`);
  // Records produced now go to the member that owns their partition.
  await sendBatches(N / 10, (N + LATER) / 10);
  await producer.disconnect();
  expect('idempotent producer: base offsets of the requests sent later', expectedBases,
         bases.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  const TOTAL = N + LATER;
  ok('group: every record consumed', await waitFor(30, () => seen.length >= TOTAL), `${seen.length} of ${TOTAL}`);
  await sleep(1000);  // duplicates would show up here
  const unique = new Set(seen.map((s) => `${s.partition}/${s.offset}`));
  expect('group: every record exactly once across the group', [TOTAL, TOTAL], [seen.length, unique.size]);
  const owner = {};
  for (const [member, parts] of Object.entries(joins)) for (const p of parts) owner[p] = member;
  const late = seen.filter((s) => Number(s.offset) >= N / 2);
  expect('group: the later records were read by the member owning their partition',
         late.map((s) => owner[s.partition]), late.map((s) => s.member));
  const expected = [];
  for (let i = 0; i < TOTAL; i++) {
    const r = record(i);
    expected.push({partition: r.partition, offset: String(Math.floor(i / 2)), key: r.key,
                   value: r.value, timestamp: r.timestamp, headers: r.headers});
  }
  const sortKey = (s) => s.partition * 1e6 + Number(s.offset);
  expected.sort((a, b) => sortKey(a) - sortKey(b));
  expect('group: keys, values, headers, timestamps and offsets as sent', expected,
         seen.slice().sort((a, b) => sortKey(a) - sortKey(b)).map(
             ({partition, offset, key, value, timestamp, headers}) =>
               ({partition, offset, key, value, timestamp, headers})));
  const byMember = {};
  for (const s of seen) (byMember[s.member] = byMember[s.member] || new Set()).add(s.partition);
  ok('group: both members consumed', Object.keys(byMember).length === 2,
     JSON.stringify(Object.fromEntries(Object.entries(byMember).map(([k, v]) => [k, [...v]]))));

  // The group as the admin API shows it (ListGroups v2, DescribeGroups v2).
  const listed = await admin.listGroups();
  ok('admin.listGroups has the group', listed.groups.some((g) => g.groupId === GROUP && g.protocolType === 'consumer'),
     JSON.stringify(listed));
  const described = (await admin.describeGroups([GROUP])).groups[0];
  expect('admin.describeGroups: Stable, two members of this client from 127.0.0.1',
         [0, 'Stable', 'consumer', 'RoundRobinAssigner', 2, ['/127.0.0.1', '/127.0.0.1'],
          ['mink-kafkajs-test', 'mink-kafkajs-test']],
         [described.errorCode, described.state, described.protocolType, described.protocol,
          described.members.length, described.members.map((m) => m.clientHost),
          described.members.map((m) => m.clientId)]);

  for (const c of consumers) await c.disconnect();
  ok('after both left, the group is Empty',
     await waitFor(10, async () => (await admin.describeGroups([GROUP])).groups[0].state === 'Empty'));
  let committed = null;
  ok('group: committed offsets are the ends (admin.fetchOffsets)', await waitFor(10, async () => {
    const r = await admin.fetchOffsets({groupId: GROUP, topics: [TOPIC]});
    committed = r[0].partitions.map((p) => [p.partition, p.offset]).sort();
    return JSON.stringify(committed) === JSON.stringify([[0, '40'], [1, '40']]);
  }), JSON.stringify(committed));

  // ---- DeleteRecords: partition 0's log start moves to 25; beyond the end is refused.
  await admin.deleteTopicRecords({topic: TOPIC, partitions: [{partition: 0, offset: 25}]});
  expect('deleteTopicRecords: partition 0 starts at 25, partition 1 is untouched',
         [[0, '25', '40'], [1, '0', '40']],
         (await admin.fetchTopicOffsets(TOPIC)).map((o) => [o.partition, o.low, o.high]).sort());
  let refused = null;
  try {
    await admin.deleteTopicRecords({topic: TOPIC, partitions: [{partition: 0, offset: 41}]});
  } catch (e) {
    refused = e.cause || e;  // kafkajs wraps what it does not retry, keeping the broker's error
  }
  expect('deleteTopicRecords beyond the high watermark: OFFSET_OUT_OF_RANGE, nothing deleted',
         [['OFFSET_OUT_OF_RANGE'], [[0, '25', '40']]],
         [refused && refused.partitions ? refused.partitions.map((p) => p.error && p.error.type) : String(refused),
          (await admin.fetchTopicOffsets(TOPIC)).filter((o) => o.partition === 0).map((o) => [o.partition, o.low, o.high])]);
  // A consumer from the beginning starts at the new log start.
  const fresh = kafka.consumer({groupId: `${GROUP}-after-delete`, maxWaitTimeInMs: 100});
  const firstOffsets = [];
  await fresh.connect();
  await fresh.subscribe({topics: [TOPIC], fromBeginning: true});
  await fresh.run({eachMessage: async ({partition, message}) => {
    if (partition === 0) firstOffsets.push(Number(message.offset));
  }});
  ok('after deleteTopicRecords a consumer from the beginning reads partition 0 from 25 to 39',
     await waitFor(30, () => firstOffsets.length >= 15) &&
       JSON.stringify(firstOffsets.slice().sort((x, y) => x - y)) ===
         JSON.stringify(Array.from({length: 15}, (_, i) => 25 + i)),
     JSON.stringify(firstOffsets));
  // DeleteGroups: a group with a member is refused with NON_EMPTY_GROUP.
  let nonEmpty = null;
  try {
    await admin.deleteGroups([`${GROUP}-after-delete`]);
  } catch (e) {
    nonEmpty = e.cause || e;
  }
  expect('deleteGroups of a group with a member: NON_EMPTY_GROUP (68)',
         [[`${GROUP}-after-delete`, 68]],
         nonEmpty && nonEmpty.groups ? nonEmpty.groups.map((g) => [g.groupId, g.errorCode]) : String(nonEmpty));
  await fresh.disconnect();
  // A group whose committed offset is now below the log start: its fetch gets
  // OFFSET_OUT_OF_RANGE and the client resets to the earliest offset, the new start.
  const RESET_GROUP = `${GROUP}-reset`;
  await admin.setOffsets({groupId: RESET_GROUP, topic: TOPIC, partitions: [{partition: 0, offset: '10'}]});
  const resetting = kafka.consumer({groupId: RESET_GROUP, maxWaitTimeInMs: 100});
  const resumed = [];
  await resetting.connect();
  await resetting.subscribe({topics: [TOPIC], fromBeginning: true});
  await resetting.run({eachMessage: async ({partition, message}) => {
    if (partition === 0) resumed.push(Number(message.offset));
  }});
  ok('a committed offset below the log start resets to it (25), not to the committed 10',
     await waitFor(30, () => resumed.length >= 15) && Math.min(...resumed) === 25,
     JSON.stringify(resumed.slice(0, 5)));
  await resetting.disconnect();
  await admin.deleteTopicRecords({topic: TOPIC, partitions: [{partition: 0, offset: -1}]});
  expect('deleteTopicRecords to -1: partition 0 starts at its high watermark',
         [[0, '40', '40']],
         (await admin.fetchTopicOffsets(TOPIC)).filter((o) => o.partition === 0).map((o) => [o.partition, o.low, o.high]));

  // ---- DeleteGroups: the empty group goes, with its committed offsets.
  expect('deleteGroups of the empty group', [[GROUP, 0]],
         (await admin.deleteGroups([GROUP])).map((g) => [g.groupId, g.errorCode]));
  ok('deleteGroups: the group is no longer listed',
     !(await admin.listGroups()).groups.some((g) => g.groupId === GROUP));
  expect('deleteGroups: its committed offsets are gone', [[0, '-1'], [1, '-1']],
         (await admin.fetchOffsets({groupId: GROUP, topics: [TOPIC]}))[0].partitions
             .map((p) => [p.partition, p.offset]).sort());
  await admin.disconnect();

  // ---- The table view: partition 1's first row (hex values, headers, timestamp).
  const row = JSON.parse(execFileSync(process.env.MINK_BIN, ['read', `kafka.${TOPIC}`, '--bucket', '1', '-n', '1'],
                                      {encoding: 'utf8', timeout: 30000}));
  const hex = (s) => Buffer.from(s).toString('hex');
  expect('mink read: the row of record 1', {
    key: hex('js-key-1'), value: hex('js-value-1'),
    headers: [{key: 'n', value: hex('1')}, {key: 'from', value: hex('kafkajs')}],
    timestamp: new Date(baseTs + 1).toISOString(),
  }, row);
}

main().then(() => {
  if (failures) {
    console.error(`${failures} check(s) failed`);
    process.exit(1);
  }
  console.log('all checks passed');
  process.exit(0);
}, (e) => {
  console.error('FAIL:', e);
  process.exit(1);
});
