"""What the continuous SQL tests share: the node's HTTP SQL API, and event times as the tests write
them (after T0) and as the node prints them."""

import datetime
import json
import re
import urllib.error
import urllib.request

T0 = datetime.datetime(2026, 10, 18, 9, 30)  # UTC, naive: the node prints timestamps without a zone


def http_sql(address, text):
    """POST /api/v1/sql to host:port `address`: (status, parsed JSON or the body's text); status
    None when the node cannot be reached."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(f"http://{address}/api/v1/sql", data=json.dumps({"sql": text}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        try:
            return e.code, json.loads(body)
        except ValueError:
            return e.code, body
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


def micros(text):
    """A timestamp the node prints (2026-10-18T09:30:07.500000, or ...:00 for a window) as
    microseconds after T0."""
    dt = datetime.datetime.fromisoformat(text.rstrip("Z"))
    return (dt.replace(tzinfo=None) - T0) // datetime.timedelta(microseconds=1)


def window_name(k, w_us):
    return f"{k}@{(T0 + datetime.timedelta(microseconds=w_us)).strftime('%H:%M:%S')}"


def listed(items, limit=20):
    items = sorted(items)
    return ", ".join(map(str, items[:limit])) + (f" ... ({len(items)} in all)" if len(items) > limit else "")


def read_rows(node, table, *flags):
    """A table's rows through `mink read` (JSON lines), parsed."""
    return [json.loads(line) for line in
            node.mink("read", table, "--format", "json", *flags, timeout=60).stdout.splitlines() if line.strip()]


def pipeline_log(node):
    """The node log's lines about streams and pipelines (every start so far)."""
    try:
        with open(node.log_path, errors="replace") as f:
            return [line.rstrip() for line in f if re.search(r"stream|pipeline", line, re.I)]
    except OSError:
        return []
