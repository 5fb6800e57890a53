#!/usr/bin/python3
"""JSON of the wrong shape, sent by a stranger to a node started with its defaults (no
authentication) plus --iceberg-rest-listen: each request is refused with its protocol's error
for bad input, naming the member, the node stays up, and nothing it aimed at changed.

  - Flight (@grpc/grpc-js, tests/node/flight_calls.js): members of the wrong type or beyond their
    range in action bodies, a ticket and a DoPut command end INVALID_ARGUMENT. Before, a
    create-user with "replace": "yes" threw out of the handler (UNKNOWN "Unexpected error"), a
    bucket_count of 2^32 + 1 made a table of one bucket, and a ticket's bucket 2^32 read bucket 0.
  - Iceberg REST: namespace, table, commit and transaction bodies of the wrong shape are 400
    BadRequestException, not a 500 from an exception.

Usage: malformed_json_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_node_modules("@grpc/grpc-js", "protobufjs")
CALLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "flight_calls.js")
INVALID_ARGUMENT = 3


def flight_calls(port, calls):
    r = subprocess.run(["node", CALLS, str(port), json.dumps(calls)], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"flight_calls.js: {r.returncode}: {r.stderr[-1500:]}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def rest_call(base, method, path, body=None):
    """(status, parsed JSON body or text)."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=15) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode(errors="replace")
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text


def flight_checks(node, checks):
    node.mink("db", "create", "shop")
    node.mink("table", "create", "shop.orders", "-C", "id BIGINT NOT NULL", "-C", "amount BIGINT",
              "--primary-key", "id")
    node.mink("write", "shop.orders", input='{"id": 1, "amount": 10}\n')
    bad = [
        ({"call": "DoAction", "type": "create-user",
          "body": '{"name": "mallory", "password": "x", "replace": "yes"}'}, "replace"),
        ({"call": "DoAction", "type": "create-table",
          "body": '{"table": "shop.wide", "columns": ["id BIGINT"], "bucket_count": 4294967297}'}, "bucket_count"),
        ({"call": "DoAction", "type": "create-table",
          "body": '{"table": "shop.opts", "columns": ["id BIGINT"], "options": {"table.log.ttl": 7}}'}, "options"),
        ({"call": "DoAction", "type": "alter-table",
          "body": '{"table": "shop.orders", "set_options": {"table.log.ttl": ["7d"]}}'}, "set_options"),
        ({"call": "DoAction", "type": "drop-database", "body": '{"name": "shop", "cascade": "true"}'}, "cascade"),
        ({"call": "DoAction", "type": "create-database", "body": '["shop2"]'}, "JSON object"),
        ({"call": "DoGet", "ticket": '{"table": "shop.orders", "bucket": 4294967296}'}, "bucket"),
        ({"call": "DoGet", "ticket": '{"table": "shop.orders", "limit": 18446744073709551615}'}, "limit"),
        ({"call": "DoPut", "cmd": '{"table": "shop.orders", "writer_id": 1, "sequence": 4294967296}'}, "sequence"),
        ({"call": "DoPut", "cmd": '{"table": "shop.orders", "columns": "id"}'}, "columns"),
    ]
    answers = flight_calls(node.flight_port, [call for call, _ in bad])
    checks.expect("every malformed Flight call is answered", len(bad), len(answers))
    for (call, member), answer in zip(bad, answers):
        checks.ok(f"Flight {answer['call']} with a malformed {member}: INVALID_ARGUMENT naming it",
                  answer["code"] == INVALID_ARGUMENT and member in answer["details"], answer)
    alive = flight_calls(node.flight_port, [{"call": "DoAction", "type": "list-databases", "body": "{}"}])
    checks.expect("the node answers after them", 0, alive[0]["code"])
    users = node.mink("user", "list", check=False)
    checks.ok("no user mallory was made", "mallory" not in users.stdout, users.stdout)
    tables = node.mink("table", "list", "shop").stdout
    checks.ok("no table was made", "wide" not in tables and "opts" not in tables, tables)
    checks.ok("shop is still there", "shop" in node.mink("db", "list").stdout)
    rows = node.mink("read", "shop.orders", "--mode", "snapshot").stdout
    checks.expect("shop.orders' row is unchanged", ['{"id":1,"amount":10}'], [r.replace(" ", "") for r in rows.split()])


