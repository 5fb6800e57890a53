"""A loopback TCP proxy in front of PostgreSQL that can cut one node off its metadata database
(cluster_fencing_test.py). One thread per connection pair (client <-> PostgreSQL) forwards the
bytes both ways; the test flips the mode:

- "pass": bytes flow.
- "blackhole": nothing is forwarded in either direction, the sockets stay open (a network
  partition: the client's statements wait in the kernel's buffers, nothing errors, TCP keepalives
  are answered). New connections are accepted and held the same way. `heal()` forwards what
  waited, as TCP would once a partition heals.
- "refuse": every connection is closed and new ones are closed at once (the database host is
  gone: libpq sees errors at once).

`lose_commit_replies(n)` makes the next n COMMITs land without their answer: the COMMIT is
forwarded, the server commits, and its reply is dropped as the connection is reset (the client
cannot tell whether its transaction committed). `lost_commits` counts them.

`cut_when_idle()` cuts only at a moment when no connection of the node is inside a statement or
a transaction (it follows the server's ReadyForQuery messages: the node URL must ask for
sslmode=disable&gssencmode=disable, so every server message is typed), so the cut node holds no
lock in PostgreSQL, in particular not the metadata log's append lock. `cut_inside_append_lock()`
cuts right after the server granted the node that lock, the opposite case.
"""

import select
import socket
import struct
import threading
import time
import urllib.parse

APPEND_LOCK_SQL = b"pg_advisory_xact_lock"


def proxied_url(meta_url, port):
    """`meta_url` with the host and port of a proxy on loopback `port`; sslmode and gssencmode
    off, so every server message is typed (the proxy follows ReadyForQuery)."""
    parts = urllib.parse.urlsplit(meta_url)
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    query = dict(urllib.parse.parse_qsl(parts.query))
    query.update(sslmode="disable", gssencmode="disable")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{auth}127.0.0.1:{port}",
                                                  query=urllib.parse.urlencode(query)))


class _Pair:
    """One client connection and its upstream connection, with what the test needs to know
    about the conversation: the transaction status of the server's last ReadyForQuery, and
    whether the client sent anything since."""

    def __init__(self, client, server):
        self.client = client
        self.server = server
        self.pending = {client: b"", server: b""}  # read, not yet forwarded (by source)
        self.server_buf = b""  # server bytes not yet framed into messages
        self.last_z = None  # b"I", b"T", b"E" or None before the first ReadyForQuery
        self.awaiting = True  # the client sent something the server has not answered with Z
        self.lock_query = False  # the last client bytes asked for the append lock
        self.got_append_lock = False  # ... and the server answered, inside a transaction
        self.drop_reply = False  # a COMMIT went out whose answer is to be lost
        self.closed = False

    def note_client(self, data):
        self.awaiting = True
        self.got_append_lock = False
        self.lock_query = APPEND_LOCK_SQL in data

    def note_server(self, data):
        self.server_buf += data
        while len(self.server_buf) >= 5:
            kind = self.server_buf[:1]
            length = struct.unpack("!I", self.server_buf[1:5])[0]
            if len(self.server_buf) < 1 + length:
                break
            body = self.server_buf[5:1 + length]
            self.server_buf = self.server_buf[1 + length:]
            if kind == b"Z":
                self.last_z = body[:1]
                self.awaiting = False
                self.got_append_lock = self.lock_query and self.last_z == b"T"
                self.lock_query = False

    def idle(self):
        return (not self.closed and self.last_z == b"I" and not self.awaiting
                and not self.server_buf and not any(self.pending.values()))

    def close(self):
        self.closed = True
        for s in (self.client, self.server):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass


