"""A loopback HTTP proxy in front of the test S3 server that can fail or slow down PUTs (the chaos
suite, chaos_test.py). Requests are forwarded verbatim, Host header included, so signatures made
for the proxy's address still verify upstream; each connection is served on a thread of its own.

    proxy = S3Proxy(upstream_port)
    uri = proxy.storage_uri(storage_uri)   # the same bucket, through the proxy
    proxy.fail_puts(3)                     # the next 3 PUTs answer 500 InternalError, unstored
    proxy.slow_puts(2.0, 5)                # the next 5 PUTs wait 2 s before they are forwarded
"""

import http.client
import http.server
import socketserver
import threading
import time
import urllib.parse


class S3Proxy:
    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.to_fail = 0
        self.to_slow = 0
        self.slow_s = 0.0
        self.failed = 0
        self.slowed = 0
        self.slow_requests = []  # (method, path, seconds) of requests that took over 5 s
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _forward(self):
                started = time.monotonic()
                try:
                    self._forward_timed()
                finally:
                    took = time.monotonic() - started
                    if took > 5:
                        with proxy.lock:
                            proxy.slow_requests.append((self.command, self.path, round(took, 1)))

            def _forward_timed(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.command == "PUT":
                    action = proxy._take_put_fault()
                    if action == "fail":
                        text = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError"
                                b"</Code><Message>injected by the chaos suite</Message></Error>")
                        self.send_response(500)
                        self.send_header("Content-Type", "application/xml")
                        self.send_header("Content-Length", str(len(text)))
                        self.end_headers()
                        self.wfile.write(text)
                        return
                    if action == "slow":
                        time.sleep(proxy.slow_s)
                conn = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                try:
                    conn.putrequest(self.command, self.path, skip_host=True,
                                    skip_accept_encoding=True)
                    for k, v in self.headers.items():
                        if k.lower() != "expect":  # answered here already (100 Continue)
                            conn.putheader(k, v)
                    conn.endheaders(body)
                    r = conn.getresponse()
                    data = r.read()
                    self.send_response(r.status, r.reason)
                    for k, v in r.getheaders():
                        if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                            self.send_header(k, v)
                    # A HEAD's Content-Length is the object's, not that of the empty body.
                    length = r.getheader("Content-Length") if self.command == "HEAD" else None
                    self.send_header("Content-Length", length or str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request, client_address):
                pass  # a client that went away (a killed node): nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True, name="s3-proxy").start()

    def _take_put_fault(self):
        with self.lock:
            if self.to_fail > 0:
                self.to_fail -= 1
                self.failed += 1
                return "fail"
            if self.to_slow > 0:
                self.to_slow -= 1
                self.slowed += 1
                return "slow"
        return None

    def fail_puts(self, count):
        with self.lock:
            self.to_fail += count

    def slow_puts(self, seconds, count):
        with self.lock:
            self.slow_s = seconds
            self.to_slow += count

    def storage_uri(self, uri):
        """`uri` (bucket-id@s3://bucket?...endpoint=...) with its endpoint at this proxy."""
        bucket_id, rest = uri.split("@", 1)
        parts = urllib.parse.urlsplit(rest)
        query = dict(urllib.parse.parse_qsl(parts.query))
        query["endpoint"] = f"http://127.0.0.1:{self.port}"
        return f"{bucket_id}@" + urllib.parse.urlunsplit(
            parts._replace(query=urllib.parse.urlencode(query)))

    @staticmethod
    def upstream_port_of(uri):
        parts = urllib.parse.urlsplit(uri.split("@", 1)[1])
        return urllib.parse.urlsplit(dict(urllib.parse.parse_qsl(parts.query))["endpoint"]).port

    def close(self):
        self.server.shutdown()
