#!/usr/bin/python3
"""The browser console (docs/operations.md, Console) in headless Chromium (Debian's chromium),
driven through the DevTools protocol (python3-websockets), against a node of the test's own with
an HTTP listener and a mink-query serve for its SQL box:

  - the page loads and shows the node, the table the test made with its buckets, owner and end
    offset, and the consumer group the test committed with its lag (end - committed);
  - a query typed into the SQL box and run with the button comes back from mink-query with the
    rows the test wrote (a count and a sum: computed, not echoed);
  - a statement mink-query refuses shows its error on the page.

Usage: console_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck, websockets) = minktest.require_modules("confluent_kafka", "websockets")
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    minktest.unavailable("Debian's chromium is not installed (scripts/setup installs it)")

ROWS = 25  # shop.orders: id 1..25
TOPIC, PRODUCED, CONSUMED = "clicks", 10, 4


def make_data(node):
    node.mink("db", "create", "shop")
    node.mink("table", "create", "shop.orders", "-C", "id BIGINT NOT NULL", "-C", "item STRING")
    lines = "".join(json.dumps({"id": i, "item": f"item-{i}"}) + "\n" for i in range(1, ROWS + 1))
    node.mink("write", "shop.orders", input=lines)
    p = Producer({"bootstrap.servers": node.broker})
    for i in range(PRODUCED):
        p.produce(TOPIC, value=f"click {i}".encode())
    assert p.flush(15) == 0
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "readers", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    got = 0
    deadline = time.monotonic() + 15
    while got < CONSUMED and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got += 1
    c.commit(offsets=[TopicPartition(TOPIC, 0, CONSUMED)], asynchronous=False)
    c.close()


def start_query(mink_query, node, port):
    """mink-query serve with its Flight SQL on `port`, reading from the node."""
    path = os.path.join(node.work, "query.log")
    log = open(path, "wb")
    proc = subprocess.Popen([mink_query, "serve", "--listen", f"127.0.0.1:{port}"], stdout=log,
                            stderr=subprocess.STDOUT, env=dict(os.environ, MINK_BOOTSTRAP=node.flight))
    log.close()
    if not minktest.wait_until(20, lambda: "Flight SQL on" in open(path).read()):
        proc.kill()
        raise RuntimeError("mink-query serve did not start: " + open(path).read())
    return proc


class Browser:
    """One headless Chromium page, driven over the DevTools protocol."""

    def __init__(self, work):
        self.port = minktest.free_port()
        self.profile = tempfile.mkdtemp(prefix="chromium.", dir=work)
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-dev-shm-usage", f"--user-data-dir={self.profile}",
             f"--remote-debugging-port={self.port}", "--remote-allow-origins=*", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def page_socket(self):
        def pages():
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                        f"http://127.0.0.1:{self.port}/json/list", timeout=2) as r:
                    return [t for t in json.loads(r.read()) if t.get("type") == "page"]
            except OSError:
                return []
        if not minktest.wait_until(30, lambda: pages()):
            raise RuntimeError("chromium's DevTools endpoint did not come up")
        return pages()[0]["webSocketDebuggerUrl"]

    async def call(self, ws, method, **params):
        self.next_id += 1
        await ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, ws, expression):
        r = await self.call(ws, "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def wait_for(self, ws, expression, seconds=20):
        """The first truthy value of `expression` within `seconds` (None if never)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = await self.evaluate(ws, expression)
            if value:
                return value
            await asyncio.sleep(0.2)
        return None

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)


async def drive(checks, browser, node):
    url = f"http://{node.http_listen}/console"
    async with websockets.connect(browser.page_socket(), max_size=1 << 24) as ws:
        await browser.call(ws, "Page.enable")
        await browser.call(ws, "Page.navigate", url=url)
        shown = await browser.wait_for(ws, "document.querySelector('[data-table=\"shop.orders\"]') !== null && "
                                           "document.getElementById('groups').innerText")
        checks.ok("the console loads and lists the table the test made", bool(shown), str(shown))
        bucket = await browser.evaluate(ws, "(() => { const t = document.querySelector('[data-table=\"shop.orders\"]')"
                                            ".nextElementSibling; return [...t.rows].slice(1).map(r => "
                                            "[...r.cells].map(c => c.innerText)); })()")
        checks.expect("its bucket: b0, owned by node 1, offsets 0 to the rows written", [["b0", "1", "0", str(ROWS)]],
                      bucket)
        groups = await browser.evaluate(ws, "[...document.getElementById('groups').rows].slice(1).map(r => "
                                            "[...r.cells].map(c => c.innerText))")
        checks.expect("the consumer group with its committed offset, end and lag",
                      [["readers", TOPIC, "0", str(CONSUMED), str(PRODUCED), str(PRODUCED - CONSUMED)]], groups)
        nodes = await browser.evaluate(ws, "[...document.getElementById('nodes').rows].slice(1).map(r => "
                                           "r.cells[0].innerText + ' ' + r.cells[3].innerText)")
        checks.expect("the cluster's node, live", ["1 yes"], nodes)

        await browser.evaluate(ws, "document.getElementById('sql').value = "
                                   "'SELECT count(*) AS n, sum(id) AS total FROM mink.shop.orders'; "
                                   "document.getElementById('run').click(); true")
        result = await browser.wait_for(ws, "(() => { const t = document.getElementById('result-table'); return t && "
                                            "[...t.rows].map(r => [...r.cells].map(c => c.innerText)); })()")
        checks.expect("the SQL box runs the query on mink-query and shows its answer",
                      [["n", "total"], [str(ROWS), str(ROWS * (ROWS + 1) // 2)]], result)
        await browser.evaluate(ws, "document.getElementById('sql').value = 'SELECT * FROM mink.shop.missing'; "
                                   "document.getElementById('run').click(); true")
        error = await browser.wait_for(ws, "(() => { const e = document.querySelector('#result .error'); "
                                           "return e && e.innerText; })()")
        checks.ok("a failing statement shows mink-query's error", error and "missing" in error, str(error))


def run(checks, node, mink_query):
    query_port = minktest.free_port()
    node.start(extra=["--http-listen", node.http_listen, "--console-query", f"grpc://127.0.0.1:{query_port}"])
    make_data(node)
    query = start_query(mink_query, node, query_port)
    browser = Browser(node.work)
    try:
        asyncio.run(asyncio.wait_for(drive(checks, browser, node), 120))
    finally:
        browser.close()
        query.terminate()
        query.wait(timeout=20)


def main():
    node = minktest.node_from_argv("console", 170, http=True, usage="path/to/mink path/to/mink-query")

    def body(checks):
        run(checks, node, sys.argv[2])
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "console")


if __name__ == "__main__":
    main()
