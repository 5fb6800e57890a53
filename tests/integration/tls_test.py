#!/usr/bin/python3
"""TLS on every listener (docs/operations.md, TLS) with real clients, against a node of the
test's own started with a self-signed certificate (made by the openssl command) and
authentication on:

  - Flight: the mink CLI reaches grpc+tls://localhost with MINK_TLS_CA and makes the first user,
    writes nothing it may not; without the CA (the system's roots do not know the certificate)
    or over plain grpc:// it is refused;
  - Kafka: python3-confluent-kafka with SASL_SSL (SCRAM-SHA-256) produces and consumes the same
    records; kcat lists the topic over SASL_SSL; a SASL_PLAINTEXT client gets no metadata; the
    topic's table read over Flight TLS holds exactly the records;
  - HTTP: https /health and the SQL API with Basic credentials, plain http gets no answer; the
    Iceberg REST catalog's listener over https;
  - a node with a certificate and no key, or a key of another certificate, does not start and
    says why.

  - mink-query serves Flight SQL over TLS and reads the node over TLS; the console's SQL box
    reaches it over TLS.
  - certificates are read again without a restart: once the files hold a new certificate,
    every listener (Flight, Kafka, HTTP, the REST catalog) serves it to new connections within
    the reload interval and clients that trust only the new one connect; files that do not load
    leave the new certificate served.

Usage: tls_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import base64
import hashlib
import json
import os
import socket
import ssl
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
minktest.require_tool("openssl", "openssl", "version")

TOPIC = "sealed"
COUNT = 15


def make_certificate(work, name):
    cert, key = os.path.join(work, f"{name}.crt"), os.path.join(work, f"{name}.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key


def kafka_config(node, cert, protocol="SASL_SSL"):
    config = {"bootstrap.servers": node.broker, "security.protocol": protocol, "sasl.mechanism": "SCRAM-SHA-256",
              "sasl.username": "alice", "sasl.password": "wonderland"}
    if protocol == "SASL_SSL":
        config["ssl.ca.location"] = cert
    return config


def https(node, path, cert, body=None, authorization=None, scheme="https", port=None):
    context = ssl.create_default_context(cafile=cert)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context))
    headers = {"Content-Type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    url = f"{scheme}://localhost:{port or node.http_listen.split(':')[1]}{path}"
    request = urllib.request.Request(url, headers=headers, data=None if body is None else json.dumps(body).encode())
    try:
        with opener.open(request, timeout=15) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, ConnectionError, OSError) as e:
        return None, str(e)


def served_fingerprint(port):
    """The SHA-256 of the certificate a TLS listener on 127.0.0.1:port serves (None when no
    handshake). ALPN h2 for gRPC, which the others ignore."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2", "http/1.1"])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as conn:
                return hashlib.sha256(conn.getpeercert(binary_form=True)).hexdigest()
    except (OSError, ssl.SSLError):
        return None


def file_fingerprint(cert):
    with open(cert) as f:
        return hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest()


