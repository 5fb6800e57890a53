#!/usr/bin/python3
"""Authentication (docs/operations.md, Security; docs/kafka.md, Authentication) with real clients
against a node of the test's own started with --auth-enabled true and alice its bootstrap user
(made at start, a super user, her password from MINK_AUTH_BOOTSTRAP_PASSWORD):

  - `mink user create` (password on stdin and as a flag) and `mink user list` (names and the
    SCRAM mechanisms kept; no password anywhere in the metadata database's file);
  - python3-confluent-kafka produces with SASL/PLAIN and consumes the same records with
    SCRAM-SHA-256; kcat lists the cluster with SCRAM-SHA-512;
  - refused, with the protocol's own error and nothing written: a wrong password (the client
    reports SASL authentication failure), an unknown user, a client without SASL (its connection
    is closed before any request), and a user after `mink user delete`;
  - the topic holds exactly the records the authenticated producer sent;
  - Flight: `mink` without MINK_USER/MINK_PASSWORD is refused (UNAUTHENTICATED) and changes
    nothing, even before anyone made a user; with them it works; a generic gRPC Flight client (flight_auth_client.js) is refused without a header and
    with a wrong password, gets a bearer token from Handshake with Basic credentials, lists the
    databases and reads the topic's table with it, and is refused with a forged token;
  - HTTP: POST /api/v1/sql without credentials answers 401 with WWW-Authenticate, with Basic
    credentials 200; /metrics, /console and every other path 401 without credentials (/metrics
    403 for a user without describe on the cluster); /health and /ready stay open.

Usage: kafka_sasl_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

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


def http(node, path, body=None, authorization=None):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    headers = {"Content-Type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    request = urllib.request.Request(f"http://{node.http_listen}{path}", headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode(errors="replace")


def run(checks, node):
    # The first user comes from the node's configuration (its password from the environment),
    # never from whoever calls first.
    node.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = "wonderland"
    node.start(extra=["--auth-enabled", "true", "--auth-bootstrap-user", "alice", "--http-listen", node.http_listen])
    r = node.mink("user", "create", "mallory", "--password", "x", check=False)
    checks.ok("an anonymous mink user create is refused (the first user is the bootstrap user)",
              r.returncode != 0 and "authentication required" in r.stderr, r.stderr)
    os.environ["MINK_USER"], os.environ["MINK_PASSWORD"] = "alice", "wonderland"
    r = node.mink("user", "create", "carol", "--password-stdin", input="carrots\n", check=False)
    checks.expect("the bootstrap user makes users (password from stdin)", (0, ""), (r.returncode, r.stderr))
    r = node.mink("user", "delete", "carol", check=False)
    checks.expect("and deletes them", 0, r.returncode)
    r = node.mink("user", "create", "bob", "--password", "builder", check=False)
    checks.expect("mink user create takes a password flag", 0, r.returncode)
    r = node.mink("user", "create", "bob", "--password", "other", check=False)
    checks.ok("creating a user that exists is refused, naming it", r.returncode != 0 and "bob exists" in r.stderr,
              r.stderr)
    r = node.mink("acl", "grant", "bob", "describe", "--table", f"kafka.{TOPIC}", check=False)
    checks.expect("bob may see the topic (kafka_acl_test.py tests what grants do)", (0, ""), (r.returncode, r.stderr))
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
    checks.expect("mallory was never made", ["alice"], [line.split("\t")[0] for line in node.mink("user", "list").stdout.splitlines()])
    os.environ["MINK_PASSWORD"] = "wrong"
    r = node.mink("db", "create", "nope", check=False)
    checks.ok("mink with a wrong password is refused", r.returncode != 0 and "invalid user name or password" in r.stderr,
              r.stderr)
    os.environ["MINK_PASSWORD"] = "wonderland"
    checks.ok("and created nothing", "nope" not in node.mink("db", "list").stdout.split())

    # A generic Flight client: refused, then a bearer token from Handshake.
    js = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "flight_auth_client.js"),
                         f"127.0.0.1:{node.flight_port}", "alice", "wonderland", f"kafka.{TOPIC}"],
                        capture_output=True, text=True, timeout=60)
    steps = {}
    for line in js.stdout.splitlines():
        step = json.loads(line)
        steps[step.pop("step")] = step
    checks.expect("Flight without a header: UNAUTHENTICATED (16)", (False, 16),
                  (steps.get(1, {}).get("ok"), steps.get(1, {}).get("code")))
    checks.expect("Flight Handshake with a wrong password: UNAUTHENTICATED", (False, 16),
                  (steps.get(2, {}).get("ok"), steps.get(2, {}).get("code")))
    checks.expect("Flight Handshake with Basic credentials answers a bearer token", (True, True),
                  (steps.get(3, {}).get("ok"), steps.get(3, {}).get("bearer")))
    checks.ok("with the token: the databases, and the topic's table read whole",
              steps.get(4, {}).get("ok") and "kafka" in steps[4].get("databases", []) and steps[4].get("rows") == COUNT,
              repr(steps.get(4)) + js.stderr)
    checks.expect("a forged token: UNAUTHENTICATED", (False, 16),
                  (steps.get(5, {}).get("ok"), steps.get(5, {}).get("code")))

    # HTTP: 401 without credentials, 200 with them; health stays open.
    status, headers, body = http(node, "/api/v1/sql", {"sql": "SHOW SOURCES"})
    checks.ok("HTTP SQL without credentials: 401 with WWW-Authenticate",
              status == 401 and "Basic" in headers.get("WWW-Authenticate", ""), f"{status} {headers} {body}")
    basic = "Basic " + base64.b64encode(b"alice:wonderland").decode()
    status, _, body = http(node, "/api/v1/sql", {"sql": "SHOW SOURCES"}, basic)
    checks.expect("HTTP SQL with Basic credentials: 200", 200, status)
    checks.expect("/health needs no credentials", 200, http(node, "/health")[0])
    checks.expect("/ready needs no credentials", 200, http(node, "/ready")[0])
    for path in ("/metrics", "/console", "/console/", "/api/v1/anything", "/nothing"):
        status, _, body = http(node, path)
        checks.expect(f"GET {path} without credentials: 401", 401, status)
        checks.ok(f"  and {path} tells nothing of the data", TOPIC not in body and "mink_" not in body, body[:200])
    status, _, body = http(node, "/metrics", None, basic)
    checks.ok("/metrics for a super user: 200, the Prometheus text", status == 200 and "mink_" in body, str(status))
    node.mink("user", "create", "dave", "--password", "diver")
    dave = "Basic " + base64.b64encode(b"dave:diver").decode()
    status, _, body = http(node, "/metrics", None, dave)
    checks.ok("/metrics for a user without describe on the cluster: 403", status == 403 and "mink_" not in body,
              f"{status} {body[:200]}")


def main():
    node = minktest.node_from_argv("kafka-sasl", 150, http=True)

    def body(checks):
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "kafka_sasl")


if __name__ == "__main__":
    main()
