#!/usr/bin/python3
"""Kafka authentication (docs/kafka.md, Authentication) with real clients against a node of the
test's own started with --auth-enabled true:

  - `mink user create` (password on stdin and as a flag) and `mink user list` (names and the
    SCRAM mechanisms kept; no password anywhere in the metadata database's file);
  - python3-confluent-kafka produces with SASL/PLAIN and consumes the same records with
    SCRAM-SHA-256; kcat lists the cluster with SCRAM-SHA-512;
  - refused, with the protocol's own error and nothing written: a wrong password (the client
    reports SASL authentication failure), an unknown user, a client without SASL (its connection
    is closed before any request), and a user after `mink user delete`;
  - the topic holds exactly the records the authenticated producer sent.

Usage: kafka_sasl_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck,) = minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

minktest.require_tool("kcat", "kcat", "-V")

TOPIC = "guarded"
COUNT = 25


def sasl(node, mechanism, user, password):
    return {"bootstrap.servers": node.broker, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password}


def admin_answers(config):
    """(whether the cluster's metadata came back, the error text if not)."""
    errors = []
    admin = AdminClient(dict(config, error_cb=lambda e: errors.append(str(e))))
    try:
        admin.list_topics(timeout=6)
        return True, ""
    except KafkaException as e:
        admin.poll(1)  # serves error_cb: the authentication failure's text
        return False, f"{e} {errors}"


def produce(config, values):
    errors = []
    p = Producer(dict(config, **{"linger.ms": 5, "message.timeout.ms": 8000,
                                 "error_cb": lambda e: errors.append(str(e))}))
    for v in values:
        p.produce(TOPIC, value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = p.flush(15)
    return left, errors


def consume(config, count):
    c = Consumer(dict(config, **{"group.id": "guarded-readers", "auto.offset.reset": "earliest",
                                 "enable.auto.commit": False}))
    c.subscribe([TOPIC])
    got = []
    deadline = time.monotonic() + 20
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value())
    finally:
        c.close()
    return got


def run(checks, node):
    node.start(extra=["--auth-enabled", "true"])
    r = node.mink("user", "create", "alice", "--password-stdin", input="wonderland\n", check=False)
    checks.expect("mink user create reads the password from stdin", (0, ""), (r.returncode, r.stderr))
    r = node.mink("user", "create", "bob", "--password", "builder", check=False)
    checks.expect("mink user create takes a password flag", 0, r.returncode)
    r = node.mink("user", "create", "bob", "--password", "other", check=False)
    checks.ok("creating a user that exists is refused, naming it", r.returncode != 0 and "bob exists" in r.stderr,
              r.stderr)
    listed = node.mink("user", "list").stdout.splitlines()
    checks.expect("mink user list: the users and the SCRAM mechanisms kept",
                  ["alice\tSCRAM-SHA-256,SCRAM-SHA-512", "bob\tSCRAM-SHA-256,SCRAM-SHA-512"], listed)
    with open(os.path.join(node.work, "meta.db"), "rb") as f:
        stored = f.read()
    checks.ok("no password is in the metadata database", b"wonderland" not in stored and b"builder" not in stored)

    values = [f"guarded {i}".encode() for i in range(COUNT)]
    left, errors = produce(sasl(node, "PLAIN", "alice", "wonderland"), values)
    checks.expect("confluent-kafka produces with SASL/PLAIN", (0, []), (left, errors))
    got = consume(sasl(node, "SCRAM-SHA-256", "alice", "wonderland"), COUNT)
    checks.expect("confluent-kafka consumes them with SCRAM-SHA-256", values, got)
    kcat = subprocess.run(["kcat", "-b", node.broker, "-X", "security.protocol=SASL_PLAINTEXT",
                           "-X", "sasl.mechanisms=SCRAM-SHA-512", "-X", "sasl.username=bob",
                           "-X", "sasl.password=builder", "-L", "-t", TOPIC, "-m", "10"],
                          capture_output=True, text=True, timeout=30)
    checks.ok("kcat lists the topic with SCRAM-SHA-512", kcat.returncode == 0 and f'topic "{TOPIC}"' in kcat.stdout,
              kcat.stdout + kcat.stderr)

    ok, why = admin_answers(sasl(node, "SCRAM-SHA-512", "alice", "wrong"))
    checks.ok("a wrong password is refused with SASL authentication failure",
              not ok and "uthentication" in why, why)
    ok, why = admin_answers(sasl(node, "PLAIN", "mallory", "wonderland"))
    checks.ok("an unknown user is refused the same way", not ok and "uthentication" in why, why)
    ok, why = admin_answers({"bootstrap.servers": node.broker})
    checks.ok("a client without SASL gets no metadata", not ok, why)
    kcat = subprocess.run(["kcat", "-b", node.broker, "-X", "security.protocol=SASL_PLAINTEXT",
                           "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=alice",
                           "-X", "sasl.password=nope", "-P", "-t", TOPIC, "-m", "10"],
                          input="never\n", capture_output=True, text=True, timeout=30)
    checks.ok("kcat with a wrong password writes nothing and says why",
              "uthentication" in kcat.stderr, kcat.stderr)
    left, errors = produce({"bootstrap.servers": node.broker}, [b"anonymous"])
    checks.ok("a producer without SASL delivers nothing", left == 1 or errors, f"{left} {errors}")

    r = node.mink("user", "delete", "bob", check=False)
    checks.expect("mink user delete", 0, r.returncode)
    ok, why = admin_answers(sasl(node, "SCRAM-SHA-512", "bob", "builder"))
    checks.ok("a deleted user is refused", not ok and "uthentication" in why, why)
    rows = node.mink("read", f"kafka.{TOPIC}").stdout.splitlines()
    checks.expect("the topic holds exactly the authenticated producer's records", COUNT, len(rows))


def main():
    node = minktest.node_from_argv("kafka-sasl", 150)

    def body(checks):
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "kafka_sasl")


if __name__ == "__main__":
    main()
