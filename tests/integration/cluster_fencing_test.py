#!/usr/bin/python3
"""Fencing, not split brain: three `mink serve` nodes on loopback share one PostgreSQL database
and one S3 bucket (scripts/with-test-services), and each reaches PostgreSQL through a TCP proxy
of this test's own (pg_proxy.py), so one node at a time can be cut off its metadata database
while it keeps serving Flight and reaching the object store.

What it proves:

- Cut of a non-coordinator (black hole: its sockets stay open, no byte passes either way; cut
  at a moment when it holds no transaction). While numbered writes (`mink write`, a dense
  sequence) go on through every node, the cut node included: its buckets move to the others
  once its heartbeat is older than --session-timeout; then writes through the healthy nodes
  succeed for every bucket; nothing is acknowledged through the cut node while it is cut. When
  the proxy heals, it steps down from the buckets it lost (its held commits are refused, the
  writes it took are answered with an error or land exactly once), gets its share back, and
  writes through it land and reads from it agree.
- Cut of the coordinator (its connections closed and new ones refused): another node takes the
  coordinator lease and moves the cut node's buckets; the same checks; it comes back as an
  ordinary member.
- Only one node commits for each bucket: every acknowledged number is read back exactly once
  and no number at all twice (`mink read` and the Arrow JS client agree); and the metadata log
  (the `commands` table, read with psql while the test runs, so pruning cannot hide a row) is
  re-validated here: every `objects.commit` segment carries the stream's epoch and owner at its
  position in the log and continues the stream's end, no commit of a cut node's epoch names a
  stream after the takeover that cleared its ownership (until it opened the stream again), and
  every `streams.assign` comes from the last elected coordinator.
- An independent Arrow JS client (cluster_arrow_read.js: GetFlightInfo on one node, DoGet at
  each endpoint's location) finds the three nodes' advertised addresses among the endpoints of
  6-bucket tables, each endpoint at its bucket's owner, and the union of the endpoints' rows is
  exactly what was written: snapshot mode of a primary-key table, log mode of a log table; and
  again from the healed node after the cuts.

Writes in flight when a node is cut (through it, or through a healthy node that forwarded a
share to it before the takeover) may fail, with some of their rows stored (docs/flight-api.md:
buckets commit independently), and so may writes the cut node refuses as fenced until a
heartbeat sent after the heal has reached the database; the test allows exactly those failures
and lists them. Any
other failed write, a lost acknowledged number or a number stored twice fails the test.

A third cut comes inside the metadata log's append lock: the node's transaction holds
PostgreSQL's advisory lock when the black hole starts. Every other node's appends, heartbeats
and lease renewals wait for that lock until the server ends the cut node's idle transaction
(its metadata sessions set idle_in_transaction_session_timeout); then the cut node is taken
over like the others. MINK_TEST_FENCING_APPEND_LOCK=0 leaves this cut out.

Usage: cluster_fencing_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402
import pg_proxy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SESSION_TIMEOUT_S = 3
BUCKETS = 6
NUMBERS = "fence.numbers"   # log table, bucket key n: the numbered sequence
KV = "fence.kv"             # primary-key table, for the Arrow JS snapshot read
EVENTS = "fence.events"     # log table, for the Arrow JS log read
TABLES = (NUMBERS, KV, EVENTS)
PROBE = "fence.probe"       # log table, written through a cut node (nothing read back)
CUT_S = 11                  # how long a node stays cut off
log = minktest.log


def mink(node, *args, timeout=20, input=None):
    """A client command; a CompletedProcess-like (returncode None when it timed out)."""
    try:
        return node.mink(*args, check=False, timeout=timeout, input=input)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, None, "", f"timed out after {timeout} s")


def owners(node, table, timeout=10):
    """{bucket: owner} as `node` answers `mink table offsets`, {} when it does not answer
    within `timeout` s."""
    return cluster_helpers.owners(node, table, timeout, empty_on_timeout=True)


def cluster_nodes(node):
    r = mink(node, "cluster", "nodes", "--format", "json", timeout=10)
    if r.returncode != 0:
        return []
    return [json.loads(line) for line in r.stdout.splitlines()]


def coordinator(node):
    c = [m["node"] for m in cluster_nodes(node) if m["coordinator"]]
    return c[0] if len(c) == 1 else None


def spread(nodes, table, per_node=BUCKETS // 3):
    return cluster_helpers.spread(nodes, table, per_node, owners_of=owners)


def moved_off(survivors, gone_id):
    """Every survivor sees every bucket of every table owned by a survivor."""
    ids = {n.node_id for n in survivors}
    for n in survivors:
        for t in TABLES:
            o = owners(n, t)
            if len(o) != BUCKETS or any(owner not in ids for owner in o.values()):
                return False
    return True


def write_rows(node, table, rows, timeout=60):
    return mink(node, "write", table, input="".join(json.dumps(r) + "\n" for r in rows),
                timeout=timeout)


def read_numbers(node, timeout=60):
    """[(n, via, bucket)] of the numbered table as `mink read` from `node` returns it."""
    r = mink(node, "read", NUMBERS, "--meta", "--format", "json", timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"mink read from node {node.node_id}: {r.returncode}: {r.stderr.strip()}")
    return [(row["n"], row["via"], row["__bucket"]) for row in map(json.loads, r.stdout.splitlines())]


class Sequence:
    """Hands out the numbers 0, 1, 2, ... in batches and remembers every write: which node it
    went through, its numbers, when it started and ended, and its outcome."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = 0
        self.writes = []

    def take(self, count):
        with self.lock:
            first = self.next
            self.next += count
            return list(range(first, first + count))

    def write(self, node, count, label, timeout=60):
        numbers = self.take(count)
        started = time.monotonic()
        r = write_rows(node, NUMBERS, [{"n": k, "via": node.node_id} for k in numbers], timeout)
        w = {"via": node.node_id, "numbers": numbers, "start": started, "end": time.monotonic(),
             "rc": r.returncode, "err": r.stderr.strip(), "label": label}
        with self.lock:
            self.writes.append(w)
        return w


