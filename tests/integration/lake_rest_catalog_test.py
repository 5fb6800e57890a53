#!/usr/bin/python3
"""Tiering into an external Iceberg REST catalog (`lake.catalog = rest`, docs/lake.md, Catalogs).
Node A is the external catalog: a Mink node serving its built-in catalog over the Iceberg REST
API (--iceberg-rest-listen, authentication on: B logs in at A's OAuth2 token endpoint, POST
/v1/oauth/tokens, with A's user as its client credentials). Node B, with metadata and storage of
its own,
tiers its `--lake iceberg` tables into A's catalog:

    mink serve ... --lake-catalog rest --lake-uri http://127.0.0.1:<A's port> \\
        --lake-warehouse <A's storage URI>      # and MINK_LAKE_CREDENTIAL=lake:<password>

(so the tables' locations are in A's warehouse, <A's storage URI>/lake, which both nodes reach as
file://).

  1. The quick start's Lakehouse section, verbatim, on B: a lake snapshot within ~10 s, the union
     read and SQL one row (amount 11.00); A's catalog (GET /v1/namespaces/shop/tables/bills with
     the bearer token) has the table in its warehouse, at B's snapshot, with mink-offsets
     {"b0": 3}; icebird (npm) reading A's metadata file has the union read's row.
  2. A primary-key table over three buckets (shop.ledger): rounds of upserts and deletes; after
     each, B's union read equals its KV snapshot read and, once the lake caught up, icebird on A's
     current metadata equals them.
  3. Three SIGKILLs of B at random points under a writer to shop.ledger, a restart each time:
     once caught up, union read == snapshot read == icebird on A's current metadata, and the
     catalog's snapshot chain is linear with no bucket's mink-offsets going backwards. Random
     kills almost never land between the catalog commit and B's record of it, so one more kill
     is made to: B restarts with its lake.uri on a proxy of the test's own (CommitCutter) that
     SIGKILLs B as A answers a commit; restarted (on A directly), B adopts that snapshot, and
     the reads, icebird and the chain agree as above.
  4. A stopped catalog: B serves reads and writes, tiering logs a warning; A back, B's lake
     catches up and icebird on A's current metadata has the snapshot read's rows.
  5. Other engines' commits in the external catalog: B tiers the log table shop.feed (rows
     1..5); while B is stopped another engine (iceberg_engine.py) appends rows 100..102 and then
     103..105 to it in A's catalog, keeping mink-offsets. Restarted, B writes rows 6..8 and adopts
     both snapshots before its next round: its log lists both adoptions, its union read has rows
     1..8 and 100..105 (the log read 1..8), icebird on A's current metadata agrees, and A's chain
     is linear with mink-offsets never going back.
The random seed is printed (MINK_TEST_SEED repeats a run).

Usage: lake_rest_catalog_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

TOKEN = None  # a token of A's user, from A's OAuth2 token endpoint (main)
A_USER, A_PASSWORD = "lake", "lake-password-1"
ROW = {"id": 1, "region": "us", "amount": 11.0}
KILLS = 3
ICEBIRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "icebird_read.mjs")
T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


class Catalog:
    """A's Iceberg REST catalog, as a plain HTTP client with the bearer token."""

    def __init__(self, url):
        self.url = url

    def load(self, table):
        """GET /v1/namespaces/shop/tables/<table>: the LoadTableResult."""
        request = urllib.request.Request(f"{self.url}/v1/namespaces/shop/tables/{table}",
                                         headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())


def oauth_token(url):
    """A bearer token of A's user from A's catalog (OAuth2 client credentials, as Iceberg clients get one)."""
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": A_USER,
                                   "client_secret": A_PASSWORD, "scope": "catalog"}).encode()
    request = urllib.request.Request(f"{url}/v1/oauth/tokens", data=form,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=10) as r:
        answer = json.loads(r.read())
    assert answer["token_type"] == "bearer" and answer["access_token"], answer
    return answer["access_token"]