def reload_checks(checks, node, cert, key, rest_port, basic):
    """Replaces the node's certificate files: every listener serves the new one, without a
    restart."""
    ports = {"Flight": node.flight_port, "Kafka": int(node.broker.rsplit(":", 1)[1]),
             "HTTP": int(node.http_listen.rsplit(":", 1)[1]), "REST catalog": rest_port}
    old = file_fingerprint(cert)
    checks.expect("every listener serves the certificate it started with",
                  {name: old for name in ports}, {name: served_fingerprint(p) for name, p in ports.items()})
    new_cert, new_key = make_certificate(node.work, "renewed")
    new = file_fingerprint(new_cert)
    os.replace(new_key, key)
    os.replace(new_cert, cert)
    served = {}

    def all_new():
        served.update({name: served_fingerprint(p) for name, p in ports.items()})
        return all(f == new for f in served.values())
    # gRPC and the other listeners look at the files every 5 s.
    checks.ok("within 15 s every listener serves the renewed certificate, no restart",
              minktest.wait_until(15, all_new, interval=0.5), str(served))
    r = node.mink("db", "list", check=False)  # MINK_TLS_CA is the file, which holds the new one now
    checks.expect("the CLI trusting only the renewed certificate reaches Flight", 0, r.returncode)
    status, _ = https(node, "/health", cert)
    checks.expect("https trusting only the renewed certificate", 200, status)
    status, _ = https(node, "/v1/config", cert, authorization=basic, port=rest_port)
    checks.expect("the REST catalog trusting only the renewed certificate", 200, status)
    with open(cert, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n")
    time.sleep(6)  # past the reload interval: the broken file is looked at, and kept out
    checks.expect("a certificate file that does not load leaves the renewed one served",
                  {name: new for name in ports}, {name: served_fingerprint(p) for name, p in ports.items()})


def refused_start(mink_bin, work, flags):
    """The exit status and output of a node started with `flags` (it should not start)."""
    r = subprocess.run([mink_bin, "serve", "--listen", "127.0.0.1:0", "--kafka-listen", "",
                        "--meta-url", f"sqlite:{work}/refused.db", "--storage-uri", f"-2@file://{work}/refused",
                        *flags], capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout + r.stderr


def run(checks, node):
    cert, key = make_certificate(node.work, "node")
    _, other_key = make_certificate(node.work, "other")
    os.environ["MINK_TLS_CA"] = cert
    node.flight = f"grpc+tls://localhost:{node.flight_port}"
    rest_port, query_port = minktest.free_port(), minktest.free_port()
    node.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = "wonderland"
    node.start(extra=["--tls-cert", cert, "--tls-key", key, "--tls-ca", cert, "--auth-enabled", "true",
                      "--auth-bootstrap-user", "alice", "--http-listen", node.http_listen,
                      "--iceberg-rest-listen", f"127.0.0.1:{rest_port}",
                      "--console-query", f"grpc+tls://localhost:{query_port}"])
    os.environ["MINK_USER"], os.environ["MINK_PASSWORD"] = "alice", "wonderland"
    r = node.mink("user", "create", "bob", "--password", "builder", check=False)
    checks.expect("the CLI makes a user over grpc+tls with MINK_TLS_CA", (0, ""), (r.returncode, r.stderr))

    env = dict(os.environ, MINK_BOOTSTRAP=node.flight)
    env.pop("MINK_TLS_CA")
    r = subprocess.run([node.mink_bin, "db", "create", "untrusted"], env=env, capture_output=True, text=True,
                       timeout=60)
    checks.ok("without the CA the certificate is not trusted", r.returncode != 0, r.stderr)
    env = dict(os.environ, MINK_BOOTSTRAP=f"grpc://localhost:{node.flight_port}")
    r = subprocess.run([node.mink_bin, "db", "create", "plain"], env=env, capture_output=True, text=True, timeout=60)
    checks.ok("plain gRPC to the TLS listener fails", r.returncode != 0, r.stderr)
    checks.ok("and neither made a database",
              not {"untrusted", "plain"} & set(node.mink("db", "list").stdout.split()))

    values = [f"sealed {i}".encode() for i in range(COUNT)]
    errors = []
    p = Producer(dict(kafka_config(node, cert), **{"linger.ms": 5, "message.timeout.ms": 10000,
                                                   "error_cb": lambda e: errors.append(str(e))}))
    for v in values:
        p.produce(TOPIC, value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    checks.expect("confluent-kafka produces over SASL_SSL", (0, []), (p.flush(20), errors))
    c = Consumer(dict(kafka_config(node, cert), **{"group.id": "sealed-readers", "auto.offset.reset": "earliest",
                                                   "enable.auto.commit": False}))
    c.subscribe([TOPIC])
    got = []
    deadline = time.monotonic() + 20
    while len(got) < COUNT and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    checks.expect("and consumes them over SASL_SSL", values, got)
    kcat = subprocess.run(["kcat", "-b", node.broker, "-X", "security.protocol=SASL_SSL", "-X", f"ssl.ca.location={cert}",
                           "-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=alice",
                           "-X", "sasl.password=wonderland", "-L", "-t", TOPIC, "-m", "10"],
                          capture_output=True, text=True, timeout=30)
    checks.ok("kcat lists the topic over SASL_SSL", kcat.returncode == 0 and f'topic "{TOPIC}"' in kcat.stdout,
              kcat.stdout + kcat.stderr)
    admin = AdminClient(dict(kafka_config(node, cert, "SASL_PLAINTEXT"), error_cb=lambda e: None))
    try:
        admin.list_topics(timeout=5)
        checks.fail("a SASL_PLAINTEXT client gets no metadata from the TLS listener", "it did")
    except KafkaException as e:
        checks.ok("a SASL_PLAINTEXT client gets no metadata from the TLS listener", True, str(e))
    rows = node.mink("read", f"kafka.{TOPIC}").stdout.splitlines()
    checks.expect("the table read over Flight TLS holds exactly the records", COUNT, len(rows))

    status, body = https(node, "/health", cert)
    checks.expect("https /health", (200, "ok"), (status, body.strip()))
    basic = "Basic " + base64.b64encode(b"alice:wonderland").decode()
    status, body = https(node, "/api/v1/sql", cert, {"sql": "SHOW SOURCES"}, basic)
    checks.expect("the SQL API over https with Basic credentials", 200, status)
    status, body = https(node, "/health", cert, scheme="http")
    checks.ok("plain http to the TLS listener gets no answer", status is None, f"{status} {body}")
    status, body = https(node, "/v1/config", cert, port=rest_port)
    checks.expect("the Iceberg REST catalog over https asks for credentials", 401, status)
    status, body = https(node, "/v1/config", cert, authorization=basic, port=rest_port)
    checks.ok("the Iceberg REST catalog over https", status == 200 and "defaults" in body, f"{status} {body}")

    # mink-query over TLS both ways: its Flight SQL with the certificate, the node's TLS Flight
    # behind it; the node's console reaches it as a TLS client.
    query_log = os.path.join(node.work, "query.log")
    with open(query_log, "wb") as log:
        query = subprocess.Popen([QUERY_BIN, "serve", "--listen", f"127.0.0.1:{query_port}", "--tls-cert", cert,
                                  "--tls-key", key], stdout=log, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, MINK_BOOTSTRAP=node.flight))
    try:
        started = minktest.wait_until(20, lambda: "Flight SQL on" in open(query_log).read())
        checks.ok("mink-query serves Flight SQL over TLS", started and "(TLS)" in open(query_log).read(),
                  open(query_log).read()[-500:])
        status, body = https(node, "/console/api/query", cert, {"sql": f"SELECT count(*) AS n FROM mink.kafka.{TOPIC}"},
                             basic)
        checks.expect("the console's query goes over TLS to mink-query, and from it over TLS to the node",
                      (200, [{"n": str(COUNT)}]), (status, json.loads(body).get("rows") if status == 200 else body))
    finally:
        query.terminate()
        query.wait(timeout=20)

    reload_checks(checks, node, cert, key, rest_port, basic)
    cert, _ = make_certificate(node.work, "again")  # the node's own files are broken now
    code, out = refused_start(node.mink_bin, node.work, ["--tls-cert", cert])
    checks.ok("a certificate without a key: the node does not start and says why",
              code != 0 and "TLS needs both --tls-cert and --tls-key" in out, out[-400:])
    code, out = refused_start(node.mink_bin, node.work, ["--tls-cert", cert, "--tls-key", other_key])
    checks.ok("a key of another certificate: refused, naming it",
              code != 0 and "does not belong to the certificate" in out, out[-400:])


def main():
    global QUERY_BIN
    node = minktest.node_from_argv("tls", 150, http=True, usage="path/to/mink path/to/mink-query")
    QUERY_BIN = os.path.abspath(sys.argv[2])

    def body(checks):
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "tls")


if __name__ == "__main__":
    main()
