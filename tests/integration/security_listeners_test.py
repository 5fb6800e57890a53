#!/usr/bin/python3
"""Every listener with authentication on, called by a stranger with no credentials (issue: a node
on an open network): a node of the test's own with --auth-enabled true, a bootstrap user, the
HTTP API and the Iceberg REST catalog, and a `mink-query serve` in front of it.

  - Arrow Flight, the node's and mink-query's: every RPC (Handshake, ListFlights, GetFlightInfo,
    PollFlightInfo, GetSchema, DoGet, DoPut, DoExchange, DoAction, ListActions;
    tests/node/flight_walk.js) ends UNAUTHENTICATED.
  - Kafka: ApiVersions is answered (clients ask it before SASL); Metadata and Produce get no
    answer and the connection is closed.
  - HTTP: /health and /ready answer 200; /metrics, /console, its API, the SQL API and a
    WebSocket upgrade are 401.
  - Iceberg REST: config, namespaces and a table are 401.
And nothing changed: the stranger's create-user made no user.

Usage: security_listeners_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import socket
import struct
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_node_modules("@grpc/grpc-js", "protobufjs")
WALK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "flight_walk.js")
PASSWORD = "admin-pw-7"
UNAUTHENTICATED = 16


def flight_walk(checks, where, port):
    r = subprocess.run(["node", WALK, str(port)], capture_output=True, text=True, timeout=60)
    if not checks.expect(f"{where}: flight_walk.js runs", 0, r.returncode):
        print(r.stderr[-1500:])
        return
    for line in r.stdout.splitlines():
        call = json.loads(line)
        checks.expect(f"{where}: {call['rpc']} without credentials", UNAUTHENTICATED, call["code"])


def kafka_frame(api_key, version, correlation, body=b""):
    client = b"stranger"
    header = struct.pack(">hhih", api_key, version, correlation, len(client)) + client
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def kafka_exchange(port, frame):
    """The broker's answer to one request (its correlation id and size), or None when it closed
    the connection without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(frame)
        try:
            size = s.recv(4)
        except (ConnectionResetError, socket.timeout):
            return None
        if len(size) < 4:
            return None
        n = struct.unpack(">i", size)[0]
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                break
            data += chunk
        return struct.unpack(">i", data[:4])[0], n


def kafka_walk(checks, port):
    checks.ok("Kafka: ApiVersions is answered before authentication",
              kafka_exchange(port, kafka_frame(18, 0, 7)) is not None)
    metadata_v1 = struct.pack(">i", -1)  # every topic
    checks.expect("Kafka: Metadata without SASL gets no answer (closed)", None,
                  kafka_exchange(port, kafka_frame(3, 1, 8, metadata_v1)))
    produce_v3 = struct.pack(">hhii", -1, 1, 1000, 0)  # no transactional id, acks 1, no topics
    checks.expect("Kafka: Produce without SASL gets no answer (closed)", None,
                  kafka_exchange(port, kafka_frame(0, 3, 9, produce_v3)))


def http_status(url, method="GET", body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def body(node, query_bin, checks):
    node.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = PASSWORD
    rest_port, sql_port = minktest.free_port(), minktest.free_port()
    node.start(extra=["--auth-enabled", "true", "--auth-bootstrap-user", "admin", "--http-listen", node.http_listen,
                      "--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
    log_path = os.path.join(node.work, "serve.log")
    with open(log_path, "ab") as log:
        serve = subprocess.Popen([query_bin, "serve", "--listen", f"127.0.0.1:{sql_port}"],
                                 env=dict(os.environ, MINK_BOOTSTRAP=node.flight), stdout=log,
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        minktest.wait_until(30, lambda: "Flight SQL on" in open(log_path, errors="replace").read())
        flight_walk(checks, "node Flight", node.flight_port)
        flight_walk(checks, "mink-query Flight SQL", sql_port)
    finally:
        serve.send_signal(2)
        serve.wait(timeout=15)
    kafka_walk(checks, node.kafka_port)

    http = f"http://{node.http_listen}"
    for path in ("/health", "/ready"):
        checks.expect(f"HTTP GET {path} stays open", 200, http_status(http + path))
    for method, path, data in (("GET", "/metrics", None), ("GET", "/console", None),
                               ("GET", "/console/api/overview", None),
                               ("POST", "/console/api/query", b'{"sql": "SELECT 1"}'),
                               ("POST", "/api/v1/sql", b'{"sql": "SHOW SOURCES"}')):
        checks.expect(f"HTTP {method} {path} without credentials", 401, http_status(http + path, method, data))
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    checks.expect("HTTP WebSocket /ws/anything without credentials", 401,
                  http_status(http + "/ws/anything", headers=upgrade))

    rest = f"http://127.0.0.1:{rest_port}"
    for path in ("/v1/config", "/v1/namespaces", "/v1/namespaces/shop/tables/orders"):
        checks.expect(f"Iceberg REST GET {path} without credentials", 401, http_status(rest + path))

    env = dict(os.environ, MINK_BOOTSTRAP=node.flight, MINK_USER="admin", MINK_PASSWORD=PASSWORD)
    users = subprocess.run([node.mink_bin, "user", "list"], env=env, capture_output=True, text=True, timeout=30)
    checks.expect("the stranger's create-user made no user", "admin", users.stdout.split("\t")[0].strip())


def main():
    node = minktest.node_from_argv("security-listeners", 200, http=True, usage="path/to/mink path/to/mink-query")
    query_bin = os.path.abspath(sys.argv[2])
    minktest.run_on_node(node, lambda checks: body(node, query_bin, checks), "security_listeners")


if __name__ == "__main__":
    main()
