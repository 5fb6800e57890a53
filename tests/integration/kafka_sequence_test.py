#!/usr/bin/python3
"""Idempotent producers whose batches arrive again or out of order, against a `mink serve` of the
test's own, checked on the wire and in the data that follows.

- Batches with chosen sequences, built by kafka-python 2.0.2's record batch builder and sent
  with its protocol classes (kafka_wire.py) under a producer id from InitProducerId: a batch sent
  again while it is among the producer's last five is acknowledged with its first offsets and not
  stored twice (Kafka answers NONE there; DUPLICATE_SEQUENCE_NUMBER is never sent, as by Kafka
  brokers since 1.0); a sequence inside an earlier batch, or a repeat of a batch older than the
  last five gets OUT_OF_ORDER_SEQUENCE_NUMBER and stores nothing; a batch after a gap (the
  batches before it failed and will come again) gets the retriable NOT_LEADER_OR_FOLLOWER and
  stores nothing (docs/decisions/0022); a newer producer epoch starts again at sequence 0 and an
  older one gets INVALID_PRODUCER_EPOCH; a new producer id may start at any sequence. librdkafka and kafka-python then read every stored record exactly once.
- librdkafka 2.0.2's idempotent producer through a proxy that loses the response of its first
  Produce: the client times the request out and sends the batch again on a new connection; the
  node answers it as a duplicate, every delivery report is a success at the offset where the
  record is, and both clients read each record once.
- kafkajs 2.2.4's idempotent producer through the proxy that loses a response: it sends the
  batch again after its request timeout and gets the original offset; each record is stored once.
- librdkafka's producer through a proxy that loses a Produce request: the requests after it arrive
  with a gap in their sequences and are refused as not stored; librdkafka times the lost one out
  and sends it and them again; every record is reported delivered, at the offset where it is,
  once each, in the order produced.

Usage: kafka_sequence_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka", "kafka")
from confluent_kafka import Producer  # noqa: E402

import kafka_wire as wire  # noqa: E402
from kafka_consumers import CLIENTS, has  # noqa: E402

OUT_OF_ORDER = 45
INVALID_EPOCH = 47
NOT_LEADER = 6
PRODUCE = 0


def read_all(node, topic, n, client):
    Reader, policy, _ = CLIENTS[client]
    r = Reader(node, topic, policy["earliest"], 0).poll_for(15, has(n))
    r.poll_for(1)  # and nothing more
    r.close()
    return r.records


def wire_checks(node, checks):
    topic = "sequences"
    w = wire.Wire(node.broker)
    init = w.send(wire.InitProducerIdRequest_v0(None, 60000))
    checks.expect("InitProducerId: a producer id at epoch 0", (0, 0),
                  (init.error_code, init.producer_epoch))
    pid = init.producer_id

    def send(first_seq, values, producer_id=pid, epoch=0):
        batch = wire.record_batch([v.encode() for v in values], producer_id, epoch, first_seq)
        r = w.send(wire.ProduceRequest[7](None, -1, 10000, [(topic, [(0, batch)])]))
        _, error, base = r.topics[0][1][0][:3]
        return error, base

    steps = [
        ("seq 0-2, new", 0, ["a0", "a1", "a2"], (0, 0)),
        ("seq 3-4, next", 3, ["b3", "b4"], (0, 3)),
        ("seq 0-2 again (a retry)", 0, ["a0", "a1", "a2"], (0, 0)),
        ("seq 3-4 again", 3, ["b3", "b4"], (0, 3)),
        ("seq 10, a gap after 4", 10, ["gap"], (NOT_LEADER, -1)),
        ("seq 4, inside an earlier batch", 4, ["inside"], (OUT_OF_ORDER, -1)),
        ("seq 5-6, next", 5, ["c5", "c6"], (0, 5)),
    ]
    steps += [(f"seq {s}, next", s, [f"d{s}"], (0, s)) for s in range(7, 12)]
    steps += [("seq 0-2 again, no longer among the last five batches", 0, ["a0", "a1", "a2"],
               (OUT_OF_ORDER, -1)),
              ("seq 12, next after the refusals", 12, ["e12"], (0, 12))]
    for name, first_seq, values, expected in steps:
        checks.expect(f"Produce {name}: (error, base offset)", expected, send(first_seq, values))
    # A newer epoch (librdkafka raises it by itself after a lost request) starts again at 0; an
    # older one is fenced.
    epochs = [("epoch 1, seq 0: a new history", 1, 0, ["h13"], (0, 13)),
              ("epoch 1, seq 0 again: a retry", 1, 0, ["h13"], (0, 13)),
              ("epoch 0, seq 13: an older epoch", 0, 13, ["old"], (INVALID_EPOCH, -1)),
              ("epoch 2, seq 5: a new epoch not at 0", 2, 5, ["bad"], (NOT_LEADER, -1)),
              ("epoch 1, seq 1: next", 1, 1, ["h14"], (0, 14))]
    for name, epoch, first_seq, values, expected in epochs:
        checks.expect(f"Produce {name}: (error, base offset)", expected,
                      send(first_seq, values, epoch=epoch))
    other = w.send(wire.InitProducerIdRequest_v0(None, 60000)).producer_id
    checks.ok("InitProducerId again: another producer id", other != pid, f"{other} and {pid}")
    checks.expect("a new producer id may start at any sequence", (0, 15), send(1000, ["f"], other))
    checks.expect("... and goes on from there, not past a gap", (NOT_LEADER, -1),
                  send(1002, ["g"], other))
    w.close()
    expected = ([(0, "a0"), (1, "a1"), (2, "a2"), (3, "b3"), (4, "b4"), (5, "c5"), (6, "c6")] +
                [(s, f"d{s}") for s in range(7, 12)] +
                [(12, "e12"), (13, "h13"), (14, "h14"), (15, "f")])
    for client in CLIENTS:
        checks.expect(f"{client} reads every acknowledged record once, and nothing refused",
                      expected, read_all(node, topic, len(expected), client))


class Proxy:
    """A TCP proxy in front of the node that can lose one Produce response or one Produce
    request (the `lose` rule: "response" or "request", for the Nth Produce it sees)."""

    def __init__(self, broker, lose, nth, port):
        host, target_port = broker.rsplit(":", 1)
        self.target = (host, int(target_port))
        self.lose, self.nth = lose, nth
        self.produces = 0
        self.lost = []  # correlation ids of what was lost
        self.swallow = set()
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._requests, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._responses, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _frames(sock):
        def read(n):
            out = b""
            while len(out) < n:
                chunk = sock.recv(n - len(out))
                if not chunk:
                    raise EOFError
                out += chunk
            return out
        try:
            while True:
                size = read(4)
                yield size + read(struct.unpack(">i", size)[0])
        except (EOFError, OSError):
            return

    def _requests(self, client, upstream):
        for frame in self._frames(client):
            api_key, _, correlation_id = struct.unpack(">hhi", frame[4:12])
            forward = True
            if api_key == PRODUCE:
                with self.lock:
                    self.produces += 1
                    if self.produces == self.nth:
                        self.lost.append(correlation_id)
                        if self.lose == "response":
                            self.swallow.add(correlation_id)
                        else:
                            forward = False
            if forward:
                try:
                    upstream.sendall(frame)
                except OSError:
                    break
        for s in (client, upstream):
            s.close()

    def _responses(self, upstream, client):
        for frame in self._frames(upstream):
            (correlation_id,) = struct.unpack(">i", frame[4:8])
            with self.lock:
                if correlation_id in self.swallow:
                    self.swallow.discard(correlation_id)
                    continue
            try:
                client.sendall(frame)
            except OSError:
                break
        for s in (client, upstream):
            s.close()

    def rearm(self):
        """Loses the Nth Produce from now on again."""
        with self.lock:
            self.produces = 0
            self.lost = []

    def close(self):
        self.listener.close()


def produce_through(broker, topic, values, pause):
    """An idempotent librdkafka producer sending each value in a request of its own; the
    delivery reports as {value: offset or error name}."""
    reports = {}
    p = Producer({"bootstrap.servers": broker, "enable.idempotence": True, "linger.ms": 0,
                  "socket.timeout.ms": 2000, "request.timeout.ms": 1500,
                  "message.timeout.ms": 20000, "retry.backoff.ms": 100})
    for v in values:
        p.produce(topic, v.encode(), partition=0,
                  on_delivery=lambda err, msg: reports.__setitem__(
                      msg.value().decode(), err.name() if err else msg.offset()))
        p.poll(0)
        time.sleep(pause)
    p.flush(40)
    return reports


def kafkajs_checks(node, proxy, checks):
    """kafkajs's idempotent producer, one record a request, through `proxy` losing a response."""
    modules = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "node_modules")
    minktest.require_tool("node and kafkajs", "test", "-d", os.path.join(modules, "kafkajs"))
    proxy.rearm()
    topic = "lost-response-kafkajs"
    records = [{"partition": 0, "key": None, "value": f"js-{i}".encode().hex(), "headers": [],
                "timestamp": int(time.time() * 1000)} for i in range(4)]
    r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "kafka_kafkajs_cross.js"),
                        "produce", f"127.0.0.1:{proxy.port}", topic],
                       input=json.dumps(records), capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MINK_KAFKAJS_REQUEST_TIMEOUT_MS="2000"))
    checks.ok("kafkajs through the proxy: the producer finished", r.returncode == 0, r.stderr[-2000:])
    checks.ok("kafkajs: the proxy lost the response of a Produce", len(proxy.lost) == 1,
              str(proxy.lost))
    acknowledged = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else []
    checks.expect("kafkajs: every record acknowledged at offsets 0-3, the retried one too",
                  [0, 1, 2, 3], [a["offset"] for a in acknowledged])
    for client in CLIENTS:
        checks.expect(f"kafkajs, lost response: {client} reads each record once",
                      [(i, f"js-{i}") for i in range(4)], read_all(node, topic, 4, client))


