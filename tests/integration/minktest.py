"""Shared helpers of the Python integration tests (run with Debian's /usr/bin/python3, which has
python3-confluent-kafka and python3-kafka): a `mink serve` of the test's own on a temporary
directory and free loopback ports (Flight and Kafka), check bookkeeping, bounded waits.

    node = MinkNode(sys.argv[1], "confluent")   # temp dir, free ports
    node.start(default_partitions=3)            # waits until Flight and Kafka answer (30 s)
    checks = Checks()
    checks.expect("name", expected, actual)
    ...
    node.stop(); checks.finish(node)            # exit status 0 or 1

A module the test needs but cannot import fails the test under MINK_TEST_REQUIRE_SERVICES=1
(scripts/with-test-services) and skips it (exit 77) otherwise.
"""

import faulthandler
import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request


STARTED = time.monotonic()


def log(msg):
    """A progress line stamped with the seconds since the test began."""
    print(f"[{time.monotonic() - STARTED:6.1f}s] {msg}", flush=True)


def unavailable(why):
    """Something the test needs is missing (`why`): fails the test (exit 1) under
    MINK_TEST_REQUIRE_SERVICES=1, skips it (exit 77) otherwise."""
    if os.environ.get("MINK_TEST_REQUIRE_SERVICES") == "1":
        print(f"FAIL: {why} and MINK_TEST_REQUIRE_SERVICES=1", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr, flush=True)
    sys.exit(77)


def require_modules(*names):
    """Imports the modules, or fails/skips the test when one is missing."""
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError as e:
            unavailable(f"Python module {name} is not available to {sys.executable}: {e}")
    return modules


def require_tool(name, *cmd):
    """The command must run successfully, or the test fails/skips."""
    try:
        ok = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        unavailable(f"{name} is not available ({' '.join(cmd)})")


def require_node_modules(*names):
    """Node.js and the npm modules of tests/node (scripts/setup installs them), or fails/skips."""
    require_tool("node", "node", "--version")
    modules = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "node_modules")
    missing = [m for m in names if not os.path.isdir(os.path.join(modules, m))]
    if missing:
        unavailable(f"npm modules {missing} are not in {os.path.normpath(modules)}")


def sorted_rows(text):
    """JSON lines as a list of rows in a canonical order (for comparing reads as multisets)."""
    return sorted((json.loads(line) for line in text.splitlines()), key=lambda r: json.dumps(r, sort_keys=True))


def lake_caught_up(node, table):
    """True once the lake snapshot of `table` covers every bucket's log end."""
    ends = {o["bucket"]: o["end"] for o in
            map(json.loads, node.mink("table", "offsets", table, "--format", "json").stdout.splitlines())}
    lake = json.loads(node.mink("table", "lake-snapshot", table, "--format", "json").stdout)
    return {b["bucket"]: b["offset"] for b in lake["buckets"]} == ends