class CommitCutter:
    """A loopback TCP proxy in front of A's REST port that, once armed, lets the next commit to
    shop.ledger (POST .../namespaces/shop/tables/ledger) reach A and SIGKILLs B the moment A's
    answer arrives, before B reads it: the catalog has the snapshot, B has not recorded it (the
    crash between the two commits, made certain). Unarmed, bytes pass both ways."""

    REQUEST = b"/namespaces/shop/tables/ledger HTTP/1.1"

    def __init__(self, upstream_port, node):
        self.upstream_port, self.node = upstream_port, node
        self.armed = threading.Event()
        self.cut = threading.Event()
        self.answer = b""
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            state = {"commit": False}
            threading.Thread(target=self.pump, args=(client, server, state, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(server, client, state, False), daemon=True).start()

    def pump(self, src, dst, state, from_client):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if from_client and data.startswith(b"POST ") and self.REQUEST in data.split(b"\r\n", 1)[0]:
                    state["commit"] = self.armed.is_set()
                elif not from_client and state["commit"]:
                    self.node.proc.kill()   # SIGKILL before B sees the catalog's answer
                    self.answer = data.split(b"\r\n", 1)[0]
                    self.armed.clear()
                    self.cut.set()
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()


def icebird_read(metadata_location):
    """icebird (tests/node/icebird_read.mjs) reading the table of `metadata_location` at that
    metadata file (tables committed through a REST catalog have no version-hint.text)."""
    path = urllib.parse.urlsplit(metadata_location).path
    table_dir = os.path.dirname(os.path.dirname(path))
    r = subprocess.run(["node", ICEBIRD, table_dir, os.path.basename(path)], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"icebird_read.mjs {metadata_location}: {r.stderr.strip()[-2000:]}")
    return minktest.sorted_rows(r.stdout)


def lake_snapshot(node, table):
    return json.loads(node.mink("table", "lake-snapshot", table, "--format", "json").stdout)


def as_numbers(rows):
    """icebird turns decimals into JS numbers (160.003 reads as 160.00300000000001): amounts
    compared rounded to the column's scale."""
    return None if rows is None else [dict(r, amount=round(float(r["amount"]), 3)) for r in rows]


def seed_section(checks, b, query_bin):
    """The quick start's Lakehouse section, verbatim, on B."""
    b.mink("db", "create", "shop")
    r = b.mink("table", "create", "shop.bills", "-C", "id BIGINT NOT NULL", "-C", "region STRING",
               "-C", "amount DECIMAL(10,2)", "--primary-key", "id", "--lake", "iceberg",
               "--lake-freshness", "5s")
    checks.expect("B: mink table create ... --lake iceberg --lake-freshness 5s", "", r.stdout)
    r = b.mink("write", "shop.bills",
               input='{"id": 1, "region": "us", "amount": "10.50"}\n'
                     '{"id": 1, "region": "us", "amount": "11.00"}\n')
    checks.expect("B: mink write shop.bills", ("", ""), (r.stdout, r.stderr))
    started = time.monotonic()
    tiered = minktest.wait_until(10, lambda: lake_snapshot(b, "shop.bills")["snapshot_id"] != 0, interval=0.2)
    checks.ok("B: a lake snapshot in the REST catalog within ~10 s", tiered,
              f"none after {time.monotonic() - started:.1f} s; B's log:\n{b.log_tail(15)}")
    log(f"shop.bills tiered after {time.monotonic() - started:.1f} s")
    lake = lake_snapshot(b, "shop.bills")
    checks.expect("B: lake-snapshot: bucket b0 tiered to offset 3 (+I, -U, +U)",
                  [{"bucket": "b0", "offset": 3}], lake["buckets"])
    text = b.mink("table", "lake-snapshot", "shop.bills", "--format", "text").stdout.splitlines()
    checks.expect("B: lake-snapshot names the snapshot id and the bucket's offset",
                  (["snapshot", str(lake["snapshot_id"])], ["b0", "tiered", "to", "offset", "3"]),
                  (text[0].split(), text[-1].split()) if text else text)
    r = b.mink("read", "shop.bills", "--mode", "union")
    checks.expect("B: mink read shop.bills --mode union", [ROW], [json.loads(line) for line in r.stdout.splitlines()])
    q = subprocess.run([query_bin, "exec", "-e", "SELECT id, region, amount FROM mink.shop.bills"],
                       env=dict(os.environ, MINK_BOOTSTRAP=b.flight), capture_output=True, text=True, timeout=120)
    checks.expect("B: mink-query exec -e \"SELECT id, region, amount FROM mink.shop.bills\"",
                  [ROW], [json.loads(line) for line in q.stdout.splitlines()] if q.returncode == 0 else q.stderr.strip())
    return lake


def catalog_has_bills(checks, catalog, warehouse, lake):
    """A's catalog has shop.bills as B tiered it."""
    loaded = catalog.load("bills")
    metadata = loaded["metadata"]
    checks.expect("A's catalog: shop.bills's current snapshot is B's lake snapshot", lake["snapshot_id"],
                  metadata.get("current-snapshot-id"))
    checks.expect("A's catalog: its metadata location is the one B recorded", lake["metadata_location"],
                  loaded.get("metadata-location"))
    snap = [s for s in metadata.get("snapshots", []) if s["snapshot-id"] == metadata.get("current-snapshot-id")]
    checks.expect("A's catalog: the snapshot's summary has mink-offsets {\"b0\": 3}", {"b0": 3},
                  json.loads(snap[0]["summary"]["mink-offsets"]) if snap else None)
    checks.expect("A's catalog: the table's location is <A's warehouse>/shop/bills",
                  warehouse + "/shop/bills", metadata.get("location", "").rstrip("/"))
    checks.ok("A's catalog: the metadata file is in A's warehouse and exists",
              loaded["metadata-location"].startswith(warehouse + "/shop/bills/metadata/") and
              os.path.exists(urllib.parse.urlsplit(loaded["metadata-location"]).path), loaded["metadata-location"])
    checks.expect("A's catalog: the schema has B's columns with field ids and the key as identifier",
                  ([(1, "id", "long"), (2, "region", "string"), (3, "amount", "decimal(10, 2)")], [1]),
                  ([(f["id"], f["name"], f["type"]) for f in metadata["schemas"][-1]["fields"]],
                   metadata["schemas"][-1].get("identifier-field-ids")))
    checks.expect("icebird reading A's metadata file has the union read's row", [ROW],
                  [dict(r, amount=float(r["amount"])) for r in icebird_read(loaded["metadata-location"])])


def ledger_row(i, qty):
    return {"id": i, "qty": qty, "name": f"item {i}", "amount": f"{i}.{qty % 1000:03d}"}


def write(node, table, rows, *args, check=True):
    return node.mink("write", table, *args, check=check, timeout=30,
                     input="".join(json.dumps(x) + "\n" for x in rows))


def agree(checks, b, catalog, what, wait_s=15):
    """B's union read == B's snapshot read, and, once B's lake caught up, icebird on A's current
    metadata equals them (and A's current snapshot is B's)."""
    snapshot = minktest.sorted_rows(b.mink("read", "shop.ledger", "--mode", "snapshot").stdout)
    checks.expect(f"{what}: B's union read equals its snapshot read", snapshot,
                  minktest.sorted_rows(b.mink("read", "shop.ledger", "--mode", "union").stdout))
    caught_up = minktest.wait_until(wait_s, lambda: minktest.lake_caught_up(b, "shop.ledger"), interval=0.2)
    if not checks.ok(f"{what}: B's lake catches up within {wait_s} s", caught_up, b.log_tail(15)):
        return snapshot
    lake = lake_snapshot(b, "shop.ledger")
    loaded = catalog.load("ledger")
    checks.expect(f"{what}: A's current snapshot and metadata file are B's",
                  (lake["snapshot_id"], lake["metadata_location"]),
                  (loaded["metadata"].get("current-snapshot-id"), loaded.get("metadata-location")))
    checks.expect(f"{what}: icebird on A's current metadata equals B's snapshot read", as_numbers(snapshot),
                  as_numbers(icebird_read(loaded["metadata-location"])))
    checks.expect(f"{what}: B's union read (caught up) equals its snapshot read", snapshot,
                  minktest.sorted_rows(b.mink("read", "shop.ledger", "--mode", "union").stdout))
    return snapshot


def multi_bucket(checks, b, catalog):
    b.mink("table", "create", "shop.ledger", "-C", "id BIGINT NOT NULL", "-C", "qty INT", "-C", "name STRING",
           "-C", "amount DECIMAL(12,3)", "--primary-key", "id", "--bucket-count", "3", "--lake", "iceberg",
           "--lake-freshness", "1s")
    rounds = [
        [([], [ledger_row(i, 1) for i in range(1, 201)])],
        [([], [ledger_row(i, 2) for i in range(1, 51)]), (["--delete"], [{"id": i} for i in range(151, 201)])],
        [([], [ledger_row(i, 3) for i in range(160, 171)]), (["--delete"], [{"id": i} for i in range(1, 11)]),
         ([], [ledger_row(i, 4) for i in range(100, 121)])],
    ]
    for n, writes in enumerate(rounds, 1):
        for args, rows in writes:
            write(b, "shop.ledger", rows, *args)
        snapshot = agree(checks, b, catalog, f"shop.ledger round {n}")
    checks.expect("shop.ledger: 200 - 50 + 11 - 10 rows in the KV snapshot", 151, len(snapshot))


class Writer:
    """Upserts and deletes keys of shop.ledger until stopped."""

    def __init__(self, node, rng):
        self.node, self.rng = node, rng
        self.attempts = self.failures = 0
        self.qty = 10
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopping.is_set():
            self.qty += 1
            ups = [ledger_row(self.rng.randrange(1, 400), self.qty) for _ in range(100)]
            dels = [{"id": self.rng.randrange(1, 400)} for _ in range(10)]
            for rows, args in ((ups, ()), (dels, ("--delete",))):
                self.attempts += 1
                if write(self.node, "shop.ledger", rows, *args, check=False).returncode != 0:
                    self.failures += 1
                    time.sleep(0.05)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=60)