def proxy_checks(mink_bin, checks):
    for lose in ("response", "request"):
        node = minktest.MinkNode(mink_bin, f"kafka-lose-{lose}")
        proxy = None
        try:
            # Clients are handed the proxy's address, so every connection goes through it.
            proxy_port = minktest.free_port()
            node.start(default_partitions=1,
                       extra=["--kafka-advertise", f"127.0.0.1:{proxy_port}"])
            proxy = Proxy(node.broker, lose, nth=2, port=proxy_port)
            topic = f"lost-{lose}"
            values = [f"{lose}-{i}" for i in range(6)]
            reports = produce_through(f"127.0.0.1:{proxy.port}", topic, values, pause=0.3)
            checks.ok(f"lost {lose}: the proxy lost the {lose} of a Produce", len(proxy.lost) == 1,
                      str(proxy.lost))
            delivered = [v for v in values if isinstance(reports.get(v), int)]
            # After the lost request the next ones are refused as not stored (a gap); librdkafka
            # times the lost one out and sends it and them again, in order.
            checks.expect(f"lost {lose}: every record reported delivered, at offsets 0-5",
                          {v: i for i, v in enumerate(values)}, reports)
            for client in CLIENTS:
                stored = read_all(node, topic, len(delivered), client)
                checks.expect(f"lost {lose}: {client} reads each record reported delivered once, "
                              "in the order produced, at its reported offset",
                              [(reports[v], v) for v in delivered], stored)
            if lose == "response":
                kafkajs_checks(node, proxy, checks)
            checks.ok(f"lost {lose}: node stopped cleanly", node.stop() == 0)
        except Exception:
            print(f"node log:\n{node.log_tail()}", file=sys.stderr)
            raise
        finally:
            if proxy:
                proxy.close()
            node.cleanup()


def main(node, checks):
    node.start(default_partitions=1)
    wire_checks(node, checks)
    proxy_checks(node.mink_bin, checks)


if __name__ == "__main__":
    minktest.run_test("kafka-sequence", main, budget_seconds=190)
