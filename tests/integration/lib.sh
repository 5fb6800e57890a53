# shellcheck shell=bash
# Shared bash helpers of the integration tests: a `mink serve` of their own on a temporary
# directory and free loopback ports (Flight and Kafka), check bookkeeping and bounded waits.
#
#   source "$(dirname "$0")/lib.sh"
#   mink_test_init NAME path/to/mink      # WORK, MINK_BIN, FLIGHT_PORT, KAFKA_PORT, BROKER, traps
#   start_node [extra serve flags...]     # waits until Flight and Kafka answer (30 s)
#   ... pass/fail/expect ...
#   mink_test_finish                      # stops the node, prints the summary, exits 0 or 1
#
# A client the test needs but cannot find fails the test under MINK_TEST_REQUIRE_SERVICES=1
# (scripts/with-test-services) and skips it (exit 77) otherwise.

set -u

FAILURES=0
NODE_PID=
MINK_TEST_NAME=
# Debian's interpreter: python3-confluent-kafka and python3-kafka live in its dist-packages.
DEBIAN_PYTHON=${MINK_TEST_PYTHON:-/usr/bin/python3}

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}
pass() { echo "ok: $*"; }

# expect NAME EXPECTED ACTUAL
expect() {
  if [ "$2" == "$3" ]; then
    pass "$1"
  else
    fail "$1"
    echo "--- expected" >&2
    printf '%s\n' "$2" >&2
    echo "--- actual" >&2
    printf '%s\n' "$3" >&2
  fi
}

# expect_contains NAME NEEDLE HAYSTACK
expect_contains() {
  if [[ "$3" == *"$2"* ]]; then
    pass "$1"
  else
    fail "$1: '$2' not in:"
    printf '%s\n' "$3" >&2
  fi
}

# run_failing NAME STATUS CMD... (stdin passes through): runs CMD, which must exit with STATUS
# and print nothing on stdout; its stderr is left in $ERR. Returns 1 (after a FAIL) otherwise.
run_failing() {
  local name=$1 status=$2
  shift 2
  local out rc
  out=$("$@" 2>"$WORK/err")
  rc=$?
  ERR=$(cat "$WORK/err")
  if [ "$rc" -ne "$status" ]; then
    fail "$name: exit status $rc, expected $status (stderr: $ERR)"
    return 1
  elif [ -n "$out" ]; then
    fail "$name: printed '$out' on stdout"
    return 1
  fi
}

# create_shop_tables: the quick start's shop.orders (primary key, partitioned) and shop.events
# with its rows, on the running node.
create_shop_tables() {
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
}

free_port() {
  "$DEBIAN_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# require_tool NAME CHECK-CMD...: the command must succeed, else fail (services required) or skip.
require_tool() {
  local name=$1
  shift
  if ! "$@" >/dev/null 2>&1; then
    if [ "${MINK_TEST_REQUIRE_SERVICES:-0}" = 1 ]; then
      echo "FAIL: $name is not available ($*) and MINK_TEST_REQUIRE_SERVICES=1" >&2
      exit 1
    fi
    echo "SKIP: $name is not available ($*)" >&2
    exit 77
  fi
}

mink_test_cleanup() {
  if [ -n "$NODE_PID" ]; then
    kill -9 "$NODE_PID" 2>/dev/null
    wait "$NODE_PID" 2>/dev/null
    NODE_PID=
  fi
  # Background clients a test left behind (its own children only).
  local child
  for child in $(jobs -p); do kill -9 "$child" 2>/dev/null; done
  if [ "${MINK_TEST_KEEP:-0}" = 1 ]; then
    echo "kept $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}

mink_test_init() {
  MINK_TEST_NAME=$1
  MINK_BIN=${2:?usage: $0 path/to/mink}
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/mink-$MINK_TEST_NAME.XXXXXX")
  trap mink_test_cleanup EXIT
  require_tool "Debian python3" "$DEBIAN_PYTHON" -c 'import socket'
  FLIGHT_PORT=$(free_port)
  KAFKA_PORT=$(free_port)
  while [ "$KAFKA_PORT" = "$FLIGHT_PORT" ]; do KAFKA_PORT=$(free_port); done
  BROKER="127.0.0.1:$KAFKA_PORT"
  export MINK_BOOTSTRAP="grpc://127.0.0.1:$FLIGHT_PORT"
}

# The `mink` client commands as written in the docs.
mink() { "$MINK_BIN" "$@"; }

# kafka_answers: the Kafka port accepts a connection.
kafka_answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$KAFKA_PORT") 2>/dev/null
}

# start_node [flags...]: `mink serve` on $WORK with Flight and Kafka on the test's ports; the
# flags are added (e.g. --kafka-default-partitions 3). Exits the test if the node does not come up.
start_node() {
  "$MINK_BIN" serve --listen "127.0.0.1:$FLIGHT_PORT" --kafka-listen "$BROKER" \
    --meta-url "sqlite:$WORK/meta.db" --storage-uri "-2@file://$WORK/objects" "$@" \
    >>"$WORK/node.log" 2>&1 &
  NODE_PID=$!
  for _ in $(seq 1 300); do
    if kafka_answers && "$MINK_BIN" db list >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$NODE_PID" 2>/dev/null; then
      echo "FAIL: the node exited; its log:" >&2
      tail -50 "$WORK/node.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "FAIL: the node did not answer within 30 s; its log:" >&2
  tail -50 "$WORK/node.log" >&2
  exit 1
}

# stop_node: SIGINT, and the node must exit cleanly within 30 s.
stop_node() {
  [ -z "$NODE_PID" ] && return 0
  kill -INT "$NODE_PID"
  for _ in $(seq 1 300); do
    kill -0 "$NODE_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$NODE_PID" 2>/dev/null; then
    fail "node did not stop within 30 s of SIGINT"
    kill -9 "$NODE_PID"
  fi
  wait "$NODE_PID"
  local rc=$?
  NODE_PID=
  [ "$rc" -eq 0 ] && pass "node stopped cleanly on SIGINT" || fail "node exit status $rc on SIGINT"
}

kill_node() {
  kill -9 "$NODE_PID"
  wait "$NODE_PID" 2>/dev/null
  NODE_PID=
}

# wait_until SECONDS CMD...: runs CMD every 0.2 s until it succeeds; false after SECONDS.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  while ! "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

mink_test_finish() {
  stop_node
  if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed; node log:" >&2
    tail -40 "$WORK/node.log" >&2
    exit 1
  fi
  echo "all checks passed"
  exit 0
}
