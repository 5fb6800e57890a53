#!/usr/bin/python3
"""Continuous SQL is exactly once across crashes (docs/streaming-sql.md, Delivery): a node runs a
Kafka JSON source `events` (three partitions, a watermark 2 s behind the event time), a windowed
stream `per_window` (10-s tumbling windows per key, EMIT ON WINDOW CLOSE) with a sink into the
Kafka topic `per-window`, a filtering stream `copied` (the events with an even n) and a
materialized view `totals` (count and sum per key). An idempotent producer (python3-confluent-kafka)
sends ~3000 events of 6 keys in 30 rounds while the node is killed (SIGKILL) ten times and
restarted on the same directory and ports: right after a round's flush, after a random pause of
0-300 ms (inside a pipeline's epoch), or in the background while the next round is in flight.
Finally one event per key an hour later closes every window, and once the outputs settle:

  - the input topic `events` holds every acknowledged event exactly once (an event is sent again
    only after a failed delivery report, and may then be there twice: counted as the input has it);
  - the topic `per-window` has every closed (k, window) exactly once, none missing, none of the
    closers' still open windows, with c and total as computed here from the input;
  - the topic `per-window-alo`, written by a sink that reaches the node's Kafka listener as a
    Kafka outside Mink (librdkafka to `localhost`, not the address the node advertises) and so
    delivers at least once, has every closed window at least once with the right c and total;
  - the table continuous.per_window has the same windows, exactly once;
  - the table continuous.copied has exactly the events with an even n, each once (a multiset of
    (k, n, ts));
  - the view's table continuous.totals (the snapshot read) and SELECT * FROM totals over HTTP
    have c and total per key of every event, closers included.

The expected answer must not depend on where epochs fall, so no event may ever be late: an
epoch's end is a snapshot of each partition's end, which can cut a round between partitions,
so every round's events lie within 1.8 s of event time (less than the watermark's 2 s; rounds
start 10 s apart with a random offset, so windows hold one or two rounds and rounds straddle
window bounds), and an event whose delivery failed is sent again before the next round starts.
The events start once the pipelines run (the streams, the view and the sinks).

The random seed is printed (MINK_TEST_SEED repeats a run's data and kill schedule).

Usage: continuous_kill_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import collections
import datetime
import json
import os
import random
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402
from streaming_checks import T0, http_sql, listed, micros, pipeline_log, read_rows, window_name  # noqa: E402

(ck,) = minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

KEYS = ["a", "b", "c", "d", "e", "f"]
ROUNDS = 30
PER_ROUND = 100
KILLS = 10
PARTITIONS = 3
BAND_MS = 1800          # a round's events lie within this much event time (< the watermark's 2 s)
WINDOW_MS = 10_000      # the rounds start this far apart (plus an offset below 9.5 s); the window size
CLOSE_AFTER_MS = 3_600_000
SETTLE_SECONDS = 30
START = time.monotonic()

Event = collections.namedtuple("Event", "id k n t partition")  # t: ms after T0


def log(msg):
    print(f"[{time.monotonic() - START:6.1f}s] {msg}", flush=True)


def iso(t_ms):
    """An event's ts as the producer writes it: milliseconds and a Z."""
    return (T0 + datetime.timedelta(milliseconds=t_ms)).strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (t_ms % 1000)


def generate(rng):
    """The rounds of events, then the closers (one per key, an hour after the last event)."""
    rounds, eid = [], 0
    for r in range(ROUNDS):
        start = r * WINDOW_MS + rng.randrange(9500)
        events = []
        for _ in range(PER_ROUND):
            # n is unique (n // 100 is the event's id) and its parity random.
            events.append(Event(eid, rng.choice(KEYS), eid * 100 + rng.randrange(100),
                                start + rng.randrange(BAND_MS), rng.randrange(PARTITIONS)))
            eid += 1
        rounds.append(events)
    last = max(e.t for events in rounds for e in events)
    closers = []
    for i, k in enumerate(KEYS):
        closers.append(Event(eid, k, eid * 100 + rng.randrange(100), last + CLOSE_AFTER_MS + 100 * i, i % PARTITIONS))
        eid += 1
    return rounds, closers