def chain_problems(metadata):
    """What is wrong with the catalog's snapshot chain: sequence numbers 1..n, each snapshot's
    parent the one before, each with mink-offsets, no bucket's offset going backwards."""
    problems = []
    snapshots = sorted(metadata.get("snapshots", []), key=lambda s: s["sequence-number"])
    previous_id, previous_offsets = None, {}
    for n, s in enumerate(snapshots, 1):
        if s["sequence-number"] != n:
            problems.append(f"snapshot {s['snapshot-id']} has sequence number {s['sequence-number']}, expected {n}")
        if s.get("parent-snapshot-id") != previous_id:
            problems.append(f"snapshot {s['snapshot-id']}'s parent is {s.get('parent-snapshot-id')}, not {previous_id}")
        raw = s.get("summary", {}).get("mink-offsets")
        if raw is None:
            problems.append(f"snapshot {s['snapshot-id']} has no mink-offsets")
            offsets = {}
        else:
            offsets = json.loads(raw)
        for bucket, offset in previous_offsets.items():
            if offsets.get(bucket, -1) < offset:
                problems.append(f"snapshot {s['snapshot-id']} (sequence {s['sequence-number']}): {bucket} "
                                f"at {offsets.get(bucket)}, after {offset}")
        previous_id, previous_offsets = s["snapshot-id"], offsets
    if snapshots and metadata.get("current-snapshot-id") != snapshots[-1]["snapshot-id"]:
        problems.append(f"the current snapshot {metadata.get('current-snapshot-id')} is not the last of the chain")
    return problems, len(snapshots)


