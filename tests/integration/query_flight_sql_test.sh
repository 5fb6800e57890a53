#!/usr/bin/env bash
# Flight SQL of `mink-query serve` against an independent client (tests/node/flight_sql_client.js:
# @grpc/grpc-js, protobufjs and apache-arrow): a node with the quick start's tables, a mink-query
# serve on another loopback port, and the client's query, prepared statement and catalog
# commands. Skips (77) without node or tests/node/node_modules, unless
# MINK_TEST_REQUIRE_SERVICES=1.
#
# Usage: query_flight_sql_test.sh path/to/mink path/to/mink-query

source "$(dirname "$0")/lib.sh"
mink_test_init flight-sql "${1:-}"
QUERY_BIN=${2:?usage: query_flight_sql_test.sh path/to/mink path/to/mink-query}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
require_tool node node --version
require_tool "tests/node/node_modules (run scripts/setup)" test -d "$ROOT/tests/node/node_modules/apache-arrow"
SQL_PORT=$(free_port)
SERVE_PID=
start_node

create_shop_tables

"$QUERY_BIN" serve --listen "127.0.0.1:$SQL_PORT" >>"$WORK/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 300); do
  grep -q "Flight SQL on" "$WORK/serve.log" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done

if timeout 120 node "$ROOT/tests/node/flight_sql_client.js" "$SQL_PORT"; then
  pass "flight_sql_client.js: query, prepared statement and catalog commands"
else
  fail "flight_sql_client.js"
fi

# A clean stop on SIGINT.
kill -INT "$SERVE_PID"
wait "$SERVE_PID"
serve_rc=$?
SERVE_PID=
[ "$serve_rc" -eq 0 ] && pass "mink-query serve stopped cleanly on SIGINT" ||
  fail "mink-query serve exited with $serve_rc on SIGINT"
if [ "$FAILURES" -ne 0 ]; then
  echo "mink-query serve log:" >&2
  tail -40 "$WORK/serve.log" >&2
fi
mink_test_finish
