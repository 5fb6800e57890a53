#!/usr/bin/python3
"""Operating a node (docs/operations.md): /health, /ready and /metrics on the HTTP listener, and
logs as JSON, against a `mink serve` of the test's own.

  - GET /health answers 200 "ok"; GET /ready 200 "ready" once the node serves; POST /metrics 405.
  - A known load: 300 records produced to partition 0 and 200 to partition 1 of topic `metered`
    with confluent_kafka, a consumer group committing offset 120 on partition 0, two `mink read`s.
  - GET /metrics parsed by Prometheus' own parser (Debian's python3-prometheus-client): the
    records appended to each partition and its end offset are exactly what was produced; the
    group's lag is 180; Produce requests were counted and timed (the histogram's count equals the
    counter); Flight DoGet calls counted with status 0; WAL uploads and commits timed; object
    store puts counted with no errors; the metadata lag is 0; the process reports CPU, memory and
    files; every family follows the conventions (mink_ or process_ prefix, counters _total).
  - --log-format json: every line of the node's log is one JSON object with exactly time, level,
    component and message; at --log-level debug each Kafka request is logged.
  - --metrics false: the node still serves /metrics, but recorded counters stay at 0.

Usage: operations_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck, prom) = minktest.require_modules("confluent_kafka", "prometheus_client")
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

TOPIC = "metered"
PRODUCED = {0: 300, 1: 200}
COMMITTED = 120


def get(node, path, method="GET"):
    """(status, content type, body text) of an HTTP request to the node."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(f"http://{node.http_listen}{path}", method=method,
                                     data=b"" if method == "POST" else None)
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode(errors="replace")


def scrape(node):
    """The node's metrics as {(sample name, frozenset of labels): value}, and the families."""
    status, content_type, text = get(node, "/metrics")
    if status != 200:
        raise RuntimeError(f"/metrics answered {status}: {text[:200]}")
    families = list(text_string_to_metric_families(text))
    samples = {}
    for f in families:
        for s in f.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, families, content_type


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def produce(node):
    errors = []
    p = Producer({"bootstrap.servers": node.broker, "linger.ms": 5, "enable.idempotence": True})
    for partition, count in PRODUCED.items():
        for i in range(count):
            p.produce(TOPIC, value=f"record {partition}-{i}".encode(), partition=partition,
                      on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = p.flush(30)
    return left == 0 and not errors, f"{left} undelivered, errors {errors}"


def commit_group(node):
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "meter-readers", "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(TOPIC, 0, COMMITTED)], asynchronous=False)
    finally:
        c.close()


def check_log(checks, node):
    lines = [line for line in open(node.log_path, errors="replace").read().splitlines() if line.strip()]
    parsed, bad = [], []
    for line in lines:
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict) or set(obj) != {"time", "level", "component", "message"}:
                bad.append(line)
            else:
                parsed.append(obj)
        except ValueError:
            bad.append(line)
    checks.ok("--log-format json: every log line is an object of time, level, component, message",
              lines and not bad, f"{len(bad)} of {len(lines)} lines are not: {bad[:3]}")
    checks.ok("the JSON log says where the HTTP API listens",
              any(o["component"] == "node" and "HTTP API listening on" in o["message"] for o in parsed))
    checks.ok("at --log-level debug each Kafka request is logged",
              any(o["component"] == "kafka" and o["level"] == "debug" and o["message"].startswith("Produce v")
                  for o in parsed))
    checks.ok("times are ISO 8601 UTC with milliseconds",
              all(len(o["time"]) == 24 and o["time"].endswith("Z") and o["time"][10] == "T" for o in parsed))


