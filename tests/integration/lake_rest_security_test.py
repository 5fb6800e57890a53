#!/usr/bin/python3
"""The Iceberg REST catalog loses no table to a catalog call (issue: a node on an open network,
hole 3). A node of the test's own with --auth-enabled true, a bootstrap super user admin, and
--iceberg-rest-listen; a tiered Mink table shop.bills (two rows in the lake); user engine with
admin on database ext only, user reader with describe on shop.bills only. Everything below is a
plain HTTP client (urllib) against the catalog, as a stranger or an engine would call it.

  - Without credentials, or with a made-up token, every route is 401 NotAuthorizedException.
  - POST /v1/oauth/tokens (OAuth2): client credentials in the body or as Basic give a bearer
    token that works; a wrong secret is 401 invalid_client; an unknown grant 400
    unsupported_grant_type; token exchange renews a token.
  - Access control: reader lists only namespace shop and only table bills, may load it, may not
    create a namespace or a table (403); engine may create namespace ext.raw and its tables, may
    not drop or commit to shop.bills (403).
  - Locations: a table at shop.bills's location, under it, or at another engine table's is
    refused 400, as is registering shop.bills's own metadata file under another name.
  - Purge: dropping an engine table with purgeRequested deletes the files its metadata names
    (its metadata file is gone) and nothing else: a file of someone else's under its location
    stays, and shop.bills's union read still has its rows.
  - Pagination: pageToken and pageSize page the table list; without pageToken it is whole.

Usage: lake_rest_security_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import base64
import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

PASSWORDS = {"admin": "admin-pw-1", "engine": "engine-pw-2", "reader": "reader-pw-3"}
SCHEMA = {"type": "struct", "schema-id": 0,
          "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}


def mink_as(node, user, *args, input=None):
    return node.mink_as(user, PASSWORDS[user], *args, input=input)


class Rest:
    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None, authorization=None, form=None):
        """(status, parsed JSON body or text)."""
        headers = {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if authorization:
            headers["Authorization"] = authorization
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=15) as r:
                text = r.read().decode()
                status = r.status
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            status = e.code
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text

    def token(self, user, password=None):
        status, answer = self.call("POST", "/v1/oauth/tokens", form={
            "grant_type": "client_credentials", "client_id": user, "client_secret": password or PASSWORDS[user]})
        if status != 200:
            raise RuntimeError(f"token for {user}: {status} {answer}")
        return "Bearer " + answer["access_token"]


def error_type(answer):
    return answer.get("error", {}).get("type") if isinstance(answer, dict) else answer


def body(node, checks):
    node.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = PASSWORDS["admin"]
    rest_port = minktest.free_port()
    node.start(extra=["--auth-enabled", "true", "--auth-bootstrap-user", "admin",
                      "--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
    rest = Rest(f"http://127.0.0.1:{rest_port}")
    for user in ("engine", "reader"):
        mink_as(node, "admin", "user", "create", user, "--password", PASSWORDS[user])
    mink_as(node, "admin", "db", "create", "shop")
    mink_as(node, "admin", "table", "create", "shop.bills", "-C", "id BIGINT NOT NULL", "-C", "amount BIGINT",
            "--primary-key", "id", "--lake", "iceberg", "--lake-freshness", "2s")
    mink_as(node, "admin", "write", "shop.bills", input='{"id": 1, "amount": 10}\n{"id": 2, "amount": 20}\n')
    mink_as(node, "admin", "acl", "grant", "engine", "admin", "--database", "ext")
    mink_as(node, "admin", "acl", "grant", "reader", "describe", "--table", "shop.bills")

    def lake_snapshot():
        return json.loads(mink_as(node, "admin", "table", "lake-snapshot", "shop.bills", "--format", "json").stdout)
    checks.ok("shop.bills is tiered", minktest.wait_until(20, lambda: lake_snapshot()["snapshot_id"] != 0, 0.2))
    bills_metadata = lake_snapshot()["metadata_location"]
    bills_location = bills_metadata.rsplit("/metadata/", 1)[0]

    # ---- Strangers.
    for method, path in (("GET", "/v1/config"), ("GET", "/v1/namespaces"), ("GET", "/v1/namespaces/shop/tables/bills"),
                         ("DELETE", "/v1/namespaces/shop/tables/bills?purgeRequested=true")):
        for who, authorization in (("no credentials", None), ("a made-up token", "Bearer mink1.eA.9999999999999.eA")):
            status, answer = rest.call(method, path, authorization=authorization)
            checks.expect(f"{who}: {method} {path} is 401", (401, "NotAuthorizedException"),
                          (status, error_type(answer)))

    # ---- The OAuth2 token endpoint.
    engine = rest.token("engine")
    checks.expect("a token from client credentials works", 200, rest.call("GET", "/v1/config", authorization=engine)[0])
    basic = "Basic " + base64.b64encode(f"reader:{PASSWORDS['reader']}".encode()).decode()
    status, answer = rest.call("POST", "/v1/oauth/tokens", form={"grant_type": "client_credentials"},
                               authorization=basic)
    checks.expect("client credentials as Basic give a bearer token", (200, "bearer"),
                  (status, answer.get("token_type") if isinstance(answer, dict) else answer))
    reader = "Bearer " + answer["access_token"]
    status, answer = rest.call("POST", "/v1/oauth/tokens", form={
        "grant_type": "client_credentials", "client_id": "engine", "client_secret": "wrong"})
    checks.expect("a wrong secret is 401 invalid_client", (401, "invalid_client"),
                  (status, answer.get("error") if isinstance(answer, dict) else answer))
    status, answer = rest.call("POST", "/v1/oauth/tokens", form={"grant_type": "password", "username": "engine"})
    checks.expect("another grant is 400 unsupported_grant_type", (400, "unsupported_grant_type"),
                  (status, answer.get("error") if isinstance(answer, dict) else answer))
    status, answer = rest.call("POST", "/v1/oauth/tokens", form={
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": engine.split(" ", 1)[1],
        "subject_token_type": "urn:ietf:params:oauth:token-type:access_token"})
    checks.ok("token exchange renews a token", status == 200 and rest.call(
        "GET", "/v1/config", authorization="Bearer " + answer["access_token"])[0] == 200, f"{status} {answer}")

    # ---- Access control.
    status, answer = rest.call("GET", "/v1/namespaces", authorization=reader)
    checks.expect("reader lists only namespace shop", (200, [["shop"]]), (status, answer.get("namespaces")))
    status, answer = rest.call("GET", "/v1/namespaces/shop/tables", authorization=reader)
    checks.expect("reader lists shop.bills", (200, ["bills"]), (status, [i["name"] for i in answer["identifiers"]]))
    checks.expect("reader loads shop.bills", 200, rest.call("GET", "/v1/namespaces/shop/tables/bills",
                                                             authorization=reader)[0])
    status, answer = rest.call("POST", "/v1/namespaces", {"namespace": ["shop2"]}, authorization=reader)
    checks.expect("reader may not create a namespace (403)", (403, "ForbiddenException"), (status, error_type(answer)))
    status, answer = rest.call("POST", "/v1/namespaces/shop/tables", {"name": "x", "schema": SCHEMA},
                               authorization=reader)
    checks.expect("reader may not create a table (403)", (403, "ForbiddenException"), (status, error_type(answer)))
    status, answer = rest.call("POST", "/v1/namespaces", {"namespace": ["ext", "raw"]}, authorization=engine)
    checks.expect("engine creates namespace ext.raw", 200, status)
    status, answer = rest.call("GET", "/v1/namespaces", authorization=engine)
    checks.expect("engine lists only namespace ext", (200, [["ext"]]), (status, answer.get("namespaces")))
    status, answer = rest.call("DELETE", "/v1/namespaces/shop/tables/bills", authorization=engine)
    checks.expect("engine may not drop shop.bills (403)", (403, "ForbiddenException"), (status, error_type(answer)))
    status, answer = rest.call("POST", "/v1/namespaces/shop/tables/bills",
                               {"requirements": [], "updates": [{"action": "set-location", "location": "x"}]},
                               authorization=engine)
    checks.expect("engine may not commit to shop.bills (403)", (403, "ForbiddenException"), (status, error_type(answer)))

    # ---- Locations.
    raw = "/v1/namespaces/ext\x1fraw/tables".replace("\x1f", "%1F")
    for what, location in (("at shop.bills's location", bills_location),
                           ("under shop.bills's location", bills_location + "/data/mine")):
        status, answer = rest.call("POST", raw, {"name": "stolen", "schema": SCHEMA, "location": location},
                                   authorization=engine)
        checks.expect(f"a table {what} is refused (400)", (400, "BadRequestException", True),
                      (status, error_type(answer), "overlaps" in json.dumps(answer)))
    status, answer = rest.call("POST", "/v1/namespaces/ext%1Fraw/register",
                               {"name": "stolen", "metadata-location": bills_metadata}, authorization=engine)
    checks.expect("registering shop.bills's metadata under another name is refused (400)",
                  (400, "BadRequestException", True), (status, error_type(answer), "overlaps" in json.dumps(answer)))
    status, answer = rest.call("POST", raw, {"name": "events", "schema": SCHEMA}, authorization=engine)
    checks.expect("engine creates ext.raw.events at its default location", 200, status)
    events_metadata = answer["metadata-location"]
    events_location = answer["metadata"]["location"]
    status, answer = rest.call("POST", raw, {"name": "other", "schema": SCHEMA, "location": events_location},
                               authorization=engine)
    checks.expect("a table at ext.raw.events's location is refused (400)", 400, status)

    # ---- Pagination.
    for name in ("a1", "a2"):
        rest.call("POST", raw, {"name": name, "schema": SCHEMA}, authorization=engine)
    status, whole = rest.call("GET", raw, authorization=engine)
    checks.expect("without pageToken: every table, no next page", (["a1", "a2", "events"], None),
                  ([i["name"] for i in whole["identifiers"]], whole["next-page-token"]))
    status, first = rest.call("GET", raw + "?pageToken=&pageSize=2", authorization=engine)
    status2, second = rest.call("GET", raw + "?pageToken=" + urllib.parse.quote(str(first["next-page-token"])) +
                                "&pageSize=2", authorization=engine)
    checks.expect("pageSize 2: two pages", (["a1", "a2"], ["events"], None),
                  ([i["name"] for i in first["identifiers"]], [i["name"] for i in second["identifiers"]],
                   second["next-page-token"]))
    status, answer = rest.call("GET", raw + "?pageToken=zz", authorization=engine)
    checks.expect("a token it did not give is 400", 400, status)

    # ---- Purge: only what the dropped table's metadata names.
    events_dir = urllib.parse.urlsplit(events_location).path
    stray = os.path.join(events_dir, "not-iceberg.txt")
    with open(stray, "w") as f:
        f.write("someone else's\n")
    status, _ = rest.call("DELETE", "/v1/namespaces/ext%1Fraw/tables/events?purgeRequested=true", authorization=engine)
    checks.expect("engine drops ext.raw.events with a purge", 204, status)
    checks.ok("the purge deleted its metadata file", not os.path.exists(urllib.parse.urlsplit(events_metadata).path))
    checks.ok("a file its metadata does not name stays", os.path.exists(stray))
    rows = mink_as(node, "admin", "read", "shop.bills", "--mode", "union").stdout
    checks.expect("shop.bills's union read still has its two rows", 2, len(rows.splitlines()))
    checks.ok("shop.bills's metadata file is still there", os.path.exists(urllib.parse.urlsplit(bills_metadata).path))


def main():
    node = minktest.node_from_argv("lake-rest-security", 200)
    minktest.run_on_node(node, lambda checks: body(node, checks), "lake_rest_security")


if __name__ == "__main__":
    main()