class Sender:
    """An idempotent producer; a round is sent until every event of it has a successful delivery
    report (an event whose report is a failure is sent again, after a pause)."""

    CONFIG = {"enable.idempotence": True, "acks": "all", "message.timeout.ms": 30000,
              "retry.backoff.ms": 100, "linger.ms": 5, "reconnect.backoff.ms": 50,
              "reconnect.backoff.max.ms": 500, "socket.timeout.ms": 10000,
              "log.connection.close": False}

    def __init__(self, broker):
        self.broker = broker
        self.producer = Producer({"bootstrap.servers": broker, **self.CONFIG})
        self.producers = 1
        self.acked = {}                        # id -> Event
        self.failures = collections.Counter()  # id -> failed delivery reports
        self.errors = collections.Counter()    # error -> count

    def _renew_if_fatal(self, err):
        if err is not None and err.fatal():
            log(f"producer: fatal error {err}; a new producer")
            self.producer = Producer({"bootstrap.servers": self.broker, **self.CONFIG})
            self.producers += 1

    def send(self, events, seconds=60):
        pending = {e.id: e for e in events}
        deadline = time.monotonic() + seconds
        while pending:
            reports = {}
            for e in pending.values():
                value = json.dumps({"k": e.k, "n": e.n, "ts": iso(e.t)}).encode()
                while True:
                    try:
                        self.producer.produce("events", value=value, key=e.k.encode(), partition=e.partition,
                                              on_delivery=lambda err, msg, i=e.id: reports.__setitem__(i, err))
                        break
                    except BufferError:
                        self.producer.poll(0.05)
                    except KafkaException as x:
                        self._renew_if_fatal(x.args[0])
                        if not x.args[0].fatal():
                            raise
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"could not hand event {e.id} to the producer within {seconds} s")
            while len(reports) < len(pending) and time.monotonic() < deadline:
                self.producer.flush(min(1.0, max(0.0, deadline - time.monotonic())))
            if len(reports) < len(pending):
                raise RuntimeError(f"{len(pending) - len(reports)} events without a delivery report after {seconds} s")
            fatal = None
            for i, err in reports.items():
                if err is None:
                    self.acked[i] = pending.pop(i)
                else:
                    self.failures[i] += 1
                    self.errors[str(err)] += 1
                    fatal = fatal or (err if err.fatal() else None)
            self._renew_if_fatal(fatal)
            if pending:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{len(pending)} events not acknowledged within {seconds} s: "
                                       f"{dict(self.errors)}")
                log(f"producer: {len(pending)} deliveries failed ({dict(self.errors)}); sending them again")
                time.sleep(0.2)


class Killer:
    """SIGKILL and restart of the node, now or in a thread of its own (while the producer sends)."""

    def __init__(self, node, sender):
        self.node, self.sender = node, sender
        self.thread, self.error = None, None
        self.count = 0
        self.downtimes = []

    def kill_and_restart(self, delay, what):
        time.sleep(delay)
        in_queue = len(self.sender.producer)
        self.node.kill()
        killed = time.monotonic()
        self.node.restart()
        self.count += 1
        self.downtimes.append(time.monotonic() - killed)
        log(f"kill {self.count}: {what}, {in_queue} records in the producer's queue; "
            f"up again after {self.downtimes[-1]:.2f} s")

    def background(self, delay, what):
        def run():
            try:
                self.kill_and_restart(delay, what)
            except Exception as e:  # noqa: BLE001 - reported by join()
                self.error = e
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self):
        if self.thread:
            self.thread.join(60)
            if self.thread.is_alive():
                raise RuntimeError("the background kill and restart did not finish within 60 s")
            self.thread = None
        if self.error:
            raise RuntimeError(f"the background kill and restart failed: {self.error}")


def consume(broker, topic, partitions, idle=3.0, seconds=30):
    """Every record of the topic from the beginning (a fresh group, nothing committed): until each
    partition's high watermark is reached and nothing came for `idle` s. Values, in order read."""
    c = Consumer({"bootstrap.servers": broker, "group.id": f"check-{os.getpid()}-{time.monotonic_ns()}",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100,
                  "log.connection.close": False})
    try:
        ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=15)[1] for p in range(partitions)}
        c.assign([TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in range(partitions)])
        seen = {p: 0 for p in range(partitions)}
        values = []
        deadline = time.monotonic() + seconds
        last = time.monotonic()
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is not None and not m.error():
                values.append(m.value())
                seen[m.partition()] = m.offset() + 1
                last = time.monotonic()
            elif all(seen[p] >= ends[p] for p in ends) and time.monotonic() - last >= idle:
                break
        return values, ends, seen
    finally:
        c.close()