def crashes(checks, b, catalog, rng):
    writer = Writer(b, random.Random(rng.random()))
    writer.start()
    try:
        for i in range(KILLS):
            time.sleep(rng.uniform(0.5, 2.5))
            b.kill()
            log(f"kill {i + 1}: SIGKILL of B")
            b.restart()
        time.sleep(rng.uniform(0.5, 1.5))
    finally:
        writer.stop()
    log(f"writer: {writer.attempts} writes, {writer.failures} failed while B was down")
    agree(checks, b, catalog, "after 3 SIGKILLs of B", wait_s=30)
    with open(b.log_path, errors="replace") as f:
        adopted = sum("adopted the Iceberg REST catalog's snapshot" in line for line in f)
    log(f"B adopted {adopted} snapshot(s) a kill left in the catalog only")
    metadata = catalog.load("ledger")["metadata"]
    problems, count = chain_problems(metadata)
    checks.expect(f"A's snapshot chain of shop.ledger ({count} snapshots): linear, mink-offsets never go back",
                  [], problems)


def cut_round(checks, rest_port, b, catalog):
    """A kill certain to fall between the catalog commit and B's record of it (CommitCutter):
    restarted, B adopts the catalog's snapshot, tiers nothing twice and loses nothing."""
    cutter = CommitCutter(rest_port, b)
    direct = list(b.flags)
    try:
        checks.expect("B stops cleanly (to restart through the cutting proxy)", 0, b.stop())
        at = b.flags.index("--lake-uri") + 1
        b.flags[at] = f"http://127.0.0.1:{cutter.port}"
        b.restart()
        before = catalog.load("ledger")["metadata"].get("current-snapshot-id")
        cutter.armed.set()
        write(b, "shop.ledger", [ledger_row(i, 700) for i in range(600, 620)])
        cut = cutter.cut.wait(15)
        b.kill()
        log(f"SIGKILL of B as the catalog answered its commit: {cutter.answer.decode(errors='replace')}")
        if not checks.ok("the kill fell between the catalog's commit and B's record of it", cut, b.log_tail(10)):
            return
        in_catalog = catalog.load("ledger")["metadata"].get("current-snapshot-id")
        checks.ok("the catalog committed the cut round (200, a new current snapshot)",
                  cutter.answer.startswith(b"HTTP/1.1 200") and in_catalog != before,
                  f"{cutter.answer!r}, current {in_catalog}, before {before}")
        before_log = os.path.getsize(b.log_path)
        b.flags = direct
        b.restart()
        agree(checks, b, catalog, "after the kill between the two commits")

        def adopted():
            with open(b.log_path, errors="replace") as f:
                f.seek(before_log)
                return [line.strip() for line in f if "adopted the Iceberg REST catalog's snapshot" in line]
        checks.ok("restarted, B adopts the catalog's snapshot of the cut round",
                  any(f"snapshot {in_catalog} " in line for line in adopted()), str(adopted()) + b.log_tail(10))
        snapshot = minktest.sorted_rows(b.mink("read", "shop.ledger", "--mode", "snapshot").stdout)
        checks.ok("the cut round's rows are in B's snapshot read once",
                  [r["id"] for r in snapshot if r["qty"] == 700] == list(range(600, 620)))
        problems, count = chain_problems(catalog.load("ledger")["metadata"])
        checks.expect(f"A's snapshot chain of shop.ledger ({count} snapshots) after the adoption: linear, "
                      "mink-offsets never go back", [], problems)
    finally:
        b.flags = direct
        cutter.close()