def run(checks, node):
    node.start(default_partitions=2,
               extra=["--http-listen", node.http_listen, "--log-format", "json", "--log-level", "debug",
                      "--kv-memory", "64MiB", "--kv-snapshot-records", "2"])
    status, _, body = get(node, "/health")
    checks.expect("GET /health answers 200 ok", (200, "ok"), (status, body.strip()))
    ready = minktest.wait_until(15, lambda: get(node, "/ready")[0] == 200)
    checks.ok("GET /ready answers 200 once the node serves", ready, repr(get(node, "/ready")))
    checks.expect("POST /metrics answers 405", 405, get(node, "/metrics", method="POST")[0])

    delivered, detail = produce(node)
    checks.ok("the known load was produced", delivered, detail)
    # A primary-key table whose write crosses the snapshot threshold: a KV snapshot uploads SSTs.
    node.mink("db", "create", "ops")
    node.mink("table", "create", "ops.kv", "-C", "id BIGINT NOT NULL", "-C", "v STRING", "--primary-key", "id")
    node.mink("write", "ops.kv", input="".join(f'{{"id": {i}, "v": "row {i}"}}\n' for i in range(100)))
    commit_group(node)
    for _ in range(2):
        node.mink("read", f"kafka.{TOPIC}")

    def caught_up():
        samples, _, _ = scrape(node)
        return all(value(samples, "mink_table_end_offset", table=f"kafka.{TOPIC}", bucket=f"b{p}") == n
                   for p, n in PRODUCED.items())
    minktest.wait_until(10, caught_up)
    samples, families, content_type = scrape(node)
    checks.ok("/metrics is the Prometheus text format", content_type.startswith("text/plain; version=0.0.4"),
              content_type)
    for p, n in PRODUCED.items():
        labels = dict(table=f"kafka.{TOPIC}", bucket=f"b{p}")
        checks.expect(f"partition {p}: records appended as produced",
                      float(n), value(samples, "mink_table_appended_records_total", **labels))
        checks.expect(f"partition {p}: the end offset as produced", float(n),
                      value(samples, "mink_table_end_offset", **labels))
        checks.ok(f"partition {p}: appended bytes counted",
                  (value(samples, "mink_table_appended_bytes_total", **labels) or 0) > n * 10)
    checks.expect("the consumer group's lag on partition 0 is the end minus its committed offset",
                  float(PRODUCED[0] - COMMITTED),
                  value(samples, "mink_kafka_consumer_group_lag", group="meter-readers", topic=TOPIC, partition="0"))
    produce_requests = value(samples, "mink_kafka_requests_total", api="Produce") or 0
    checks.ok("Produce requests were counted", produce_requests >= 1, repr(produce_requests))
    checks.expect("each counted Produce request was timed", produce_requests,
                  value(samples, "mink_kafka_request_duration_seconds_count", api="Produce"))
    checks.ok("Flight DoGet calls were counted with status 0 (two mink reads)",
              (value(samples, "mink_flight_requests_total", method="DoGet", code="0") or 0) >= 2)
    checks.ok("WAL uploads were timed", (value(samples, "mink_wal_upload_duration_seconds_count") or 0) >= 1)
    checks.ok("WAL commits were timed", (value(samples, "mink_wal_commit_duration_seconds_count") or 0) >= 1)
    checks.ok("object store puts of the WAL were counted",
              (value(samples, "mink_object_store_requests_total", store="wal", operation="put") or 0) >= 1)
    checks.expect("no object store call failed", 0.0,
                  sum(v for (name, _), v in samples.items() if name == "mink_object_store_errors_total"))
    checks.expect("the metadata lag is 0", 0.0, value(samples, "mink_metadata_lag_commands"))
    checks.expect("the working copies' memory budget is --kv-memory", float(64 << 20),
                  value(samples, "mink_kv_memory_limit_bytes"))
    kv_memory = value(samples, "mink_kv_memory_bytes")
    checks.ok("the working copies report the memory they use, within the budget",
              kv_memory is not None and 0 <= kv_memory <= 64 << 20, repr(kv_memory))
    checks.ok("the KV snapshot's SST bytes were counted as uploaded",
              (value(samples, "mink_kv_snapshot_file_bytes_total", direction="uploaded") or 0) > 0,
              repr(value(samples, "mink_kv_snapshot_file_bytes_total", direction="uploaded")))
    checks.ok("the KV snapshot's size is reported",
              (value(samples, "mink_kv_snapshot_bytes", table="ops.kv", bucket="b0") or 0) > 0)
    checks.ok("the process reports its memory", (value(samples, "process_resident_memory_bytes") or 0) > 1e6)
    checks.ok("the process reports its CPU time", (value(samples, "process_cpu_seconds_total") or 0) > 0)
    checks.ok("the process reports its open files", (value(samples, "process_open_fds") or 0) > 3)
    names = [f.name for f in families]
    checks.ok("every family has the mink_ or process_ prefix",
              all(n.startswith("mink_") or n.startswith("process_") for n in names),
              repr([n for n in names if not (n.startswith("mink_") or n.startswith("process_"))]))
    checks.ok("every counter's samples end in _total",
              all(s.name.endswith("_total") for f in families if f.type == "counter" for s in f.samples))
    durations = [f for f in families if f.name.endswith("_duration_seconds")]
    checks.ok("durations are histograms in seconds",
              len(durations) >= 4 and all(f.type == "histogram" for f in durations),
              repr([(f.name, f.type) for f in durations]))

    checks.expect("the node stops cleanly", 0, node.stop())
    check_log(checks, node)

    # Metrics off: served, but nothing recorded.
    node.flags = ["--kafka-default-partitions", "2", "--http-listen", node.http_listen, "--metrics", "false"]
    node.restart()
    delivered, detail = produce(node)
    checks.ok("with --metrics false the node still takes records", delivered, detail)
    samples, _, _ = scrape(node)
    checks.expect("with --metrics false no Produce request is recorded", 0.0,
                  value(samples, "mink_kafka_requests_total", api="Produce") or 0.0)
    checks.ok("with --metrics false the gathered state is still there",
              value(samples, "mink_table_end_offset", table=f"kafka.{TOPIC}", bucket="b0") == 2.0 * PRODUCED[0])


def main():
    node = minktest.node_from_argv("operations", 150, http=True)

    def body(checks):
        run(checks, node)
        checks.expect("the node stops cleanly with metrics off", 0, node.stop())
    minktest.run_on_node(node, body, "operations")


if __name__ == "__main__":
    main()
