#!/usr/bin/python3
"""The token-signing secret is given to the node, never stored (issue: a node on an open network,
hole 5). A node of the test's own with authentication, a bootstrap user, --auth-token-secret-file
A and the Iceberg REST catalog (whose OAuth2 endpoint hands out the node's tokens):

  - a token from the node works over Flight (`mink db list` with MINK_TOKEN);
  - neither secret A nor any "secret" field is in the metadata database or the object store;
  - a rotation: restarted with secret B and A as --auth-previous-token-secret-file, the old token
    still works and a new one too; restarted with B alone, the old token is refused and the new
    one works;
  - a node on PostgreSQL metadata (a cluster) with authentication and no secret does not start,
    and says which setting it needs.

Usage: auth_secret_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

PASSWORD = "admin-pw-9"
SECRET_A = "a" * 20 + "-first-secret-of-the-test"
SECRET_B = "b" * 20 + "-second-secret-of-the-test"


def token(rest_url):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "admin",
                                   "client_secret": PASSWORD}).encode()
    request = urllib.request.Request(rest_url + "/v1/oauth/tokens", data=form,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())["access_token"]


def works(node, bearer):
    """Whether `mink db list` with the token succeeds, and what it printed."""
    env = dict(os.environ, MINK_BOOTSTRAP=node.flight, MINK_TOKEN=bearer)
    r = subprocess.run([node.mink_bin, "db", "list"], env=env, capture_output=True, text=True, timeout=30)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def files_containing(root, needles):
    found = []
    for base, _, names in os.walk(root):
        for name in names:
            try:
                found += files_containing_file(os.path.join(base, name), needles)
            except OSError:
                continue
    return found


def body(node, checks):
    secret_a = os.path.join(node.work, "secret-a")
    secret_b = os.path.join(node.work, "secret-b")
    for path, secret in ((secret_a, SECRET_A), (secret_b, SECRET_B)):
        with open(path, "w") as f:
            f.write(secret + "\n")
    rest_port = minktest.free_port()
    rest_url = f"http://127.0.0.1:{rest_port}"
    node.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = PASSWORD
    common = ["--auth-enabled", "true", "--auth-bootstrap-user", "admin", "--iceberg-rest-listen", f"127.0.0.1:{rest_port}"]
    node.start(extra=[*common, "--auth-token-secret-file", secret_a])
    old = token(rest_url)
    ok, out = works(node, old)
    checks.ok("a token signed with secret A works over Flight", ok, out)
    needles = [SECRET_A, "cluster_secret", "cluster.secret"]
    checks.expect("the metadata database and the object store hold no secret", [],
                  files_containing(os.path.join(node.work, "objects"), needles) +
                  [f for p in (f"{node.work}/meta.db", f"{node.work}/meta.db-wal") if os.path.exists(p)
                   for f in files_containing_file(p, needles)])

    checks.expect("A stops", 0, node.stop())
    node.flags = ["--kafka-default-partitions", "1", *common, "--auth-token-secret-file", secret_b,
                  "--auth-previous-token-secret-file", secret_a]
    node.restart()
    ok, out = works(node, old)
    checks.ok("during the rotation (B, A previous): A's token still works", ok, out)
    new = token(rest_url)
    ok, out = works(node, new)
    checks.ok("during the rotation: a new token (B) works", ok, out)

    checks.expect("the rotation's node stops", 0, node.stop())
    node.flags = ["--kafka-default-partitions", "1", *common, "--auth-token-secret-file", secret_b]
    node.restart()
    ok, out = works(node, old)
    checks.ok("after the rotation (B alone): A's token is refused", not ok and "invalid or expired token" in out, out)
    ok, out = works(node, new)
    checks.ok("after the rotation: B's token works", ok, out)

    meta_url, storage = minktest.cluster_stores()
    r = subprocess.run([node.mink_bin, "serve", "--listen", "127.0.0.1:0", "--kafka-listen", "", "--meta-url", meta_url,
                        "--storage-uri", storage, "--auth-enabled", "true"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, MINK_AUTH_TOKEN_SECRET=""))
    checks.ok("a cluster node with authentication and no secret does not start, naming the setting",
              r.returncode != 0 and "--auth-token-secret-file" in r.stdout + r.stderr, (r.stdout + r.stderr)[-500:])


def files_containing_file(path, needles):
    data = open(path, "rb").read()
    return [f"{path}: {n!r}" for n in needles if n.encode() in data]


def main():
    node = minktest.node_from_argv("auth-secret", 200)
    minktest.run_on_node(node, lambda checks: body(node, checks), "auth_secret")


if __name__ == "__main__":
    main()