def catalog_away(checks, a, b, catalog):
    rc = a.stop()
    checks.expect("A (the catalog) stops cleanly", 0, rc)
    log("A stopped")
    before = os.path.getsize(b.log_path)
    r = write(b, "shop.ledger", [ledger_row(i, 900) for i in range(500, 520)], check=False)
    checks.expect("B takes a write while the catalog is away", (0, ""), (r.returncode, r.stderr.strip()))
    r = write(b, "shop.ledger", [{"id": i} for i in range(100, 105)], "--delete", check=False)
    checks.expect("B takes a delete while the catalog is away", (0, ""), (r.returncode, r.stderr.strip()))

    def warned():
        with open(b.log_path, errors="replace") as f:
            f.seek(before)
            return [line.strip() for line in f if "tiering shop.ledger" in line]
    checks.ok("B's tiering logs a warning while the catalog is away",
              minktest.wait_until(10, lambda: bool(warned()), interval=0.2), b.log_tail(10))
    if warned():
        log(f"B: {warned()[0]}")
    snapshot = minktest.sorted_rows(b.mink("read", "shop.ledger", "--mode", "snapshot").stdout)
    checks.ok("B's snapshot read has the rows written while the catalog is away",
              all(any(r["id"] == i and r["qty"] == 900 for r in snapshot) for i in range(500, 520))
              and not any(100 <= r["id"] < 105 for r in snapshot))
    union = b.mink("read", "shop.ledger", "--mode", "union", check=False)
    checks.expect("B's union read answers while the catalog is away and equals its snapshot read",
                  (0, snapshot), (union.returncode, minktest.sorted_rows(union.stdout) if union.returncode == 0
                                  else union.stderr.strip()))
    checks.ok("B's lake is behind while the catalog is away", not minktest.lake_caught_up(b, "shop.ledger"))
    a.restart()
    log("A restarted")
    agree(checks, b, catalog, "the catalog back", wait_s=20)


