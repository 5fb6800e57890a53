// Drives kafkajs (tests/node/node_modules) against the capture broker of client_capture_test.cc:
// an admin client connects (ApiVersions), then fetches the metadata of one topic.
// Usage: node capture_kafkajs.js <node_modules dir> <port>
const path = require('path');
const { Kafka, logLevel } = require(path.join(process.argv[2], 'kafkajs'));

const kafka = new Kafka({
  clientId: 'mink-capture-js',
  brokers: ['127.0.0.1:' + process.argv[3]],
  logLevel: logLevel.NOTHING,
  connectionTimeout: 3000,
  requestTimeout: 5000,
  retry: { retries: 0 },
});

(async () => {
  const admin = kafka.admin();
  await admin.connect();
  const metadata = await admin.fetchTopicMetadata({ topics: ['captured'] });
  console.log(JSON.stringify(metadata));
  await admin.disconnect();
})().catch((e) => {
  console.error('kafkajs failed: ' + e.message);
  process.exit(1);
});
