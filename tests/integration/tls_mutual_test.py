#!/usr/bin/python3
"""Mutual TLS (docs/operations.md, TLS): a node started with --tls-client-ca asks every client
for a certificate signed by one of those authorities, on every listener, and refuses the
handshake of a client without one, or with one another authority signed. Against a node of the
test's own, with a certificate authority and a client certificate made by the openssl command:

  - Flight: the mink CLI with MINK_TLS_CLIENT_CERT and MINK_TLS_CLIENT_KEY lists the databases and makes one;
    without a certificate, or with a self-signed one the node does not trust, it is refused and
    makes nothing;
  - Kafka: confluent-kafka with ssl.certificate.location produces and reads its records back;
    without a certificate it gets no metadata;
  - HTTP and the Iceberg REST catalog: https with the client certificate answers; without one,
    or with the untrusted one, no answer;
  - mink-query serving Flight SQL with --tls-client-ca: the node's console reaches it showing
    the node's own certificate, and mink-query reaches the node showing the client certificate;
  - a --tls-client-ca without TLS, or one that holds no certificate, stops the node with a
    message naming it.

Usage: tls_mutual_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

minktest.require_tool("openssl", "openssl", "version")

TOPIC = "mutual"


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_files(work):
    """The node's self-signed certificate, a CA, a client certificate it signed, and a
    self-signed client certificate nobody trusts. Returns a dict of paths."""
    p = {k: os.path.join(work, f"{k}.pem") for k in
         ("node", "node_key", "ca", "ca_key", "client", "client_key", "stranger", "stranger_key",
          "client_ca")}
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", p["node_key"],
            "-out", p["node"])
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=mink test CA",
            "-keyout", p["ca_key"], "-out", p["ca"])
    csr = os.path.join(work, "client.csr")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=alice", "-keyout", p["client_key"],
            "-out", csr)
    openssl("x509", "-req", "-in", csr, "-CA", p["ca"], "-CAkey", p["ca_key"], "-CAcreateserial",
            "-days", "2", "-out", p["client"])
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=stranger",
            "-keyout", p["stranger_key"], "-out", p["stranger"])
    # Clients signed by the CA, and the node itself (a self-signed certificate is its own
    # authority): the console calls mink-query showing the node's certificate.
    with open(p["client_ca"], "w") as out:
        out.write(open(p["ca"]).read() + open(p["node"]).read())
    return p


def https(url, files, cert=None, key=None):
    """(status, body) of a GET, or (None, error) when there is no answer."""
    ctx = ssl.create_default_context(cafile=files["node"])
    if cert:
        ctx.load_cert_chain(cert, key)
    try:
        with urllib.request.urlopen(url, context=ctx, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ssl.SSLError, ConnectionError, OSError) as e:
        return None, str(e)


def mink(node, files, *args, cert="client"):
    env = dict(os.environ, MINK_BOOTSTRAP=node.flight, MINK_TLS_CA=files["node"])
    for k in ("MINK_TLS_CLIENT_CERT", "MINK_TLS_CLIENT_KEY"):
        env.pop(k, None)
    if cert:
        env["MINK_TLS_CLIENT_CERT"], env["MINK_TLS_CLIENT_KEY"] = files[cert], files[cert + "_key"]
    return subprocess.run([node.mink_bin, *args], env=env, capture_output=True, text=True, timeout=60)


def kafka(node, files, cert=True):
    config = {"bootstrap.servers": node.broker, "security.protocol": "SSL", "ssl.ca.location": files["node"]}
    if cert:
        config.update({"ssl.certificate.location": files["client"], "ssl.key.location": files["client_key"]})
    return config


def run(checks, node, query_bin):
    files = make_files(node.work)
    node.flight = f"grpc+tls://localhost:{node.flight_port}"
    rest_port, query_port = minktest.free_port(), minktest.free_port()
    # The frame's readiness probe is a `mink db list`: it shows the client certificate.
    os.environ.update(MINK_TLS_CA=files["node"], MINK_TLS_CLIENT_CERT=files["client"], MINK_TLS_CLIENT_KEY=files["client_key"])
    node.start(extra=["--tls-cert", files["node"], "--tls-key", files["node_key"], "--tls-ca", files["node"],
                      "--tls-client-ca", files["client_ca"], "--http-listen", node.http_listen,
                      "--iceberg-rest-listen", f"127.0.0.1:{rest_port}",
                      "--console-query", f"grpc+tls://localhost:{query_port}"])

    r = mink(node, files, "db", "create", "trusted")
    checks.expect("Flight: the CLI with a client certificate the CA signed makes a database", (0, ""),
                  (r.returncode, r.stderr))
    for name, cert in (("no client certificate", None), ("a self-signed client certificate", "stranger")):
        r = mink(node, files, "db", "create", "refused", cert=cert)
        checks.ok(f"Flight: {name} is refused", r.returncode != 0, r.stdout + r.stderr)
    listed = mink(node, files, "db", "list").stdout.split()
    checks.ok("and made nothing", "trusted" in listed and "refused" not in listed, str(listed))

    errors = []
    p = Producer(dict(kafka(node, files), **{"linger.ms": 5, "message.timeout.ms": 10000,
                                             "error_cb": lambda e: errors.append(str(e))}))
    values = [f"m{i}".encode() for i in range(5)]
    for v in values:
        p.produce(TOPIC, value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    checks.expect("Kafka: confluent-kafka with a client certificate produces", (0, []), (p.flush(20), errors))
    c = Consumer(dict(kafka(node, files), **{"group.id": "mutual", "auto.offset.reset": "earliest"}))
    c.subscribe([TOPIC])
    got, deadline = [], time.monotonic() + 20
    while len(got) < len(values) and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    checks.expect("and reads its records back", values, got)
    admin = AdminClient(dict(kafka(node, files, cert=False), error_cb=lambda e: None))
    try:
        admin.list_topics(timeout=5)
        checks.fail("Kafka: without a client certificate no metadata", "it got metadata")
    except KafkaException as e:
        checks.ok("Kafka: without a client certificate no metadata", True, str(e))

    health = f"https://localhost:{node.http_listen.rsplit(':', 1)[1]}/health"
    rest = f"https://localhost:{rest_port}/v1/config"
    checks.expect("HTTP: https with the client certificate", 200,
                  https(health, files, files["client"], files["client_key"])[0])
    checks.expect("the REST catalog: https with the client certificate answers", 200,
                  https(rest, files, files["client"], files["client_key"])[0])
    for name, (cert, key) in (("no client certificate", (None, None)),
                              ("the untrusted client certificate", (files["stranger"], files["stranger_key"]))):
        checks.expect(f"HTTP and the REST catalog: {name}, no answer", [None, None],
                      [https(health, files, cert, key)[0], https(rest, files, cert, key)[0]])

    query_log = os.path.join(node.work, "query.log")
    with open(query_log, "wb") as log:
        query = subprocess.Popen([query_bin, "serve", "--listen", f"127.0.0.1:{query_port}",
                                  "--tls-cert", files["node"], "--tls-key", files["node_key"],
                                  "--tls-client-ca", files["client_ca"]], stdout=log, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, MINK_BOOTSTRAP=node.flight))
    try:
        started = minktest.wait_until(20, lambda: "Flight SQL on" in open(query_log).read())
        checks.ok("mink-query serves Flight SQL asking for client certificates", started,
                  open(query_log).read()[-500:])
        console = f"https://localhost:{node.http_listen.rsplit(':', 1)[1]}/console/api/query"
        ctx = ssl.create_default_context(cafile=files["node"])
        ctx.load_cert_chain(files["client"], files["client_key"])
        req = urllib.request.Request(console, data=json.dumps({"sql": f"SELECT count(*) AS n FROM mink.kafka.{TOPIC}"}).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
                answer = (r.status, json.loads(r.read()).get("rows"))
        except urllib.error.HTTPError as e:
            answer = (e.code, e.read().decode())
        checks.expect("the console reaches mink-query showing the node's certificate, and mink-query the node"
                      " showing the client's", (200, [{"n": str(len(values))}]), answer)
    finally:
        query.terminate()
        query.wait(timeout=20)

    for flags, expected in ((["--tls-client-ca", files["ca"]], "--tls-client-ca needs TLS"),
                            (["--tls-cert", files["node"], "--tls-key", files["node_key"],
                              "--tls-client-ca", files["client_key"]], "--tls-client-ca")):
        r = subprocess.run([node.mink_bin, "serve", "--listen", "127.0.0.1:0", "--meta-url",
                            f"sqlite:{node.work}/refused.db", "--storage-uri", f"-2@file://{node.work}/refused",
                            "--kafka-listen", "127.0.0.1:0", *flags],
                           capture_output=True, text=True, timeout=30)
        checks.ok(f"a node with {' '.join(flags[-2:])} does not start and names it",
                  r.returncode != 0 and expected in r.stderr + r.stdout, (r.stdout + r.stderr)[-400:])


def main():
    node = minktest.node_from_argv("tls-mutual", 150, http=True, usage="path/to/mink path/to/mink-query")
    query_bin = os.path.abspath(sys.argv[2])

    def body(checks):
        run(checks, node, query_bin)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "tls-mutual")


if __name__ == "__main__":
    main()
