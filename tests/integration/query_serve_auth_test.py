#!/usr/bin/python3
"""`mink-query serve` reads as its callers (issue: a node on an open network, hole 2). A node of
the test's own with --auth-enabled true and a bootstrap super user root; user reader with read on
shop.orders and describe on secret.salaries; nothing on secret.bonuses, nor on database hidden. `mink-query serve` runs with
root's credentials in its environment (as an operator would have set them for `mink-query
exec`): they must not be what its callers read with.

An independent Flight SQL client (tests/node/flight_sql_auth_client.js, @grpc/grpc-js) then
checks: no credentials, a wrong password, an unknown user and a made-up token are refused
UNAUTHENTICATED; reader reads shop.orders, is refused secret.salaries and secret.bonuses
(PERMISSION_DENIED naming them) and does not find hidden.things; root reads them; the Flight handshake answers a bearer token that reads as reader; one caller can
neither run, close nor read another's prepared statement or ticket; an authenticated caller may
not leave a DuckDB table behind for the next (PERMISSION_DENIED) nor read a file.

Usage: query_serve_auth_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_tool("node", "node", "--version")
minktest.require_node_modules("@grpc/grpc-js", "apache-arrow", "protobufjs")
CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "flight_sql_auth_client.js")
PASSWORDS = {"root": "root-pw-1", "reader": "reader-pw-2"}


def mink_as(node, user, *args, input=None):
    return node.mink_as(user, PASSWORDS[user], *args, input=input)


def body(node, query_bin, checks):
    password_file = os.path.join(node.work, "root.password")
    with open(password_file, "w") as f:
        f.write(PASSWORDS["root"] + "\n")
    node.start(extra=["--auth-enabled", "true", "--auth-bootstrap-user", "root",
                      "--auth-bootstrap-password-file", password_file])
    mink_as(node, "root", "user", "create", "reader", "--password", PASSWORDS["reader"])
    for db in ("shop", "secret", "hidden"):
        mink_as(node, "root", "db", "create", db)
    mink_as(node, "root", "table", "create", "shop.orders", "-C", "id BIGINT NOT NULL", "-C", "region STRING")
    mink_as(node, "root", "table", "create", "secret.salaries", "-C", "name STRING", "-C", "amount BIGINT")
    mink_as(node, "root", "write", "shop.orders", input='{"id": 1, "region": "us"}\n{"id": 2, "region": "eu"}\n')
    mink_as(node, "root", "write", "secret.salaries", input='{"name": "ada", "amount": 100}\n')
    mink_as(node, "root", "table", "create", "secret.bonuses", "-C", "name STRING", "-C", "amount BIGINT")
    mink_as(node, "root", "table", "create", "hidden.things", "-C", "name STRING")
    mink_as(node, "root", "acl", "grant", "reader", "read", "--table", "shop.orders")
    # reader may see that secret.salaries exists, not read it; secret.bonuses it may not even see.
    mink_as(node, "root", "acl", "grant", "reader", "describe", "--table", "secret.salaries")

    port = minktest.free_port()
    log_path = os.path.join(node.work, "serve.log")
    env = dict(os.environ, MINK_BOOTSTRAP=node.flight, MINK_USER="root", MINK_PASSWORD=PASSWORDS["root"])
    with open(log_path, "ab") as log:
        serve = subprocess.Popen([query_bin, "serve", "--listen", f"127.0.0.1:{port}"], env=env,
                                 stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        started = minktest.wait_until(30, lambda: "Flight SQL on" in open(log_path, errors="replace").read()
                                      or serve.poll() is not None)
        checks.ok("mink-query serve starts", started and serve.poll() is None, open(log_path, errors="replace").read())
        r = subprocess.run(["node", CLIENT, str(port), PASSWORDS["root"], PASSWORDS["reader"]],
                           capture_output=True, text=True, timeout=120)
        for line in r.stdout.splitlines():
            print(line)
        checks.expect("flight_sql_auth_client.js: every check", (0, ""), (r.returncode, r.stderr.strip()[-2000:]))
        lines = [x for x in r.stdout.splitlines() if x.startswith("ok: ")]
        checks.expect("the client got through all its 19 checks", 19, len(lines))
    finally:
        serve.send_signal(2)
        try:
            serve.wait(timeout=10)
        except subprocess.TimeoutExpired:
            serve.kill()
    rows = mink_as(node, "root", "read", "secret.salaries").stdout
    checks.ok("secret.salaries is unchanged", '"ada"' in rows and rows.count("\n") == 1, rows)


def main():
    node = minktest.node_from_argv("query-serve-auth", 240, usage="path/to/mink path/to/mink-query")
    query_bin = os.path.abspath(sys.argv[2])
    minktest.run_on_node(node, lambda checks: body(node, query_bin, checks), "query_serve_auth")


if __name__ == "__main__":
    main()