def feed_rows(ids):
    return [{"id": i, "region": "eu", "amount": f"{i}.25"} for i in ids]


def other_engines(checks, a, b, catalog, query_bin):
    """Step 5: B adopts two snapshots other engines committed to its table in A's catalog."""
    import iceberg_engine as engine
    r = b.mink("table", "create", "shop.feed", "-C", "id BIGINT NOT NULL", "-C", "region STRING",
               "-C", "amount DECIMAL(10,2)", "--bucket-key", "id", "--bucket-count", "2", "--lake", "iceberg",
               "--lake-freshness", "1s", check=False)
    if not checks.expect("B creates the tiered log table shop.feed", (0, ""), (r.returncode, r.stderr.strip())):
        return
    write(b, "shop.feed", feed_rows(range(1, 6)))
    checks.ok("B tiers rows 1..5 of shop.feed", minktest.wait_until(
        15, lambda: lake_snapshot(b, "shop.feed")["snapshot_id"] != 0 and minktest.lake_caught_up(b, "shop.feed"),
        interval=0.2), b.log_tail(10))
    checks.expect("B stops cleanly (other engines commit meanwhile)", 0, b.stop())
    rest = engine.RestCatalog(catalog.url, TOKEN)
    theirs = []
    for ids in (range(100, 103), range(103, 106)):
        metadata = rest.load_table("shop", "feed")["metadata"]
        current = next(x for x in metadata["snapshots"] if x["snapshot-id"] == metadata["current-snapshot-id"])
        answer = engine.append_rows(rest, "shop", "feed", feed_rows(ids), query_bin,
                                    env=dict(os.environ, MINK_BOOTSTRAP=a.flight),
                                    summary_extra={"mink-offsets": current["summary"]["mink-offsets"]})
        theirs.append(answer["metadata"]["current-snapshot-id"])
    log(f"another engine committed snapshots {theirs} to shop.feed in A's catalog")
    before_log = os.path.getsize(b.log_path)
    b.restart()
    write(b, "shop.feed", feed_rows(range(6, 9)))
    checks.ok("B tiers rows 6..8 on top of the other engine's snapshots", minktest.wait_until(
        20, lambda: lake_snapshot(b, "shop.feed")["snapshot_id"] not in theirs and minktest.lake_caught_up(b, "shop.feed"),
        interval=0.2), b.log_tail(10))
    with open(b.log_path, errors="replace") as f:
        f.seek(before_log)
        adopted = [line.strip() for line in f if "adopted the Iceberg REST catalog's snapshot" in line]
    order = [next((k for k, line in enumerate(adopted) if f"snapshot {i} " in line), None) for i in theirs]
    checks.ok("B adopted both of the other engine's snapshots, in order",
              None not in order and order == sorted(order), str(adopted))
    everything = sorted(as_numbers(feed_rows(list(range(1, 9)) + list(range(100, 106)))), key=lambda r: r["id"])
    union = sorted(as_numbers(minktest.sorted_rows(b.mink("read", "shop.feed", "--mode", "union").stdout)),
                   key=lambda r: r["id"])
    checks.expect("B's union read of shop.feed: rows 1..8 and the other engine's 100..105", everything, union)
    log_read = sorted(r["id"] for r in minktest.sorted_rows(b.mink("read", "shop.feed").stdout))
    checks.expect("B's log read of shop.feed: rows 1..8 only", list(range(1, 9)), log_read)
    loaded = catalog.load("feed")
    checks.expect("icebird on A's current metadata of shop.feed equals B's union read", everything,
                  sorted(as_numbers(icebird_read(loaded["metadata-location"])), key=lambda r: r["id"]))
    problems, count = chain_problems(loaded["metadata"])
    checks.expect(f"A's snapshot chain of shop.feed ({count} snapshots): linear, mink-offsets never go back",
                  [], problems)