def icebird_read(node, table):
    """The rows of `table`'s lake as icebird (npm) reads them (tests/node/icebird_read.mjs, for a
    warehouse on the file system), and the table's directory. Raises when icebird fails."""
    lake = json.loads(node.mink("table", "lake-snapshot", table, "--format", "json").stdout)
    table_dir = os.path.dirname(os.path.dirname(urllib.parse.urlsplit(lake["metadata_location"]).path))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "icebird_read.mjs")
    r = subprocess.run(["node", script, table_dir], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"icebird_read.mjs {table}: {r.stderr.strip()[-2000:]}")
    return sorted_rows(r.stdout), table_dir


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_until(seconds, condition, interval=0.1):
    """Calls condition() until it is true; False after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def hard_deadline(seconds):
    """Ends the process with a failure after `seconds` (every wait in the tests is bounded too;
    this is the backstop for a client call that hangs)."""

    def expired(signum, frame):
        print(f"FAIL: the test did not finish within {seconds} s", file=sys.stderr, flush=True)
        os._exit(1)

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    # A client call blocked in C never lets the handler above run: a watchdog thread then prints
    # where every thread is and ends the process.
    faulthandler.dump_traceback_later(seconds + 10, exit=True)


def require_env(name):
    value = os.environ.get(name, "")
    if value:
        return value
    why = f"{name} is not set (run under scripts/with-test-services)"
    if os.environ.get("MINK_TEST_REQUIRE_SERVICES") == "1":
        print(f"FAIL: {why}", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


def fresh_database(pg_url):
    """A PostgreSQL database of this test's own on the harness's server; its URL."""
    name = f"mink_cluster_{os.getpid()}_{int(time.time())}"
    subprocess.run(["psql", pg_url, "-q", "-c", f"CREATE DATABASE {name}"], check=True,
                   capture_output=True, timeout=30)
    parts = urllib.parse.urlsplit(pg_url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def fresh_bucket(s3_uri):
    """A bucket of this test's own on the harness's S3 server; the storage URI for it."""
    bucket_id, rest = s3_uri.split("@", 1)
    parts = urllib.parse.urlsplit(rest)
    endpoint = dict(urllib.parse.parse_qsl(parts.query))["endpoint"]
    name = f"cluster-{os.getpid()}-{int(time.time())}"
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{name}", method="PUT"), timeout=30).read()
    return f"{bucket_id}@" + urllib.parse.urlunsplit(parts._replace(netloc=name))


def cluster_stores():
    """(metadata URL, storage URI) for a cluster of this test's own: a fresh PostgreSQL
    database and S3 bucket on the servers of scripts/with-test-services (skips, or fails under
    MINK_TEST_REQUIRE_SERVICES=1, without them)."""
    pg = require_env("MINK_TEST_PG_URL")
    s3 = require_env("MINK_TEST_S3_URI")
    return fresh_database(pg), fresh_bucket(s3)


class MinkNode:
    """One `mink serve` process on a temporary directory; restarts reuse the directory and ports."""

    def __init__(self, mink_bin, name, node_id=1, meta_url=None, storage_uri=None,
                 advertise_host="127.0.0.1", env=None):
        """A node alone on SQLite and files of its own, unless meta_url/storage_uri are shared
        (a cluster: PostgreSQL and S3). It listens on 127.0.0.1 and advertises `advertise_host`
        (a name that resolves to it, e.g. localhost); `env` adds to the node's environment."""
        self.mink_bin = os.path.abspath(mink_bin)
        self.node_id = node_id
        self.work = tempfile.mkdtemp(prefix=f"mink-{name}.", dir=os.environ.get("TMPDIR"))
        self.flight_port = free_port()
        self.kafka_port = free_port()
        while self.kafka_port == self.flight_port:
            self.kafka_port = free_port()
        self.kafka_listen = f"127.0.0.1:{self.kafka_port}"
        self.broker = f"{advertise_host}:{self.kafka_port}"
        self.flight = f"grpc://{advertise_host}:{self.flight_port}"
        self.env = dict(os.environ, **(env or {}))
        # The working copies of primary-key buckets: in the node's directory, not the runner's.
        self.cache_dir = os.path.join(self.work, "cache")
        self.env.setdefault("MINK_CACHE_DIR", self.cache_dir)
        self.proc = None
        self.flags = []
        self.log_path = os.path.join(self.work, "node.log")
        self.meta_url = meta_url or f"sqlite:{self.work}/meta.db"
        self.storage_uri = storage_uri or f"-2@file://{self.work}/objects"

    def start(self, default_partitions=1, extra=()):
        self.flags = ["--kafka-default-partitions", str(default_partitions), *extra]
        return self.restart()

    def restart(self):
        """Starts the node with the flags of start() and waits until it answers (30 s)."""
        log = open(self.log_path, "ab")
        # A test's own --kafka-advertise (a proxy in front of the listener) replaces the default.
        advertise = [] if "--kafka-advertise" in self.flags else ["--kafka-advertise", self.broker]
        self.proc = subprocess.Popen(
            [self.mink_bin, "serve", "--node-id", str(self.node_id),
             "--listen", f"127.0.0.1:{self.flight_port}", "--advertise", self.flight,
             "--kafka-listen", self.kafka_listen, *advertise,
             "--meta-url", self.meta_url, "--storage-uri", self.storage_uri, *self.flags],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the node exited with status {self.proc.returncode}; log:\n{self.log_tail()}")
            if self._kafka_answers() and self._flight_answers():
                return self
            time.sleep(0.1)
        raise RuntimeError(f"the node did not answer within 30 s; log:\n{self.log_tail()}")

    def _flight_answers(self):
        """Flight answers a call: a list of databases, or a refusal for want of credentials."""
        r = self.mink("db", "list", check=False)
        return r.returncode == 0 or "authentication required" in r.stderr

    def _kafka_answers(self):
        try:
            with socket.create_connection(("127.0.0.1", self.kafka_port), timeout=1):
                return True
        except OSError:
            return False

    def kill(self):
        """SIGKILL, no shutdown."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.proc = None

    def pause(self):
        """SIGSTOP: the process stops where it is, heartbeats included."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self, sig=signal.SIGINT, timeout=30):
        """SIGINT (or `sig`); returns the exit status (None if it had to be killed after `timeout` s)."""
        if not self.proc:
            return None
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
            rc = None
        self.proc = None
        return rc

    def mink(self, *args, check=True, input=None, timeout=60):
        """Runs a `mink` client command against this node; the CompletedProcess (text)."""
        env = dict(os.environ, MINK_BOOTSTRAP=self.flight)
        r = subprocess.run([self.mink_bin, *args], env=env, input=input, capture_output=True,
                           text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"mink {' '.join(args)}: status {r.returncode}: {r.stderr.strip()}")
        return r

    def mink_as(self, user, password, *args, input=None, timeout=60):
        """A `mink` client command as `user` (Basic credentials); raises when it fails."""
        env = dict(os.environ, MINK_BOOTSTRAP=self.flight, MINK_USER=user, MINK_PASSWORD=password)
        r = subprocess.run([self.mink_bin, *args], env=env, input=input, capture_output=True, text=True,
                           timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"mink {' '.join(args)} as {user}: status {r.returncode}: {r.stderr.strip()}")
        return r

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def cleanup(self):
        self.kill()
        if os.environ.get("MINK_TEST_KEEP") == "1":
            print(f"kept {self.work}", file=sys.stderr)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


class Checks:
    def __init__(self):
        self.failures = 0

    def ok(self, name, condition, detail=""):
        if condition:
            print(f"ok: {name}", flush=True)
        else:
            self.failures += 1
            print(f"FAIL: {name}" + (f": {detail}" if detail else ""), file=sys.stderr, flush=True)
        return condition

    def expect(self, name, expected, actual):
        if expected == actual:
            print(f"ok: {name}", flush=True)
            return True
        self.failures += 1
        print(f"FAIL: {name}\n--- expected\n{expected!r}\n--- actual\n{actual!r}", file=sys.stderr, flush=True)
        return False

    def fail(self, name, detail=""):
        return self.ok(name, False, detail)

    def finish(self, node=None):
        if self.failures:
            print(f"{self.failures} check(s) failed", file=sys.stderr)
            if node is not None:
                print(f"node log:\n{node.log_tail()}", file=sys.stderr)
            sys.exit(1)
        print("all checks passed")
        sys.exit(0)


def node_from_argv(name, budget_seconds, http=False, usage="path/to/mink"):
    """The frame's start: a hard deadline, sys.argv[1] as the mink binary (else the usage and
    exit 2), and a MinkNode named `name` (not started); with `http`, node.http_listen is a free
    loopback address of its own."""
    hard_deadline(budget_seconds)
    if len(sys.argv) < 1 + len(usage.split()):
        print(f"usage: {sys.argv[0]} {usage}", file=sys.stderr)
        sys.exit(2)
    node = MinkNode(sys.argv[1], name)
    if http:
        port = free_port()
        while port in (node.flight_port, node.kafka_port):
            port = free_port()
        node.http_listen = f"127.0.0.1:{port}"
    return node


def run_on_node(node, body, what):
    """The frame of a test on one node: `body(checks)` (the node started or not, as it likes),
    any exception a failure with its trace, then the checks' verdict (with the node's log when
    something failed) and the node's files removed."""
    checks = Checks()
    try:
        body(checks)
    except Exception as e:  # noqa: BLE001 - every error is a failure with its trace
        import traceback
        traceback.print_exc()
        checks.fail(f"{what}: {type(e).__name__}: {e}")
    finally:
        try:
            checks.finish(node)
        finally:
            node.cleanup()


ARROW_READER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster_arrow_read.js")


def arrow_read(node, table, mode, meta=False):
    """Reads `table` from `node` with an independent Arrow JS Flight client (cluster_arrow_read.js:
    GetFlightInfo, then DoGet at every endpoint): (endpoint lines, row lines)."""
    args = ["node", ARROW_READER, f"127.0.0.1:{node.flight_port}", table, mode]
    if meta:
        args.append("meta")
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"cluster_arrow_read.js {table} {mode}: {r.returncode}: {r.stderr.strip()}")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    return ([x for x in lines if x["kind"] == "endpoint"], [x for x in lines if x["kind"] == "row"])


def run_test(name, main, budget_seconds):
    """Runs main(node, checks) against a fresh node; any exception is a failure."""
    hard_deadline(budget_seconds)
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} path/to/mink", file=sys.stderr)
        sys.exit(2)
    node = MinkNode(sys.argv[1], name)
    checks = Checks()
    try:
        main(node, checks)
        rc = node.stop()
        checks.ok("node stopped cleanly on SIGINT", rc == 0, f"exit status {rc}")
    except Exception as e:  # noqa: BLE001 - every error is a test failure with its trace
        import traceback

        traceback.print_exc()
        checks.fail(f"{name}: {type(e).__name__}: {e}")
    finally:
        try:
            checks.finish(node)
        finally:
            node.cleanup()