def check_windows(checks, what, rows, expected, at_least_once=False):
    """rows: the (k, w, c, total) of closed windows; expected: {(k, w_us): (c, total)}. Each window
    exactly once, or with `at_least_once` none missing (a window may come again)."""
    got = collections.defaultdict(list)
    for r in rows:
        got[(r["k"], micros(r["w"]))].append((int(r["c"]), int(r["total"])))
    dups = {key: v for key, v in got.items() if len(v) > 1 and not at_least_once}
    missing = set(expected) - set(got)
    extra = set(got) - set(expected)
    checks.ok(f"{what}: {len(expected)} closed windows, each {'at least' if at_least_once else 'exactly'} once "
              f"({len(rows)} rows)",
              not dups and not missing and not extra,
              f"duplicated: [{listed(f'{window_name(*key)} x{len(v)} {v}' for key, v in dups.items())}]; "
              f"missing: [{listed(f'{window_name(*key)} {expected[key]}' for key in missing)}]; "
              f"not expected: [{listed(f'{window_name(*key)} {got[key]}' for key in extra)}]")
    wrong = [f"{window_name(*key)}: expected (c, total) {expected[key]}, got {v}"
             for key, v in got.items() if key in expected and any(x != expected[key] for x in v)]
    checks.ok(f"{what}: c and total of every window as the input has them", not wrong, listed(wrong))