def main():
    minktest.hard_deadline(200)
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    mink_bin, query_bin = sys.argv[1], os.path.abspath(sys.argv[2])
    minktest.require_node_modules("icebird")
    minktest.require_modules("avro")
    seed = int(os.environ.get("MINK_TEST_SEED", str(int(time.time()))))
    log(f"seed {seed} (MINK_TEST_SEED={seed} repeats this run)")
    rng = random.Random(seed)
    checks = minktest.Checks()
    a = minktest.MinkNode(mink_bin, "lake-rest-a")
    b = minktest.MinkNode(mink_bin, "lake-rest-b", node_id=2)
    try:
        rest_port = minktest.free_port()
        a.env["MINK_AUTH_BOOTSTRAP_PASSWORD"] = A_PASSWORD
        # A's tokens outlive its restart (step 4) only with a secret of A's own configuration.
        a.env["MINK_AUTH_TOKEN_SECRET"] = "lake-rest-catalog-test-token-secret-of-node-a"
        a.start(extra=["--iceberg-rest-listen", f"127.0.0.1:{rest_port}", "--auth-enabled", "true",
                       "--auth-bootstrap-user", A_USER])
        catalog = Catalog(f"http://127.0.0.1:{rest_port}")
        global TOKEN
        TOKEN = oauth_token(catalog.url)
        # A's catalog puts tables under <A's storage URI>/lake; both nodes reach it as file://.
        a_objects = urllib.parse.urlsplit(a.storage_uri.split("@", 1)[1]).path
        warehouse = "file://" + os.path.normpath(os.path.abspath(a_objects)) + "/lake"
        b.env["MINK_LAKE_CREDENTIAL"] = f"{A_USER}:{A_PASSWORD}"
        b.start(extra=["--lake-catalog", "rest", "--lake-uri", catalog.url,
                       "--lake-warehouse", a.storage_uri])
        log("A (the catalog) and B started")
        lake = seed_section(checks, b, query_bin)
        if lake["snapshot_id"] != 0:
            catalog_has_bills(checks, catalog, warehouse, lake)
        log("quick start section done")
        multi_bucket(checks, b, catalog)
        log("multi-bucket rounds done")
        crashes(checks, b, catalog, rng)
        log("crashes done")
        cut_round(checks, rest_port, b, catalog)
        log("kill between the two commits done")
        catalog_away(checks, a, b, catalog)
        log("catalog away and back done")
        other_engines(checks, a, b, catalog, query_bin)
        log("other engines' commits adopted")
        checks.expect("B stops cleanly", 0, b.stop())
        checks.expect("A stops cleanly", 0, a.stop())
    except Exception as e:  # noqa: BLE001 - every error is a test failure with its trace
        import traceback
        traceback.print_exc()
        checks.fail(f"lake rest catalog: {type(e).__name__}: {e}")
    finally:
        try:
            if checks.failures:
                print(f"A's log:\n{a.log_tail()}", file=sys.stderr)
            checks.finish(b)
        finally:
            a.cleanup()
            b.cleanup()


if __name__ == "__main__":
    main()
