#!/usr/bin/python3
"""Access control lists (docs/operations.md, Access control; docs/kafka.md, Access control) with
real clients against a node of the test's own started with --auth-enabled true and one super
user:

  - kafka-python's admin client (CreateAcls, DescribeAcls, DeleteAcls) grants user `writer`
    WRITE, DESCRIBE and CREATE on topic `orders`; DescribeAcls lists exactly those bindings
    (CREATE is held as ALL); `mink acl grant` gives `reader` read on the table and its group;
    `mink acl list` shows them all;
  - python3-confluent-kafka with SCRAM: `writer` produces; `reader` and `stranger` may not, get
    TOPIC_AUTHORIZATION_FAILED and write nothing; `reader` consumes every record in its group,
    is refused another group (GROUP_AUTHORIZATION_FAILED) and a topic it has no grant on;
    `stranger`'s metadata does not list the topic (kcat);
  - a user without admin on the cluster is refused CreateAcls (CLUSTER_AUTHORIZATION_FAILED);
    after DeleteAcls takes `writer`'s WRITE back, its produce is refused;
  - Flight through the mink CLI: `stranger` may not read the table (PERMISSION_DENIED naming
    it), `reader` reads it, may not create a database; `mink table list` shows each user only
    what it may see;
  - HTTP: continuous SQL statements that make things need admin on the cluster (403 for
    `reader`), SHOW needs describe on database continuous (403, then 200 once granted).

Usage: kafka_acl_test.py path/to/mink   (Debian's /usr/bin/python3)
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

(ck, kafka) = minktest.require_modules("confluent_kafka", "kafka")
from confluent_kafka import Consumer, Producer  # noqa: E402
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient, ResourcePattern,
                         ResourcePatternFilter, ResourceType)

minktest.require_tool("kcat", "kcat", "-V")

TOPIC = "orders"
COUNT = 20
PASSWORDS = {"root": "rootpw", "writer": "writerpw", "reader": "readerpw", "stranger": "strangerpw"}


def sasl(node, user):
    return {"bootstrap.servers": node.broker, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": user, "sasl.password": PASSWORDS[user]}


def admin(node, user):
    return KafkaAdminClient(bootstrap_servers=node.broker, security_protocol="SASL_PLAINTEXT",
                            sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                            sasl_plain_password=PASSWORDS[user], request_timeout_ms=10000)


def mink_as(node, user, *args):
    env = dict(os.environ, MINK_BOOTSTRAP=node.flight, MINK_USER=user, MINK_PASSWORD=PASSWORDS[user])
    return subprocess.run([node.mink_bin, *args], env=env, capture_output=True, text=True, timeout=60)


def produce(node, user, values, topic=TOPIC):
    errors = []
    p = Producer(dict(sasl(node, user), **{"linger.ms": 5, "message.timeout.ms": 6000,
                                           "error_cb": lambda e: errors.append(str(e))}))
    for v in values:
        p.produce(topic, value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = p.flush(12)
    return left, errors


def consume(node, user, group, count, topic=TOPIC, seconds=15):
    """(values read, errors the consumer reported)."""
    c = Consumer(dict(sasl(node, user), **{"group.id": group, "auto.offset.reset": "earliest",
                                           "enable.auto.commit": False}))
    c.subscribe([topic])
    got, errors = [], []
    deadline = time.monotonic() + seconds
    try:
        while len(got) < count and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                errors.append(str(m.error()))
                if len(errors) > 3:
                    break
            else:
                got.append(m.value())
    finally:
        c.close()
    return got, errors


def http(node, path, body, user):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    auth = "Basic " + base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()
    request = urllib.request.Request(f"http://{node.http_listen}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": auth})
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def binding(user, operation):
    return ACL(principal=f"User:{user}", host="*", operation=operation,
               permission_type=ACLPermissionType.ALLOW,
               resource_pattern=ResourcePattern(ResourceType.TOPIC, TOPIC, ACLResourcePatternType.LITERAL))


def error_name(error):
    """kafka-python reports a failed binding with the error's class (or an instance)."""
    return getattr(error, "__name__", type(error).__name__)


def described(bindings):
    return sorted((b.principal, b.resource_pattern.resource_type.name, b.resource_pattern.resource_name,
                   b.operation.name) for b in bindings)