def main(node, checks):
    seed = int(os.environ.get("MINK_TEST_SEED", str(int(time.time()))))
    log(f"seed {seed} (MINK_TEST_SEED={seed} repeats this run)")
    rounds, closers = generate(random.Random(seed))
    schedule = random.Random(seed + 1)
    kill_rounds = sorted(schedule.sample(range(1, ROUNDS - 1), KILLS))
    modes = ["flush"] * 3 + ["pause"] * 4 + ["in flight"] * 3
    schedule.shuffle(modes)
    kills = dict(zip(kill_rounds, modes))

    http_port = minktest.free_port()
    while http_port in (node.flight_port, node.kafka_port):
        http_port = minktest.free_port()
    node.start(default_partitions=1, extra=["--http-listen", f"127.0.0.1:{http_port}"])
    admin = AdminClient({"bootstrap.servers": node.broker})
    for f in admin.create_topics([NewTopic("events", num_partitions=PARTITIONS, replication_factor=1),
                                  NewTopic("per-window", num_partitions=1, replication_factor=1),
                                  NewTopic("per-window-alo", num_partitions=1, replication_factor=1)]).values():
        f.result(timeout=20)
    del admin  # no reconnects (and their log lines) while the node is down
    b = node.broker
    status, answer = http_sql(f"127.0.0.1:{http_port}", f"""
        CREATE SOURCE events (k VARCHAR NOT NULL, n BIGINT NOT NULL, ts TIMESTAMP NOT NULL,
                              WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
          FROM KAFKA ('bootstrap.servers' = '{b}', 'topic' = 'events', 'startup.mode' = 'earliest') FORMAT JSON;
        CREATE STREAM per_window AS
          SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, COUNT(*) AS c, SUM(n) AS total
          FROM events GROUP BY k, tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE;
        CREATE SINK per_window_out FROM per_window INTO KAFKA ('bootstrap.servers' = '{b}', 'topic' = 'per-window')
          FORMAT JSON;
        CREATE SINK per_window_alo FROM per_window INTO KAFKA ('bootstrap.servers' = 'localhost:{node.kafka_port}',
          'topic' = 'per-window-alo', 'delivery.guarantee' = 'at-least-once') FORMAT JSON;
        CREATE STREAM copied AS SELECT k, n, ts FROM events WHERE n % 2 = 0;
        CREATE MATERIALIZED VIEW totals AS SELECT k, COUNT(*) AS c, SUM(n) AS total FROM events GROUP BY k;""")
    if not checks.expect("the source, two streams, two sinks and the view are created (200, six answers)",
                         (200, ["CREATE SOURCE", "CREATE STREAM", "CREATE SINK", "CREATE SINK", "CREATE STREAM",
                                "CREATE MATERIALIZED VIEW"]),
                         (status, [a.get("result_type") for a in answer] if status == 200 else answer)):
        return
    # The events start once every pipeline runs (a sink is a pipeline reading its stream's
    # table from the start, so it would not miss windows closed before it started either).
    pipelines = ("per_window", "per_window_out", "per_window_alo", "copied", "totals")
    started = minktest.wait_until(
        15, lambda: all(f"pipeline {p} runs here" in "\n".join(pipeline_log(node)) for p in pipelines), interval=0.2)
    if not checks.ok("the five pipelines run on the node", started, "\n".join(pipeline_log(node)[-20:])):
        return
    time.sleep(1)

    # ---- Rounds of events under ten SIGKILLs.
    sender = Sender(node.broker)
    killer = Killer(node, sender)
    log(f"{ROUNDS} rounds of {PER_ROUND} events; kills after rounds {kills}")
    for r, events in enumerate(rounds):
        sender.send(events)
        mode = kills.get(r)
        if mode:
            killer.join()
            if mode == "flush":
                killer.kill_and_restart(0, f"after round {r}'s flush")
            elif mode == "pause":
                pause = schedule.uniform(0, 0.3)
                killer.kill_and_restart(pause, f"{pause * 1000:.0f} ms after round {r}'s flush")
            else:
                delay = schedule.uniform(0, 0.03)
                killer.background(delay, f"{delay * 1000:.0f} ms into round {r + 1}'s sending")
                continue
        time.sleep(schedule.uniform(0.03, 0.15))
    killer.join()
    sender.send(closers)
    checks.expect("ten kills and restarts", KILLS, killer.count)
    log(f"acknowledged {len(sender.acked)} events ({sum(1 for e in sender.acked.values() if e.n % 2 == 0)} with "
        f"an even n); failed deliveries {sum(sender.failures.values())} {dict(sender.errors)}; "
        f"producers {sender.producers}")

    # ---- The input as the topic has it (the expected answer is computed from it).
    values, ends, _ = consume(node.broker, "events", PARTITIONS)
    generated = {e.id: e for events in rounds + [closers] for e in events}
    in_topic = collections.Counter()
    strange = []
    for v in values:
        try:
            x = json.loads(v)
            e = generated.get(x["n"] // 100)
            if e is None or (x["k"], x["n"], x["ts"]) != (e.k, e.n, iso(e.t)):
                raise ValueError("not an event of this test")
            in_topic[e.id] += 1
        except (ValueError, KeyError, TypeError) as err:
            strange.append(f"{v!r}: {err}")
    checks.expect("events: every record is an event of this test", [], strange[:10])
    checks.expect("events: read up to the high watermarks", sum(ends.values()), len(values))
    lost = sorted(set(sender.acked) - set(in_topic))
    checks.expect("events: every acknowledged event is in the topic", [], lost[:20])
    twice = {i: n for i, n in in_topic.items() if n > 1 + sender.failures[i]}
    checks.expect("events: no event more often than sent after a failed delivery", {}, dict(list(twice.items())[:20]))
    resent_twice = {i: n for i, n in in_topic.items() if n > 1 and i not in twice}
    if resent_twice:
        log(f"events: {len(resent_twice)} events are in the topic twice after a failed delivery report "
            f"(counted twice below): {listed(resent_twice)}")
    inputs = [generated[i] for i, n in sorted(in_topic.items()) for _ in range(n)]
    closer_ids = {e.id for e in closers}

    expected_windows = {}
    for e in inputs:
        if e.id in closer_ids:
            continue
        key = (e.k, (e.t // WINDOW_MS) * WINDOW_MS * 1000)
        c, total = expected_windows.get(key, (0, 0))
        expected_windows[key] = (c + 1, total + e.n)
    expected_copied = collections.Counter((e.k, e.n, e.t * 1000) for e in inputs if e.n % 2 == 0)
    expected_totals = {}
    for e in inputs:
        c, total = expected_totals.get(e.k, (0, 0))
        expected_totals[e.k] = (c + 1, total + e.n)

    # ---- Wait until the outputs have caught up (bounded), then read them once more a little later.
    def totals_snapshot():
        rows = read_rows(node, "continuous.totals", "--mode", "snapshot")
        return {r["k"]: (int(r["c"]), int(r["total"])) for r in rows}

    def settled():
        return (len(read_rows(node, "continuous.per_window")) >= len(expected_windows)
                and len(read_rows(node, "continuous.copied")) >= sum(expected_copied.values())
                and totals_snapshot() == expected_totals)

    waited = time.monotonic()
    if minktest.wait_until(SETTLE_SECONDS, settled, interval=0.5):
        log(f"the outputs caught up {time.monotonic() - waited:.1f} s after the closers")
        time.sleep(2)
    else:
        log(f"the outputs did not catch up within {SETTLE_SECONDS} s; the node's last stream and pipeline lines:")
        for line in pipeline_log(node)[-10:]:
            print(f"    {line}", flush=True)
        checks.fail(f"the outputs catch up within {SETTLE_SECONDS} s of the closers")

    topic_values, topic_ends, _ = consume(node.broker, "per-window", 1)
    topic_rows = []
    for v in topic_values:
        try:
            topic_rows.append(json.loads(v))
        except (TypeError, ValueError):
            checks.fail("per-window: every record a JSON object", repr(v))
    check_windows(checks, "topic per-window", topic_rows, expected_windows)
    # The same windows through Kafka as a Kafka outside Mink (librdkafka to 'localhost', which is
    # not the address the node advertises): an at-least-once sink, which never loses one.
    alo_values, _, _ = consume(node.broker, "per-window-alo", 1)
    check_windows(checks, "topic per-window-alo (at least once)", [json.loads(v) for v in alo_values],
                  expected_windows, at_least_once=True)
    check_windows(checks, "table continuous.per_window", read_rows(node, "continuous.per_window"), expected_windows)

    copied = collections.Counter((r["k"], int(r["n"]), micros(r["ts"])) for r in read_rows(node, "continuous.copied"))
    dup = {row: n for row, n in copied.items() if n > expected_copied.get(row, 0) and row in expected_copied}
    missing = {row: n - copied.get(row, 0) for row, n in expected_copied.items() if copied.get(row, 0) < n}
    extra = {row: n for row, n in copied.items() if row not in expected_copied}
    checks.ok(f"table continuous.copied: each of the {sum(expected_copied.values())} events with an even n exactly "
              f"once ({sum(copied.values())} rows)", not dup and not missing and not extra,
              f"duplicated: [{listed(f'{r} x{n}' for r, n in dup.items())}]; "
              f"missing: [{listed(f'{r} x{n}' for r, n in missing.items())}]; "
              f"not expected: [{listed(f'{r} x{n}' for r, n in extra.items())}]")

    snapshot = read_rows(node, "continuous.totals", "--mode", "snapshot")
    checks.expect("table continuous.totals (snapshot): one row per key", sorted(KEYS), sorted(r["k"] for r in snapshot))
    checks.expect("table continuous.totals (snapshot): c and total per key of every event", expected_totals,
                  {r["k"]: (int(r["c"]), int(r["total"])) for r in snapshot})
    status, answer = http_sql(f"127.0.0.1:{http_port}", "SELECT * FROM totals")
    checks.expect("SELECT * FROM totals over HTTP: c and total per key of every event", (200, expected_totals),
                  (status, {r["k"]: (int(r["c"]), int(r["total"])) for r in answer["data"]}
                   if status == 200 and isinstance(answer, dict) else answer))

    lines = pipeline_log(node)
    starts = collections.Counter(m.group(1) for m in (re.search(r"pipeline (\w+) runs here", x) for x in lines) if m)
    log(f"pipeline starts in the node log: {dict(starts)}")
    # Warnings about pipelines, alike ones counted (without their time), first seen first.
    trouble = collections.Counter(x.split(" ", 1)[-1] for x in lines if re.search(r"fail|cannot|error", x, re.I))
    if trouble:
        log(f"{sum(trouble.values())} stream/pipeline warnings in the node log:")
        for line, n in list(trouble.items())[:10]:
            print(f"    {n} x {line}", flush=True)
    log(f"downtime per kill {['%.2f' % d for d in killer.downtimes]}")


if __name__ == "__main__":
    minktest.run_test("continuous-kill", main, budget_seconds=170)
