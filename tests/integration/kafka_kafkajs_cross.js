'use strict';
// kafkajs as one of the clients of the cross-client test (kafka_cross_test.py).
//
//   node kafka_kafkajs_cross.js produce <broker> <topic>          < JSON list of records
//   node kafka_kafkajs_cross.js consume <broker> <topic> <count> <group>
//
// A record is {"partition", "key" (hex or null), "value" (hex or null), "headers": [[key, hex]],
// "timestamp" (epoch ms)}; consume prints each record read (plus "offset") as one JSON line, in
// partition and offset order, after <count> records (30 s at most). MINK_KAFKAJS_REQUEST_TIMEOUT_MS
// sets kafkajs's requestTimeout (30 s by default), for tests whose requests are lost on purpose.

const path = require('path');
const {Kafka, logLevel} = require(path.join(__dirname, '..', 'node', 'node_modules', 'kafkajs'));

const [mode, broker, topic, count, group] = process.argv.slice(2);
const kafka = new Kafka({clientId: 'mink-cross-kafkajs', brokers: [broker], logLevel: logLevel.ERROR,
                         retry: {retries: 5, initialRetryTime: 100, maxRetryTime: 1000},
                         requestTimeout: Number(process.env.MINK_KAFKAJS_REQUEST_TIMEOUT_MS || 30000)});
const fromHex = (h) => (h === null ? null : Buffer.from(h, 'hex'));
const hex = (b) => (b === null || b === undefined ? null : Buffer.from(b).toString('hex'));

async function produce() {
  const records = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const producer = kafka.producer({idempotent: true, maxInFlightRequests: 1});
  await producer.connect();
  const out = [];
  for (const r of records) {
    // kafkajs headers are an object; each record's keys are distinct here.
    const headers = {};
    for (const [k, v] of r.headers) headers[k] = fromHex(v);
    const result = await producer.send({topic, acks: -1, messages: [{
      partition: r.partition, key: fromHex(r.key), value: fromHex(r.value), headers,
      timestamp: String(r.timestamp)}]});
    out.push({partition: result[0].partition, offset: Number(result[0].baseOffset)});
  }
  await producer.disconnect();
  console.log(JSON.stringify(out));
}

async function consume() {
  const consumer = kafka.consumer({groupId: group, sessionTimeout: 6000, heartbeatInterval: 500,
                                   rebalanceTimeout: 10000, maxWaitTimeInMs: 100});
  await consumer.connect();
  await consumer.subscribe({topics: [topic], fromBeginning: true});
  const seen = [];
  await consumer.run({eachMessage: async ({partition, message}) => {
    const headers = [];
    for (const [k, v] of Object.entries(message.headers || {})) {
      for (const one of Array.isArray(v) ? v : [v]) headers.push([k, hex(one)]);
    }
    seen.push({partition, offset: Number(message.offset), key: hex(message.key),
               value: hex(message.value), headers, timestamp: Number(message.timestamp)});
  }});
  const deadline = Date.now() + 30000;
  while (seen.length < Number(count) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));  // duplicates would show up here
  await consumer.disconnect();
  seen.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  for (const s of seen) console.log(JSON.stringify(s));
}

(mode === 'produce' ? produce() : consume()).then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