class PgProxy:
    def __init__(self, upstream_host, upstream_port, name="pg"):
        self.upstream = (upstream_host, upstream_port)
        self.name = name
        self.mode = "pass"
        self.cond = threading.Condition()
        self.pairs = []
        self.connections = 0
        self.cut_at = None
        self.lose_commits = 0  # COMMITs still to lose the answer of
        self.lost_commits = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.stopping = False
        threading.Thread(target=self._accept_loop, daemon=True, name=f"{name}-accept").start()

    # ---- control

    def cut(self, mode="blackhole"):
        with self.cond:
            self._cut_locked(mode)

    def _cut_locked(self, mode):
        self.mode = mode
        self.cut_at = time.monotonic()
        if mode == "refuse":
            for p in self.pairs:
                p.close()
            self.pairs = [p for p in self.pairs if not p.closed]
        self.cond.notify_all()

    def cut_when_idle(self, timeout=10.0, mode="blackhole"):
        """Cuts when every connection is idle outside a transaction; False after `timeout`."""
        return self._cut_when(lambda live: live and all(p.idle() for p in live), timeout, mode)

    def cut_inside_append_lock(self, timeout=10.0):
        """Cuts right after the server granted a connection the metadata log's append lock (the
        node is inside an append's transaction); False after `timeout`."""
        return self._cut_when(lambda live: any(p.got_append_lock and not p.pending[p.client]
                                               for p in live), timeout, "blackhole")

    def _cut_when(self, condition, timeout, mode):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.cond:
                live = [p for p in self.pairs if not p.closed]
                if condition(live):
                    self._cut_locked(mode)
                    return True
            time.sleep(0.0005)
        return False

    def lose_commit_replies(self, count=1):
        """The next `count` COMMITs reach the server; their answers are lost with the connection."""
        with self.cond:
            self.lose_commits += count

    def heal(self, reset=False):
        """Forwards again (what waited is delivered); with `reset`, closes every connection that
        was held instead, so the client reconnects."""
        with self.cond:
            if reset:
                for p in self.pairs:
                    p.close()
                self.pairs = [p for p in self.pairs if not p.closed]
            self.mode = "pass"
            self.cut_at = None
            self.cond.notify_all()

    def close(self):
        with self.cond:
            self.stopping = True
            for p in self.pairs:
                p.close()
            self.cond.notify_all()
        try:
            self.listener.close()
        except OSError:
            pass

    # ---- forwarding

    def _accept_loop(self):
        while not self.stopping:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.cond:
                if self.mode == "refuse":
                    client.close()
                    continue
            threading.Thread(target=self._serve, args=(client,), daemon=True,
                             name=f"{self.name}-pair").start()

    def _serve(self, client):
        # A connection made during a black hole waits (unanswered, like a lost SYN) until heal.
        with self.cond:
            while self.mode == "blackhole" and not self.stopping:
                self.cond.wait(0.5)
            if self.mode == "refuse" or self.stopping:
                client.close()
                return
        try:
            server = socket.create_connection(self.upstream, timeout=10)
        except OSError:
            client.close()
            return
        server.settimeout(None)
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pair = _Pair(client, server)
        with self.cond:
            self.pairs.append(pair)
            self.connections += 1
        other = {client: server, server: client}
        try:
            while True:
                with self.cond:
                    while self.mode == "blackhole" and not pair.closed and not self.stopping:
                        self.cond.wait(0.5)
                    if pair.closed or self.stopping:
                        return
                    # What was read before a cut goes first, once forwarding is allowed.
                    for src in (client, server):
                        if pair.pending[src]:
                            self._forward(pair, src, other[src], pair.pending[src])
                            pair.pending[src] = b""
                try:
                    readable, _, _ = select.select([client, server], [], [], 0.05)
                except (OSError, ValueError):
                    return
                for src in readable:
                    try:
                        data = src.recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        pair.close()
                        return
                    with self.cond:
                        if src is server and pair.drop_reply:
                            pair.close()  # the COMMIT's answer: lost with the connection
                            return
                        if self.mode != "pass":
                            pair.pending[src] += data  # cut meanwhile: held until heal
                        else:
                            self._forward(pair, src, other[src], data)
        except OSError:
            pass
        finally:
            pair.close()
            with self.cond:
                if pair in self.pairs:
                    self.pairs.remove(pair)

    def _forward(self, pair, src, dst, data):
        """Called with self.cond held: the decision to forward and the bookkeeping are atomic
        with respect to a cut."""
        dst.sendall(data)
        if src is pair.client:
            if self.lose_commits > 0 and data[:1] == b"Q" and b"COMMIT\x00" in data:
                self.lose_commits -= 1
                self.lost_commits += 1
                pair.drop_reply = True
            pair.note_client(data)
        else:
            pair.note_server(data)