class Writer:
    """Writes batches of the sequence through one node until stopped."""

    def __init__(self, seq, node, batch=10, interval=0.4):
        self.seq, self.node, self.batch, self.interval = seq, node, batch, interval
        self.stopping = False
        self.go = threading.Event()
        self.go.set()
        self.busy = False
        self.thread = threading.Thread(target=self.run, daemon=True, name=f"writer-{node.node_id}")

    def run(self):
        while not self.stopping:
            self.go.wait(1)
            if not self.go.is_set() or self.stopping:
                continue
            self.busy = True
            self.seq.write(self.node, self.batch, "background")
            self.busy = False
            time.sleep(self.interval)

    def pause(self, timeout=60):
        """No new write starts; waits until the one in flight ended. False after `timeout`."""
        self.go.clear()
        return minktest.wait_until(timeout, lambda: not self.busy, 0.05)

    def resume(self):
        self.go.set()


class CommandLog:
    """Copies the metadata log (`commands`) out of PostgreSQL every half second, so rows that
    snapshots later prune are kept for the checks."""

    def __init__(self, meta_url):
        self.url = meta_url
        self.rows = {}
        self.errors = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True, name="command-log")

    def fetch(self):
        with self.lock:
            after = max(self.rows) if self.rows else 0
        try:
            r = subprocess.run(["psql", self.url, "-At", "-F", "\x1f", "-c",
                                f"SELECT seq, node, kind, body FROM commands WHERE seq > {after}"
                                " ORDER BY seq"], capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.errors.append("psql timed out")
            return
        if r.returncode != 0:
            self.errors.append(r.stderr.strip())
            return
        with self.lock:
            for line in r.stdout.splitlines():
                seq, node, kind, body = line.split("\x1f", 3)
                self.rows[int(seq)] = (node, kind, json.loads(body))

    def run(self):
        while not self.stopping:
            self.fetch()
            time.sleep(0.5)

    def ordered(self):
        with self.lock:
            return sorted(self.rows.items())


def validate_log(rows, cuts):
    """Re-validates the metadata log as the state machine must have. `cuts` is a list of
    (node id, node epoch) of cut-off processes. Returns (problems, facts)."""
    problems = []
    node_epoch = {}
    streams = {}  # id -> {"epoch", "owner": (node, epoch) or None, "end"}
    elected = (0, 0, 0)
    taken_from = {}  # (stream) -> (seq, (node, epoch)) of the last takeover from a cut process
    takeovers = []
    fenced_after_takeover = []
    commits_by = {}
    expected_seq = 1
    for seq, (label, kind, body) in rows:
        if seq != expected_seq:
            problems.append(f"the log copy has a gap before seq {seq} (expected {expected_seq})")
        expected_seq = seq + 1
        if kind == "node.register":
            node_epoch[body["node"]] = body["node_epoch"]
        elif kind == "coordinator.elect":
            if body["lease_epoch"] <= elected[2]:
                problems.append(f"seq {seq}: coordinator.elect with lease epoch {body['lease_epoch']}"
                                f" not above {elected[2]}")
            elected = (body["node"], body["node_epoch"], body["lease_epoch"])
        elif kind == "streams.assign":
            if (body["coordinator"], body["lease_epoch"]) != (elected[0], elected[2]):
                problems.append(f"seq {seq}: streams.assign from node {body['coordinator']} lease"
                                f" epoch {body['lease_epoch']}, but the elected coordinator is"
                                f" node {elected[0]} lease epoch {elected[2]}")
            for a in body["assignments"]:
                s = streams.setdefault(a[0], {"epoch": 0, "owner": None, "end": 0})
                if len(a) > 2 and a[2] == 1:
                    if s["owner"] in cuts:
                        taken_from[a[0]] = (seq, s["owner"])
                        takeovers.append((seq, a[0], s["owner"], a[1]))
                    s["owner"] = None
        elif kind == "streams.open":
            owner = (body["node"], body["node_epoch"])
            for stream, epoch in body["streams"]:
                s = streams.setdefault(stream, {"epoch": 0, "owner": None, "end": 0})
                if epoch <= s["epoch"]:
                    problems.append(f"seq {seq}: stream {stream} opened at epoch {epoch} <= {s['epoch']}")
                if node_epoch.get(owner[0]) != owner[1]:
                    problems.append(f"seq {seq}: stream {stream} opened by a fenced process {owner}")
                s["epoch"], s["owner"] = epoch, owner
                if taken_from.get(stream, (0, None))[1] == owner:
                    del taken_from[stream]  # the cut process took it again, legitimately
        elif kind == "streams.release":
            for stream in body["streams"]:
                s = streams.get(stream)
                if s is None or s["owner"] != (body["node"], body["node_epoch"]):
                    problems.append(f"seq {seq}: streams.release of stream {stream} by"
                                    f" {(body['node'], body['node_epoch'])}, owner {s and s['owner']}")
                elif s is not None:
                    s["owner"] = None
        elif kind == "objects.commit":
            who = (body["node"], body["node_epoch"])
            commits_by[who] = commits_by.get(who, 0) + 1
            if node_epoch.get(who[0]) != who[1]:
                problems.append(f"seq {seq}: objects.commit from fenced process {who}")
            for obj in body["objects"]:
                for g in obj["segments"]:
                    s = streams.get(g["stream"])
                    if s is None:
                        problems.append(f"seq {seq}: commit to unknown stream {g['stream']}")
                        continue
                    if g["stream"] in taken_from and taken_from[g["stream"]][1] == who:
                        fenced_after_takeover.append((seq, g["stream"], who))
                    if s["owner"] != who or g["epoch"] != s["epoch"]:
                        problems.append(f"seq {seq}: {obj['key']} commits stream {g['stream']}"
                                        f" epoch {g['epoch']} from {who}, but the stream is at"
                                        f" epoch {s['epoch']} owned by {s['owner']}")
                    if g["start"] != s["end"]:
                        problems.append(f"seq {seq}: stream {g['stream']} segment starts at"
                                        f" {g['start']}, its end is {s['end']}")
                    s["end"] = max(s["end"], g["end"])
    for seq, stream, who in fenced_after_takeover:
        problems.append(f"seq {seq}: a commit of the cut process {who} names stream {stream}"
                        " after the takeover")
    return problems, {"takeovers": takeovers, "commits_by": commits_by, "elected": elected,
                      "streams": streams}


def main():
    cluster_helpers.start_test(360, "path/to/mink")
    minktest.require_node_modules("@grpc/grpc-js", "@grpc/proto-loader", "apache-arrow")
    if shutil.which("psql") is None:
        minktest.require_tool("psql", "psql", "--version")
    meta_url, storage = minktest.cluster_stores()
    pg = urllib.parse.urlsplit(meta_url)
    proxies = {i: pg_proxy.PgProxy(pg.hostname, pg.port, f"pg{i}") for i in (1, 2, 3)}
    nodes = cluster_helpers.make_nodes(sys.argv[1], "cfence",
                                       lambda i: pg_proxy.proxied_url(meta_url, proxies[i].port), storage)
    by_id = {n.node_id: n for n in nodes}
    checks = minktest.Checks()
    seq = Sequence()
    writers = []
    commands = CommandLog(meta_url)
    cuts = []  # one dict per cut: node, its epoch, when it was cut, moved, healed
    try:
        for n in nodes:
            n.start(extra=["--session-timeout", f"{SESSION_TIMEOUT_S}s"])
        n1, n2, n3 = nodes
        commands.thread.start()
        n1.mink("db", "create", "fence")
        n1.mink("table", "create", NUMBERS, "-C", "n BIGINT NOT NULL", "-C", "via INT",
                "--bucket-key", "n", "--bucket-count", str(BUCKETS))
        n2.mink("table", "create", KV, "-C", "id BIGINT NOT NULL", "-C", "name STRING",
                "--primary-key", "id", "--bucket-count", str(BUCKETS))
        n3.mink("table", "create", EVENTS, "-C", "id BIGINT NOT NULL", "-C", "note STRING",
                "--bucket-key", "id", "--bucket-count", str(BUCKETS))
        n1.mink("table", "create", PROBE, "-C", "id BIGINT NOT NULL", "-C", "note STRING",
                "--bucket-key", "id", "--bucket-count", str(BUCKETS))
        for t in TABLES:
            checks.ok(f"{t}: 6 buckets spread 2/2/2, the same owners from every node",
                      minktest.wait_until(20, lambda: spread(nodes, t)),
                      str([owners(n, t) for n in nodes]))
        log(f"cluster up: coordinator node {coordinator(n1)}")

        # ---- Arrow JS: GetFlightInfo on one node, DoGet at each endpoint's location
        kv = {}
        for i, n in enumerate(nodes):
            rows = [{"id": k, "name": f"a{k}"} for k in range(i * 40, i * 40 + 40)]
            r = write_rows(n, KV, rows)
            checks.expect(f"{KV}: write through node {n.node_id}", (0, ""), (r.returncode, r.stderr.strip()))
            kv.update({row["id"]: row for row in rows})
        updates = [{"id": k, "name": f"b{k}"} for k in range(0, 120, 3)]
        r = write_rows(n3, KV, updates)
        checks.expect(f"{KV}: updates through node 3", (0, ""), (r.returncode, r.stderr.strip()))
        kv.update({row["id"]: row for row in updates})
        events = [{"id": k, "note": f"e{k}"} for k in range(150)]
        r = write_rows(n2, EVENTS, events)
        checks.expect(f"{EVENTS}: write through node 2", (0, ""), (r.returncode, r.stderr.strip()))
        check_arrow_reads(checks, nodes, n2, kv, events, "healthy cluster")

        # ---- numbered writes through every node, then a cut of a non-coordinator
        for n in nodes:
            writers.append(Writer(seq, n))
        for w in writers:
            w.thread.start()
        time.sleep(2)
        coord = coordinator(n1)
        victim = next(n for n in nodes if n.node_id != coord)
        fence_scenario(checks, nodes, proxies, seq, writers, victim, cuts, "blackhole", meta_url)

        # ---- a cut of the coordinator (connections closed, new ones refused)
        coord = coordinator(n1) or coordinator(n2)
        checks.ok("one coordinator after the first cut healed", coord is not None)
        if coord is not None:
            fence_scenario(checks, nodes, proxies, seq, writers, by_id[coord], cuts, "refuse", meta_url)

        if os.environ.get("MINK_TEST_FENCING_APPEND_LOCK", "1") != "0":
            coord = coordinator(n1) or coordinator(n2)
            victim = next(n for n in nodes if n.node_id != coord)
            fence_scenario(checks, nodes, proxies, seq, writers, victim, cuts, "append-lock", meta_url)

        # ---- stop the writers; every acknowledged number exactly once
        for w in writers:
            w.stopping = True
        for w in writers:
            w.thread.join(90)
            checks.ok(f"the writer through node {w.node.node_id} finished", not w.thread.is_alive())
        last = seq.write(n1, 60, "final")
        checks.expect("a final write through node 1", (0, ""), (last["rc"], last["err"]))
        check_numbers(checks, nodes, seq, cuts)

        healed = by_id[cuts[0]["node"]] if cuts else n2
        check_arrow_reads(checks, nodes, healed, kv, events, f"after the cuts, from node {healed.node_id}")

        # ---- the metadata log: only one node committed for each bucket
        commands.stopping = True
        commands.thread.join(30)
        commands.fetch()
        rows = commands.ordered()
        checks.ok("the metadata log was copied while the test ran", not commands.errors,
                  "; ".join(commands.errors[:3]))
        checks.ok("the copy of the metadata log starts at seq 1", rows and rows[0][0] == 1,
                  f"first seq {rows[0][0] if rows else None}")
        problems, facts = validate_log(rows, [(c["node"], c["epoch"]) for c in cuts])
        checks.ok("every command of the metadata log is valid: each objects.commit segment has its"
                  " stream's epoch and owner and continues its end, nothing of a cut process after"
                  " its takeover, every streams.assign from the elected coordinator",
                  not problems, "\n  " + "\n  ".join(problems[:20]))
        for node_id, epoch in [(c["node"], c["epoch"]) for c in cuts]:
            taken = [t for t in facts["takeovers"] if t[2] == (node_id, epoch)]
            checks.ok(f"the log has takeovers of node {node_id}'s streams (epoch {epoch})", taken,
                      str(facts["takeovers"]))
        log(f"metadata log: {len(rows)} commands, takeovers {facts['takeovers']},"
            f" commits by process {facts['commits_by']}, coordinator {facts['elected']}")

        # ---- the operator's view, then a clean stop of every node
        listed = cluster_nodes(n1)
        checks.expect("mink cluster nodes: three live nodes", [(1, True), (2, True), (3, True)],
                      sorted((m["node"], m["live"]) for m in listed))
        checks.expect("one coordinator", 1, sum(1 for m in listed if m["coordinator"]))
        for n in nodes:  # all at once: each waits for the others to take its buckets
            n.proc.send_signal(signal.SIGINT)
        for n in nodes:
            try:
                rc = n.proc.wait(timeout=30)
                n.proc = None
            except subprocess.TimeoutExpired:
                rc = n.stop(sig=signal.SIGKILL)
            checks.ok(f"node {n.node_id} stopped cleanly on SIGINT", rc == 0, f"exit status {rc}")
        log("done")
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster fencing", e)
    finally:
        for w in writers:
            w.stopping = True
        commands.stopping = True
        for p in proxies.values():
            p.heal()
        for n in nodes:
            if n.proc is not None:
                n.stop(timeout=20)
        for p in proxies.values():
            p.close()
        cluster_helpers.finish(checks, nodes)  # every node is stopped by now


def node_epoch_of(asked, node_id):
    """The epoch of node_id's newest process, as `asked` lists it."""
    for m in cluster_nodes(asked):
        if m["node"] == node_id:
            return m["epoch"]
    return None


def fence_scenario(checks, nodes, proxies, seq, writers, victim, cuts, mode, meta_url):
    """Cuts `victim` off PostgreSQL (mode blackhole, refuse or append-lock) for CUT_S seconds
    while the writers run, checks the takeover and the writes, heals, checks it serves again."""
    healthy = [n for n in nodes if n is not victim]
    h1, h2 = healthy
    proxy = proxies[victim.node_id]
    was_coordinator = coordinator(h1) == victim.node_id
    epoch = node_epoch_of(h1, victim.node_id)
    what = f"node {victim.node_id} ({'coordinator' if was_coordinator else 'not the coordinator'}, {mode})"
    before = {t: owners(h1, t) for t in TABLES}
    lost_before = victim_lost_buckets(victim)
    if mode == "blackhole":
        clean = proxy.cut_when_idle(10)
        checks.ok(f"{what}: cut while it held no transaction", clean)
        if not clean:
            proxy.cut("blackhole")
    elif mode == "refuse":
        proxy.cut("refuse")
    else:
        checks.ok(f"{what}: cut inside the append lock", proxy.cut_inside_append_lock(10))
    cut_at = time.monotonic()
    cut = {"node": victim.node_id, "epoch": epoch, "cut_at": cut_at, "moved_at": None,
           "healed_at": None, "mode": mode}
    cuts.append(cut)
    log(f"cut {what}; its buckets before: "
        f"{ {t: sorted(b for b, o in before[t].items() if o == victim.node_id) for t in TABLES} }")

    # A write sent to the cut node: it must fail, or be acknowledged after the heal (checked
    # with every other write at the end). It runs in the background: it waits while cut.
    probe = {}
    probe_thread = threading.Thread(
        target=lambda: probe.update(seq.write(victim, 30, f"probe to cut node {victim.node_id}",
                                              timeout=CUT_S + 40)), daemon=True)
    probe_thread.start()

    moved = minktest.wait_until(SESSION_TIMEOUT_S + 15, lambda: moved_off(healthy, victim.node_id), 0.2)
    moved_after = time.monotonic() - cut_at
    cut["moved_at"] = time.monotonic()
    checks.ok(f"{what}: its buckets move to the healthy nodes after the session timeout"
              f" ({moved_after:.1f} s after the cut)", moved and moved_after >= SESSION_TIMEOUT_S - 1.5,
              str({t: owners(h1, t) for t in TABLES}))
    # Out of touch with the database, the cut node has fenced itself: a write through it (one
    # DoPut, no retries, rows for every bucket, so some of the buckets it thought it owned) is
    # refused at once instead of waiting for a commit that cannot come.
    t = time.monotonic()
    r = subprocess.run(["node", os.path.join(HERE, "flight_idempotent_put.js"),
                        str(victim.flight_port), "put", PROBE, "-1", "-1", str(len(cuts) * 100),
                        "30"], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t
    checks.ok(f"{what}: a write through the cut node is refused within 5 s, UNAVAILABLE"
              f" ({took:.1f} s: {r.stderr.strip()[:120]})",
              r.returncode != 0 and took < 5 and r.stderr.startswith("14 "), r.stdout.strip())
    if was_coordinator:
        checks.ok(f"{what}: another node took the coordinator lease",
                  minktest.wait_until(10, lambda: coordinator(h1) in {h1.node_id, h2.node_id}),
                  str(cluster_nodes(h1)))
    # Writes through the healthy nodes now succeed, for every bucket (checked at the end: their
    # numbers cover the six buckets).
    for i in range(4):
        node = healthy[i % 2]
        w = seq.write(node, 40, f"after takeover of node {victim.node_id}", timeout=30)
        if not checks.expect(f"{what}: write {i} through healthy node {node.node_id} after the"
                             f" takeover ({w['end'] - w['start']:.1f} s)", (0, ""), (w["rc"], w["err"])):
            break
    time.sleep(max(0.0, cut_at + CUT_S - time.monotonic()))
    if mode == "append-lock":
        r = subprocess.run(["psql", meta_url, "-At", "-c",
                            "SELECT pid, state, wait_event_type, wait_event, left(query, 60)"
                            " FROM pg_stat_activity WHERE datname = current_database()"],
                           capture_output=True, text=True, timeout=10)
        log(f"pg_stat_activity during the append-lock cut:\n{r.stdout}")
    healed_at = time.monotonic()
    proxy.heal()
    cut["healed_at"] = healed_at
    log(f"healed node {victim.node_id} after {healed_at - cut_at:.1f} s")

    # Writes acknowledged through the cut node while it was cut: judged in check_numbers, once
    # the buckets their rows landed in are known (acknowledged_while_cut says what is allowed).
    with seq.lock:
        cut["acked"] = [w for w in seq.writes if w["via"] == victim.node_id and w["rc"] == 0
                        and cut_at < w["end"] < healed_at]
    cut["victim_buckets"] = {b for b, o in before[NUMBERS].items() if o == victim.node_id}
    probe_thread.join(60)
    checks.ok(f"{what}: the write sent to it during the cut ended: an error, or acknowledged"
              " only after the heal (then stored once: checked at the end)",
              bool(probe) and probe["rc"] is not None and (probe["rc"] != 0 or probe["end"] >= healed_at),
              str(probe))
    log(f"the write sent to the cut node: rc {probe.get('rc')} {probe.get('err', '')!r}"
        f" after {probe.get('end', 0) - probe.get('start', 0):.1f} s")

    # It steps down from what it lost and gets its share back.
    checks.ok(f"{what}: after the heal every node agrees on the owners and it gets its share back",
              minktest.wait_until(30, lambda: all(spread(nodes, t) for t in TABLES), 0.3),
              str({t: [owners(n, t) for n in nodes] for t in TABLES}))
    lost = victim_lost_buckets(victim) - lost_before
    checks.ok(f"{what}: it dropped the buckets it lost (its log: lost {lost})", lost > 0)
    w = seq.write(victim, 40, f"through healed node {victim.node_id}", timeout=30)
    checks.expect(f"{what}: a write through it after the heal", (0, ""), (w["rc"], w["err"]))
    # With the writers paused, its reads and a healthy node's agree.
    checks.ok("the writers pause", all(w.pause() for w in writers))
    a = sorted(read_numbers(victim))
    b = sorted(read_numbers(h1))
    for w in writers:
        w.resume()
    checks.ok(f"{what}: a read from it agrees with a read from node {h1.node_id}"
              f" ({len(a)} rows)", a == b, f"{len(a)} vs {len(b)} rows")


def victim_lost_buckets(node):
    """The number of buckets the node's log says it lost (`buckets moved: ... lost N`)."""
    total = 0
    try:
        with open(node.log_path, errors="replace") as f:
            for line in f:
                if "buckets moved:" in line and "lost " in line:
                    total += int(line.rsplit("lost ", 1)[1].split()[0].strip(","))
    except (OSError, ValueError):
        pass
    return total


def excused(w, cuts):
    """Whether a failed write was in flight while a node was cut off: through the cut node
    between the cut and the heal, or refused by it as fenced until it was back (its first
    acknowledged write that started after the heal: the node fences itself until a heartbeat
    sent after the heal reaches the database), or through a healthy node before the takeover
    (its share of the cut node's buckets was forwarded there). Any other failure is one."""
    for c in cuts:
        if c["moved_at"] is None or c["healed_at"] is None:
            return True  # the scenario did not finish; its own checks failed
        if w["via"] == c["node"] and w["start"] < c["healed_at"] and w["end"] > c["cut_at"]:
            return True
        if w["via"] == c["node"] and "is fenced" in w["err"] and c["cut_at"] < w["start"] < c["back_at"]:
            return True
        if w["start"] < c["moved_at"] + 0.5 and w["end"] > c["cut_at"]:
            return True
    return False


def acknowledged_while_cut(cut, bucket_of):
    """The writes through a cut node acknowledged while it was cut that break fencing. A cut
    node cannot commit (it cannot reach the metadata log), so it may acknowledge only a write
    whose commit happened before the cut (one that started before it) or whose rows all went to
    buckets that healthy nodes owned (it forwarded them). Any other is a violation."""
    bad = []
    for w in cut.get("acked", []):
        if w["start"] <= cut["cut_at"]:
            continue
        rows_in_victim = [k for k in w["numbers"] if bucket_of.get(k) in cut["victim_buckets"]]
        if rows_in_victim:
            bad.append((w["label"], w["numbers"][0], rows_in_victim[:3]))
    return bad


def check_numbers(checks, nodes, seq, cuts):
    """Every acknowledged number exactly once, no number twice, nothing that was not sent; only
    writes in flight during a cut failed; the writes after each takeover covered every bucket."""
    rows = read_numbers(nodes[0])
    count = {}
    bucket_of = {}
    for n, _, bucket in rows:
        count[n] = count.get(n, 0) + 1
        bucket_of[n] = bucket
    with seq.lock:
        writes = list(seq.writes)
        sent = seq.next
    acked = {k for w in writes if w["rc"] == 0 for k in w["numbers"]}
    failed = [w for w in writes if w["rc"] != 0]
    for c in cuts:
        c["back_at"] = min((w["start"] for w in writes if w["via"] == c["node"] and w["rc"] == 0
                            and c["healed_at"] is not None and w["start"] > c["healed_at"]),
                           default=float("inf"))
    unknown = {k for w in failed for k in w["numbers"]}
    dups = sorted(k for k, c in count.items() if c > 1)
    lost = sorted(acked - set(count))
    strange = sorted(set(count) - acked - unknown)
    checks.ok(f"every acknowledged number is read back ({len(acked)} acknowledged, {len(writes)} writes)",
              not lost, f"{len(lost)} lost, first {lost[:20]}")
    checks.ok(f"no number is stored twice ({len(rows)} rows)", not dups, f"{len(dups)}: {dups[:20]}")
    checks.ok("nothing is stored that was not sent", not strange and max(count, default=-1) < sent,
              str(strange[:20]))
    for c in cuts:
        allowed = len(c.get("acked", [])) - len(acknowledged_while_cut(c, bucket_of))
        checks.ok(f"node {c['node']} ({c['mode']}): no write through it was acknowledged while it"
                  f" was cut that it committed itself ({allowed} acknowledged that were committed"
                  " before the cut or forwarded to healthy owners)",
                  not acknowledged_while_cut(c, bucket_of), str(acknowledged_while_cut(c, bucket_of)))
    present_failed = len(unknown & set(count))
    log(f"numbers: {sent} sent in {len(writes)} writes, {len(acked)} acknowledged, "
        f"{len(failed)} writes failed ({len(unknown)} numbers, {present_failed} of them stored):")
    for w in failed:
        stored = sum(1 for k in w["numbers"] if k in count)
        log(f"  failed write via node {w['via']} ({w['label']}), {w['end'] - w['start']:.1f} s,"
            f" {stored}/{len(w['numbers'])} stored: rc {w['rc']} {w['err']!r}")
    checks.ok("only writes in flight while a node was cut off (through it, or before the"
              " takeover) failed", all(excused(w, cuts) for w in failed),
              str([(w["via"], w["label"], w["err"]) for w in failed if not excused(w, cuts)]))
    dense = sorted(count) == list(range(sent)) if not failed else None
    if dense is not None:
        checks.ok("the stored numbers are the dense sequence 0..N-1", dense)
    for label in sorted({w["label"] for w in writes if w["label"].startswith("after takeover")}):
        buckets = {bucket_of[k] for w in writes if w["label"] == label and w["rc"] == 0
                   for k in w["numbers"] if k in bucket_of}
        checks.expect(f"writes through healthy nodes {label} reached every bucket",
                      sorted(f"b{b}" for b in range(BUCKETS)), sorted(buckets))
    for n in nodes[1:]:
        other = sorted(read_numbers(n))
        checks.ok(f"node {n.node_id} reads the same rows", other == sorted(rows),
                  f"{len(other)} vs {len(rows)}")
    via_arrow = minktest.arrow_read(nodes[1], NUMBERS, "log")[1]
    checks.expect("the Arrow JS client reads the same numbers through the endpoints",
                  sorted(n for n, _, _ in rows), sorted(r["row"]["n"] for r in via_arrow))


def check_arrow_reads(checks, nodes, reader, kv, events, when):
    """cluster_arrow_read.js against `reader`: endpoints at the three nodes (each at its bucket's
    owner), the union of the endpoints' rows = what was written."""
    addresses = sorted(n.flight for n in nodes)
    flight_of = {n.node_id: n.flight for n in nodes}
    for table, mode, meta in ((KV, "snapshot", False), (EVENTS, "log", True)):
        endpoints, rows = minktest.arrow_read(reader, table, mode, meta)
        own = owners(reader, table)
        checks.expect(f"{when}: {table} {mode}: 6 endpoints from node {reader.node_id}", BUCKETS,
                      len(endpoints))
        checks.expect(f"{when}: {table} {mode}: the endpoints name the three nodes' addresses",
                      addresses, sorted({e["location"] for e in endpoints}))
        checks.expect(f"{when}: {table} {mode}: each endpoint is at its bucket's owner",
                      {f"b{e['ticket']['bucket']}": flight_of.get(own.get(f"b{e['ticket']['bucket']}"))
                       for e in endpoints},
                      {f"b{e['ticket']['bucket']}": e["location"] for e in endpoints})
        if mode == "snapshot":
            got = {}
            for r in rows:
                got.setdefault(r["row"]["id"], []).append(r["row"])
            checks.expect(f"{when}: {table} snapshot through the endpoints: every key once, its"
                          " last value", {k: [v] for k, v in kv.items()}, got)
        else:
            checks.expect(f"{when}: {table} log through the endpoints: every event once",
                          sorted(e["id"] for e in events), sorted(r["row"]["id"] for r in rows))
            wrong = [r for r in rows
                     if r["row"]["__bucket"] != f"b{endpoints[r['endpoint']]['ticket']['bucket']}"]
            checks.ok(f"{when}: {table}: each endpoint served the rows of its own bucket", not wrong,
                      str(wrong[:3]))


if __name__ == "__main__":
    main()