def run(checks, node):
    password_file = os.path.join(node.work, "root.password")
    with open(password_file, "w") as f:
        f.write(PASSWORDS["root"] + "\n")
    node.start(extra=["--auth-enabled", "true", "--auth-bootstrap-user", "root",
                      "--auth-bootstrap-password-file", password_file, "--http-listen", node.http_listen])
    r = mink_as(node, "root", "user", "list")
    checks.expect("the bootstrap user (password from a file) is made at start", (0, "root\tSCRAM-SHA-256,SCRAM-SHA-512"),
                  (r.returncode, r.stdout.strip()))
    for user in ("writer", "reader", "stranger"):
        r = mink_as(node, "root", "user", "create", user, "--password", PASSWORDS[user])
        checks.expect(f"user {user} made by the super user", (0, ""), (r.returncode, r.stderr))
    r = mink_as(node, "writer", "user", "create", "eve", "--password", "x")
    checks.ok("a user without admin on the cluster may not make users",
              r.returncode != 0 and "may not admin the cluster" in r.stderr, r.stderr)

    # Kafka's ACL APIs.
    root = admin(node, "root")
    created = root.create_acls([binding("writer", ACLOperation.WRITE), binding("writer", ACLOperation.DESCRIBE),
                                binding("writer", ACLOperation.CREATE)])
    checks.expect("CreateAcls grants the three bindings", (3, []),
                  (len(created["succeeded"]), [str(e) for _, e in created["failed"]]))
    denied = root.create_acls([ACL(principal="User:writer", host="*", operation=ACLOperation.READ,
                                   permission_type=ACLPermissionType.DENY,
                                   resource_pattern=ResourcePattern(ResourceType.TOPIC, TOPIC,
                                                                    ACLResourcePatternType.LITERAL))])
    checks.ok("a DENY binding is refused (Mink's ACLs only allow)",
              len(denied["failed"]) == 1 and "InvalidRequest" in error_name(denied["failed"][0][1]), repr(denied))
    r = mink_as(node, "root", "acl", "grant", "reader", "read", "--table", f"kafka.{TOPIC}")
    checks.expect("mink acl grant: reader reads the table", (0, ""), (r.returncode, r.stderr))
    r = mink_as(node, "root", "acl", "grant", "reader", "read", "--group", "readers")
    checks.expect("mink acl grant: reader uses its group", (0, ""), (r.returncode, r.stderr))
    listed, error = root.describe_acls(ACLFilter(principal=None, host="*", operation=ACLOperation.ANY,
                                                 permission_type=ACLPermissionType.ANY,
                                                 resource_pattern=ResourcePatternFilter(
                                                     ResourceType.ANY, None, ACLResourcePatternType.ANY)))
    checks.expect("DescribeAcls lists every grant Kafka can name (CREATE held as ALL)",
                  sorted([("User:reader", "GROUP", "readers", "READ"), ("User:reader", "TOPIC", TOPIC, "READ"),
                          ("User:writer", "TOPIC", TOPIC, "ALL"), ("User:writer", "TOPIC", TOPIC, "DESCRIBE"),
                          ("User:writer", "TOPIC", TOPIC, "WRITE")]),
                  described(listed))
    lines = sorted(mink_as(node, "root", "acl", "list").stdout.splitlines())
    checks.expect("mink acl list shows the same grants", sorted([
        "reader\tread\tgroup:readers", f"reader\tread\ttable:kafka.{TOPIC}", f"writer\tadmin\ttable:kafka.{TOPIC}",
        f"writer\tdescribe\ttable:kafka.{TOPIC}", f"writer\twrite\ttable:kafka.{TOPIC}"]), lines)
    refused = admin(node, "writer").create_acls([binding("writer", ACLOperation.READ)])
    checks.ok("CreateAcls by a user without admin on the cluster is refused (CLUSTER_AUTHORIZATION_FAILED)",
              not refused["succeeded"] and "ClusterAuthorizationFailed" in error_name(refused["failed"][0][1]),
              repr(refused))

    # Producing and consuming with the grants.
    values = [f"order {i}".encode() for i in range(COUNT)]
    left, errors = produce(node, "writer", values)
    checks.expect("writer produces (the topic is made on first use: writer may create it)", (0, []), (left, errors))
    for user in ("reader", "stranger"):
        left, errors = produce(node, user, [b"not allowed"])
        checks.ok(f"{user} may not produce: topic authorization failed",
                  left == 0 and any("uthoriz" in e for e in errors), f"{left} {errors}")
    p = Producer(dict(sasl(node, "reader"), **{"acks": 0, "linger.ms": 5}))  # it may see the topic
    for _ in range(5):
        p.produce(TOPIC, value=b"unacknowledged reader")
    p.flush(10)
    got, errors = consume(node, "reader", "readers", COUNT)
    checks.expect("reader consumes every record in its group (reader's acks=0 produce wrote nothing)", values, got)
    got, errors = consume(node, "reader", "others", 1, seconds=8)
    checks.ok("reader may not use another group: group authorization failed",
              not got and any("roup" in e and "uthoriz" in e for e in errors), repr(errors))
    got, errors = consume(node, "stranger", "readers", 1, seconds=8)
    checks.ok("stranger reads nothing", not got, repr(got))
    kcat = subprocess.run(["kcat", "-b", node.broker, "-X", "security.protocol=SASL_PLAINTEXT",
                           "-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=stranger",
                           "-X", f"sasl.password={PASSWORDS['stranger']}", "-L", "-m", "10"],
                          capture_output=True, text=True, timeout=30)
    checks.ok("stranger's metadata does not list the topic",
              kcat.returncode == 0 and f'topic "{TOPIC}"' not in kcat.stdout, kcat.stdout + kcat.stderr)
    kcat = subprocess.run(["kcat", "-b", node.broker, "-X", "security.protocol=SASL_PLAINTEXT",
                           "-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=writer",
                           "-X", f"sasl.password={PASSWORDS['writer']}", "-L", "-m", "10"],
                          capture_output=True, text=True, timeout=30)
    checks.ok("writer's does", f'topic "{TOPIC}"' in kcat.stdout, kcat.stdout + kcat.stderr)

    # DeleteAcls takes writer's WRITE back.
    removed = root.delete_acls([ACLFilter(principal="User:writer", host="*", operation=ACLOperation.WRITE,
                                          permission_type=ACLPermissionType.ALLOW,
                                          resource_pattern=ResourcePatternFilter(
                                              ResourceType.TOPIC, TOPIC, ACLResourcePatternType.LITERAL))])
    matched = [described([acl for acl, _ in matches]) for _, matches, _ in removed]
    checks.expect("DeleteAcls answers the binding it deleted", [[("User:writer", "TOPIC", TOPIC, "WRITE")]], matched)
    # ALL (from CREATE) still includes write: take it back too, through the CLI.
    r = mink_as(node, "root", "acl", "revoke", "writer", "admin", "--table", f"kafka.{TOPIC}")
    checks.expect("mink acl revoke", (0, ""), (r.returncode, r.stderr))
    r = mink_as(node, "root", "acl", "revoke", "writer", "admin", "--table", f"kafka.{TOPIC}")
    checks.ok("revoking what is not granted says so", r.returncode != 0 and "no grant" in r.stderr, r.stderr)
    left, errors = produce(node, "writer", [b"after the revoke"])
    checks.ok("writer's produce is refused once revoked", any("uthoriz" in e for e in errors), f"{left} {errors}")
    root.close()

    # Flight through the CLI.
    r = mink_as(node, "stranger", "read", f"kafka.{TOPIC}")
    checks.ok("stranger may not read the table over Flight, and is told why",
              r.returncode != 0 and f"user stranger may not read table kafka.{TOPIC}" in r.stderr, r.stderr)
    r = mink_as(node, "reader", "read", f"kafka.{TOPIC}")
    checks.expect("reader reads the table over Flight: exactly what writer wrote", (0, COUNT),
                  (r.returncode, len(r.stdout.splitlines())))
    r = mink_as(node, "reader", "db", "create", "mine")
    checks.ok("reader may not create a database", r.returncode != 0 and "may not admin database mine" in r.stderr,
              r.stderr)
    checks.ok("and none was made", "mine" not in mink_as(node, "root", "db", "list").stdout.split())
    checks.expect("mink table list shows reader its table", [f"kafka.{TOPIC}"],
                  mink_as(node, "reader", "table", "list").stdout.split())
    checks.expect("and stranger nothing", [], mink_as(node, "stranger", "table", "list").stdout.split())

    # HTTP: continuous SQL.
    status, body = http(node, "/api/v1/sql", {"sql": f"CREATE SOURCE o FROM kafka.{TOPIC}"}, "reader")
    checks.expect("HTTP: making a continuous SQL object needs admin on the cluster (403)", 403, status)
    status, body = http(node, "/api/v1/sql", {"sql": "SHOW SOURCES"}, "reader")
    checks.expect("HTTP: SHOW without describe on database continuous is 403", 403, status)
    mink_as(node, "root", "acl", "grant", "reader", "describe", "--database", "continuous")
    status, body = http(node, "/api/v1/sql", {"sql": "SHOW SOURCES"}, "reader")
    checks.expect("HTTP: and 200 once granted", 200, status)


def main():
    node = minktest.node_from_argv("kafka-acl", 170, http=True)

    def body(checks):
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "kafka_acl")


if __name__ == "__main__":
    main()
