#!/usr/bin/python3
"""Cross-client test: records written by kcat, python3-confluent-kafka, python3-kafka, kafkajs and
`mink write` (the Flight API) into one two-partition topic, with keys (binary, NULL), values
(every byte value, empty, NULL), headers (binary and empty values) and explicit timestamps, are
read back identically by every client: kcat, confluent-kafka, kafka-python, kafkajs (a consumer
group), `mink read kafka.<topic> --meta` (hex) and an independent Flight client (DoGet with
grpc-js + apache-arrow). Each reader's view — partition, offset, key, value, headers, timestamp
— must equal the others' and what the writers sent.

Usage: kafka_cross_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import datetime
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck, kp) = minktest.require_modules("confluent_kafka", "kafka")
minktest.require_tool("kcat", "kcat", "-V")
NODE_MODULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "node_modules")
minktest.require_tool("node with kafkajs, @grpc/grpc-js, @grpc/proto-loader and apache-arrow (tests/node)",
                      "node", "-e", "for (const m of ['kafkajs', '@grpc/grpc-js', '@grpc/proto-loader', "
                      "'apache-arrow']) require.resolve(m, {paths: [process.argv[1]]})", NODE_MODULES)
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOPIC = "cross"


def h(b):
    return None if b is None else b.hex()


def rec(partition, key, value, headers, timestamp, writer):
    return {"partition": partition, "key": h(key), "value": h(value),
            "headers": [[k, h(v)] for k, v in headers], "timestamp": timestamp, "writer": writer}


def canonical(r):
    return {k: r[k] for k in ("partition", "offset", "key", "value", "headers", "timestamp")}


def content(r):
    return json.dumps([r["partition"], r["key"], r["value"], r["headers"]])


def kcat_visible(records):
    """What kcat can show of the records: it prints header values as C strings (%h), so a value
    ends at its first NUL byte."""
    out = []
    for r in records:
        r = dict(r)
        r["headers"] = [[k, None if v is None else bytes.fromhex(v).split(b"\0")[0].hex()] for k, v in r["headers"]]
        out.append(r)
    return out


def parse_kcat(out):
    """Parses kcat -f '%p|%o|%T|%K|%S|%k|%s|%h\\n' output; keys and values by their lengths, so
    they may hold any byte."""
    records = []
    pos = 0
    while pos < len(out):
        fields = []
        for _ in range(5):
            bar = out.index(b"|", pos)
            fields.append(int(out[pos:bar]))
            pos = bar + 1
        p, o, ts, klen, vlen = fields
        key = out[pos:pos + max(klen, 0)]
        pos += max(klen, 0) + 1
        value = out[pos:pos + max(vlen, 0)]
        pos += max(vlen, 0) + 1
        end = out.index(b"\n", pos)
        hs = out[pos:end]
        pos = end + 1
        headers = []
        if hs:
            for item in hs.split(b","):
                k, _, v = item.partition(b"=")
                headers.append([k.decode(), v.hex()])
        records.append({"partition": p, "offset": o, "key": None if klen < 0 else key.hex(),
                        "value": None if vlen < 0 else value.hex(), "headers": headers, "timestamp": ts})
    return records


def read_confluent(node, total):
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "cross-confluent", "enable.auto.commit": False,
                  "fetch.wait.max.ms": 100})
    c.assign([TopicPartition(TOPIC, p, ck.OFFSET_BEGINNING) for p in (0, 1)])
    out = []
    deadline = time.monotonic() + 30
    while len(out) < total and time.monotonic() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        out.append({"partition": m.partition(), "offset": m.offset(), "key": h(m.key()), "value": h(m.value()),
                    "headers": [[k, h(v)] for k, v in (m.headers() or [])], "timestamp": m.timestamp()[1]})
    c.close()
    return out


def read_kafka_python(node, total):
    c = kp.KafkaConsumer(bootstrap_servers=node.broker, group_id=None, enable_auto_commit=False,
                         fetch_max_wait_ms=100, request_timeout_ms=15000)
    tps = [kp.TopicPartition(TOPIC, p) for p in (0, 1)]
    c.assign(tps)
    c.seek_to_beginning(*tps)
    out = []
    deadline = time.monotonic() + 30
    while len(out) < total and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=200).values():
            for r in records:
                out.append({"partition": r.partition, "offset": r.offset, "key": h(r.key), "value": h(r.value),
                            "headers": [[k, h(v)] for k, v in r.headers], "timestamp": r.timestamp})
    c.close()
    return out


def read_kcat(node):
    r = subprocess.run(["kcat", "-b", node.broker, "-C", "-t", TOPIC, "-o", "beginning", "-e", "-q",
                        "-f", "%p|%o|%T|%K|%S|%k|%s|%h\n"], capture_output=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"kcat -C: {r.stderr.decode(errors='replace')}")
    return parse_kcat(r.stdout)


def read_mink(node):
    out = []
    for line in node.mink("read", f"kafka.{TOPIC}", "--meta").stdout.splitlines():
        row = json.loads(line)
        ts = datetime.datetime.fromisoformat(row["timestamp"].replace("Z", "+00:00"))
        out.append({"partition": int(row["__bucket"].lstrip("b")), "offset": row["__offset"], "key": row["key"],
                    "value": row["value"], "headers": [[x["key"], x["value"]] for x in row["headers"] or []],
                    "timestamp": round(ts.timestamp() * 1000)})
    return out


def read_flight(node):
    r = subprocess.run(["node", os.path.join(HERE, "kafka_flight_read.js"), str(node.flight_port),
                        f"kafka.{TOPIC}"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"kafka_flight_read.js: {r.stderr}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def read_kafkajs(node, total):
    r = subprocess.run(["node", os.path.join(HERE, "kafka_kafkajs_cross.js"), "consume", node.broker, TOPIC,
                        str(total), "cross-kafkajs"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"kafka_kafkajs_cross.js consume: {r.stderr[-2000:]}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def main(node, checks):
    node.start(default_partitions=1)
    admin = AdminClient({"bootstrap.servers": node.broker})
    admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1)])[TOPIC].result(timeout=20)
    base = int(time.time() * 1000) - 86_400_000
    intent = []

    # ---- kcat: partition 0, keys with -K:, headers with -H (timestamps: the producer's clock)
    t0 = int(time.time() * 1000)
    kcat_lines = ["kcat-k1:kcat value one", "kcat-k2:kcat|value:2 ünïcode"]
    r = subprocess.run(["kcat", "-b", node.broker, "-P", "-t", TOPIC, "-p", "0", "-K:", "-H", "src=kcat",
                        "-H", "trace=t-1"], input="\n".join(kcat_lines) + "\n", text=True,
                       capture_output=True, timeout=30)
    t1 = int(time.time() * 1000)
    checks.ok("kcat -P", r.returncode == 0, r.stderr)
    for line in kcat_lines:
        k, _, v = line.partition(":")
        intent.append(rec(0, k.encode(), v.encode(), [("src", b"kcat"), ("trace", b"t-1")], None, "kcat"))

    # ---- confluent-kafka: partition 1, every byte value, a NULL key, a NULL value
    confluent = [
        (1, b"\x00\x01bin", bytes(range(256)), [("bin", b"\xff\x00\x7f"), ("empty", b"")], base + 1),
        (1, None, b"no key", [("h", b"v")], base + 2),
        (1, b"tombstone", None, [], base + 3),
    ]
    p = Producer({"bootstrap.servers": node.broker, "enable.idempotence": True, "acks": "all"})
    errors = []
    for part, k, v, hs, ts in confluent:
        p.produce(TOPIC, key=k, value=v, headers=hs, partition=part, timestamp=ts,
                  on_delivery=lambda e, m: errors.append(e) if e else None)
        p.flush(15)
        intent.append(rec(part, k, v, hs, ts, "confluent"))
    checks.expect("confluent-kafka produce: no errors", [], errors)

    # ---- kafka-python: both partitions, an empty value, UTF-8
    kprod = kp.KafkaProducer(bootstrap_servers=node.broker, acks="all", request_timeout_ms=15000)
    pyrecs = [
        (0, b"kp-1", b"", [("kp", b"1"), ("empty", b"")], base + 10),
        (1, b"kp-2", "κόσμε".encode(), [], base + 11),
    ]
    for part, k, v, hs, ts in pyrecs:
        kprod.send(TOPIC, key=k, value=v, headers=hs, partition=part, timestamp_ms=ts).get(timeout=20)
        intent.append(rec(part, k, v, hs, ts, "kafka-python"))
    kprod.close(timeout=10)

    # ---- kafkajs (idempotent): both partitions, binary value, NULL key
    jsrecs = [rec(0, b"js-1", bytes(range(17)), [("js", b"yes")], base + 20, "kafkajs"),
              rec(1, None, b"js two", [], base + 21, "kafkajs")]
    r = subprocess.run(["node", os.path.join(HERE, "kafka_kafkajs_cross.js"), "produce", node.broker, TOPIC],
                       input=json.dumps(jsrecs), capture_output=True, text=True, timeout=60)
    checks.ok("kafkajs produce", r.returncode == 0, r.stderr[-2000:])
    intent += jsrecs

    # ---- mink write (the Flight API) into the same table
    row = {"key": b"flight".hex(), "value": b"via mink write".hex(),
           "headers": [{"key": "via", "value": b"flight".hex()}], "timestamp": base + 30}
    w = node.mink("write", f"kafka.{TOPIC}", input=json.dumps(row) + "\n", check=False)
    checks.ok("mink write kafka.cross", w.returncode == 0, w.stderr)
    flight_intent = {"key": row["key"], "value": row["value"], "headers": [["via", row["headers"][0]["value"]]],
                     "timestamp": base + 30}
    total = len(intent) + 1

    # ---- Read with every client
    views = {}
    views["confluent-kafka"] = read_confluent(node, total)
    ref = sorted(views["confluent-kafka"], key=lambda x: (x["partition"], x["offset"]))
    checks.expect("confluent-kafka reads every record", total, len(ref))

    # The reference matches what was written: per partition, in write order (kcat's timestamps
    # are its clock at send time; the `mink write` row lands in whichever bucket it is routed to).
    kafka_written = [r for r in ref if r["key"] != row["key"]]
    flight_written = [r for r in ref if r["key"] == row["key"]]
    by_partition = {}
    for r in intent:
        by_partition.setdefault(r["partition"], []).append(r)
    expected = []
    for part in sorted(by_partition):
        for offset, r in enumerate(by_partition[part]):
            e = canonical(dict(r, offset=offset))
            if r["writer"] == "kcat":
                got = [x for x in kafka_written if x["partition"] == part and x["offset"] == offset]
                ts = got[0]["timestamp"] if got else None
                checks.ok(f"kcat's record {part}/{offset}: timestamp from the producer's clock",
                          ts is not None and t0 <= ts <= t1 + 1000, f"{ts} not in [{t0}, {t1}]")
                e["timestamp"] = ts
            expected.append(e)
    checks.expect("what the Kafka clients wrote, read back by confluent-kafka", expected,
                  [x for x in kafka_written])
    checks.expect("the row of `mink write`, read back by confluent-kafka", [flight_intent],
                  [{k: x[k] for k in ("key", "value", "headers", "timestamp")} for x in flight_written])

    for name, read in (("kafka-python", lambda: read_kafka_python(node, total)), ("kcat", lambda: read_kcat(node)),
                       ("mink read", lambda: read_mink(node)), ("Flight DoGet", lambda: read_flight(node)),
                       ("kafkajs", lambda: read_kafkajs(node, total))):
        try:
            views[name] = sorted(read(), key=lambda x: (x["partition"], x["offset"]))
        except Exception as e:  # noqa: BLE001 - a reader that fails is a failed check
            checks.fail(f"{name} reads the topic", f"{type(e).__name__}: {e}")
            continue
        want = kcat_visible(ref) if name == "kcat" else ref
        if not checks.expect(f"{name} reads exactly what confluent-kafka reads", want, views[name]):
            diff = [(a, b) for a, b in zip(want, views[name]) if a != b]
            print(f"first difference: {diff[:1]}", file=sys.stderr)


if __name__ == "__main__":
    minktest.run_test("kafka-cross", main, budget_seconds=150)