def rest_checks(base, checks):
    schema = {"type": "struct", "fields": [{"id": 1, "name": "x", "required": False, "type": "long"}]}
    bad = [
        ("POST", "/v1/namespaces", {"namespace": ["ext"], "properties": 5}, "properties"),
        ("POST", "/v1/namespaces", {"namespace": "ext"}, "namespace"),
    ]
    setup = [
        ("POST", "/v1/namespaces", {"namespace": ["ext"]}),
        ("POST", "/v1/namespaces/ext/tables", {"name": "e", "schema": schema}),
    ]
    for method, path, body in setup:
        status, answer = rest_call(base, method, path, body)
        checks.expect(f"REST {method} {path} (well formed) is 200", 200, status)
    _, before = rest_call(base, "GET", "/v1/namespaces/ext/tables/e")
    bad += [
        ("POST", "/v1/namespaces/ext/properties", {"removals": [1]}, "removals"),
        ("POST", "/v1/namespaces/ext/properties", {"updates": {"k": 1}}, "property k"),
        ("POST", "/v1/namespaces/ext/tables", {"name": "f", "schema": schema, "stage-create": "yes"}, "stage-create"),
        ("POST", "/v1/namespaces/ext/tables", {"name": "f", "schema": schema, "location": 7}, "location"),
        ("POST", "/v1/namespaces/ext/tables/e", {"requirements": [{"type": 1}], "updates": []}, "requirements"),
        ("POST", "/v1/namespaces/ext/tables/e", {"requirements": [], "updates": [7]}, "updates"),
        ("POST", "/v1/namespaces/ext/tables/e",
         {"updates": [{"action": "add-schema", "schema": {"type": "struct", "fields": [
             {"id": 2, "name": "y", "required": False, "type": {"type": 7}}]}}]}, "schema"),
        ("POST", "/v1/namespaces/ext/tables/e",
         {"updates": [{"action": "add-spec", "spec": {"fields": [
             {"source-id": 1, "transform": "identity", "name": "x", "field-id": "1000"}]}}]}, "field-id"),
        ("POST", "/v1/transactions/commit", {"table-changes": [5]}, "table-changes"),
        ("POST", "/v1/tables/rename", {"source": {"namespace": ["ext"], "name": 1}, "destination": {}}, "source"),
        ("POST", "/v1/namespaces/ext/register", {"name": "g", "metadata-location": 5}, "metadata-location"),
    ]
    for method, path, body, member in bad:
        status, answer = rest_call(base, method, path, body)
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        checks.ok(f"REST {method} {path} with a malformed {member}: 400 BadRequestException naming it",
                  status == 400 and error.get("type") == "BadRequestException" and member in error.get("message", ""),
                  f"{status} {answer}")
    _, after = rest_call(base, "GET", "/v1/namespaces/ext/tables/e")
    checks.expect("ext.e's metadata is unchanged", before.get("metadata-location"), after.get("metadata-location"))
    status, _ = rest_call(base, "GET", "/v1/namespaces/ext/tables/f")
    checks.expect("no table ext.f was made", 404, status)


def body(node, checks):
    rest_port = minktest.free_port()
    while rest_port in (node.flight_port, node.kafka_port):
        rest_port = minktest.free_port()
    node.start(extra=["--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
    flight_checks(node, checks)
    rest_checks(f"http://127.0.0.1:{rest_port}", checks)


def main():
    node = minktest.node_from_argv("malformed-json", 150)
    minktest.run_on_node(node, lambda checks: body(node, checks), "malformed_json")


if __name__ == "__main__":
    main()
