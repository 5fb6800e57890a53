#!/usr/bin/env bash
# Flight SQL of `mink-query serve` against an independent client (tests/node/flight_sql_client.js:
# @grpc/grpc-js, protobufjs and apache-arrow): a node with the quick start's tables, a mink-query
# serve on another loopback port, and the client's query, prepared statement and catalog
# commands. Skips (77) without node or tests/node/node_modules, unless
# MINK_TEST_REQUIRE_SERVICES=1.
#
# Usage: query_flight_sql_test.sh path/to/mink path/to/mink-query

set -u
MINK_BIN=${1:?usage: query_flight_sql_test.sh path/to/mink path/to/mink-query}
QUERY_BIN=${2:?usage: query_flight_sql_test.sh path/to/mink path/to/mink-query}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$ROOT/tests/node/node_modules/apache-arrow" ]; then
  if [ "${MINK_TEST_REQUIRE_SERVICES:-0}" = 1 ]; then
    echo "node or tests/node/node_modules is missing: run scripts/setup" >&2
    exit 1
  fi
  echo "skipped: node or tests/node/node_modules is missing"
  exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mink-flight-sql-test.XXXXXX")
NODE_PID=
SERVE_PID=

cleanup() {
  for pid in $SERVE_PID $NODE_PID; do
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

PORT=$(free_port)
SQL_PORT=$(free_port)
export MINK_BOOTSTRAP="grpc://127.0.0.1:$PORT"
mink() { "$MINK_BIN" "$@"; }

"$MINK_BIN" serve --listen "127.0.0.1:$PORT" --meta-url "sqlite:$WORK/meta.db" \
  --storage-uri "-2@file://$WORK/objects" >>"$WORK/node.log" 2>&1 &
NODE_PID=$!
for _ in $(seq 1 300); do
  "$MINK_BIN" db list >/dev/null 2>&1 && break
  kill -0 "$NODE_PID" 2>/dev/null || { tail -50 "$WORK/node.log" >&2; exit 1; }
  sleep 0.1
done

mink db create shop
mink table create shop.orders -C "id BIGINT NOT NULL" -C "region STRING NOT NULL" \
  -C "amount DECIMAL(10,2)" --primary-key id,region --partition-by region --bucket-count 2
mink table create shop.events -C "id BIGINT NOT NULL" -C "note STRING" --bucket-key id
mink write shop.orders <<'ROWS'
{"id": 1, "region": "us", "amount": "10.50"}
{"id": 2, "region": "eu", "amount": "3.00"}
{"id": 1, "region": "us", "amount": "11.00"}
ROWS
mink write shop.events <<'ROWS'
{"id": 7, "note": "a"}
{"id": 8, "note": "b"}
ROWS

"$QUERY_BIN" serve --listen "127.0.0.1:$SQL_PORT" >>"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 300); do
  grep -q "Flight SQL on" "$WORK/serve.log" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done

timeout 120 node "$ROOT/tests/node/flight_sql_client.js" "$SQL_PORT"
rc=$?

# A clean stop on SIGINT.
kill -INT "$SERVE_PID"
wait "$SERVE_PID"
serve_rc=$?
SERVE_PID=
if [ "$serve_rc" -ne 0 ]; then
  echo "FAIL: mink-query serve exited with $serve_rc on SIGINT" >&2
  rc=1
fi
if [ "$rc" -ne 0 ]; then
  echo "mink-query serve log:" >&2
  tail -40 "$WORK/serve.log" >&2
  exit 1
fi
echo "all checks passed"
