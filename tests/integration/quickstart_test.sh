#!/usr/bin/env bash
# End-to-end test of the quick start in README.md: starts `mink serve` on a temporary directory
# and a free loopback port, runs the quick start's commands verbatim and compares their output
# byte for byte with the expected answers (README.md shows the changelog read and the offsets;
# the snapshot and the first two events follow from the rows written). Then: a follow read ended
# by Ctrl-C, a clean restart and a SIGKILL right after an acknowledged write (same answers after
# both), bad input (one-line errors, nothing written), an untiered union read and an unreachable
# node.
#
# Usage: quickstart_test.sh path/to/mink

source "$(dirname "$0")/lib.sh"
mink_test_init quickstart "${1:-}"

# run_quiet NAME CMD...: the command succeeds and prints nothing (as the quick start shows).
run_quiet() {
  local name=$1
  shift
  local out err rc
  out=$("$@" 2>"$WORK/err")
  rc=$?
  err=$(cat "$WORK/err")
  if [ "$rc" -ne 0 ] || [ -n "$out" ] || [ -n "$err" ]; then
    fail "$name: status $rc, stdout '$out', stderr '$err'"
  else
    pass "$name"
  fi
}

# expect_error NAME STATUS STDERR_PREFIX CMD... (stdin passes through): the command fails with
# STATUS, prints nothing on stdout and one line on stderr starting with STDERR_PREFIX.
expect_error() {
  local name=$1 prefix=$3
  run_failing "$name" "$2" "${@:4}" || return
  if [ "$(printf '%s\n' "$ERR" | wc -l)" -ne 1 ]; then
    fail "$name: stderr is not one line: $ERR"
  elif [[ "$ERR" != "$prefix"* ]]; then
    fail "$name: stderr '$ERR' does not start with '$prefix'"
  else
    pass "$name: $ERR"
  fi
}

ORDERS_CHANGELOG='{"id":1,"region":"us","amount":10.50,"__bucket":"p1/b0","__offset":0,"__change":"+I"}
{"id":1,"region":"us","amount":10.50,"__bucket":"p1/b0","__offset":1,"__change":"-U"}
{"id":1,"region":"us","amount":11.00,"__bucket":"p1/b0","__offset":2,"__change":"+U"}'
ORDERS_SNAPSHOT='{"id":1,"region":"us","amount":11.00}
{"id":2,"region":"eu","amount":3.00}'
EVENTS_FIRST_TWO='{"id":7,"note":"a"}
{"id":8,"note":"b"}'
EVENTS_OFFSETS='{"bucket":"b0","start":0,"end":2,"owner":1}'

# The answers to the quick start's reads.
check_answers() {
  local when=$1
  expect "$when: mink read shop.orders --meta --partition us" "$ORDERS_CHANGELOG" \
    "$(mink read shop.orders --meta --partition us)"
  expect "$when: mink read shop.orders --mode snapshot" "$ORDERS_SNAPSHOT" \
    "$(mink read shop.orders --mode snapshot | sort)"
  expect "$when: mink read shop.events -n 2" "$EVENTS_FIRST_TWO" "$(mink read shop.events -n 2)"
  expect "$when: mink table offsets shop.events" "$EVENTS_OFFSETS" \
    "$(mink table offsets shop.events)"
  expect "$when: mink lookup shop.orders id=1 region=us" '{"id":1,"region":"us","amount":11.00}' \
    "$(mink lookup shop.orders id=1 region=us)"
  expect "$when: mink lookup of keys on stdin, one missing" '{"id":2,"region":"eu","amount":3.00}
{"id":1,"region":"us","amount":11.00}' \
    "$(printf '{"id":2,"region":"eu"}\n{"id":3,"region":"eu"}\n{"id":1,"region":"us"}\n' |
       mink lookup shop.orders)"
}

start_node

# ---- First table (verbatim)
run_quiet "mink db create shop" mink db create shop

run_quiet "mink table create shop.orders" \
mink table create shop.orders \
    -C "id BIGINT NOT NULL" \
    -C "region STRING NOT NULL" \
    -C "amount DECIMAL(10,2)" \
    --primary-key id,region \
    --partition-by region \
    --bucket-count 2

run_quiet "mink table create shop.events" \
mink table create shop.events \
    -C "id BIGINT NOT NULL" \
    -C "note STRING" \
    --bucket-key id

# ---- Write (verbatim)
run_quiet "mink write shop.orders" \
mink write shop.orders <<'EOF'
{"id": 1, "region": "us", "amount": "10.50"}
{"id": 2, "region": "eu", "amount": "3.00"}
{"id": 1, "region": "us", "amount": "11.00"}
EOF

run_quiet "mink write shop.events" \
mink write shop.events <<'EOF'
{"id": 7, "note": "a"}
{"id": 8, "note": "b"}
EOF

# ---- Read
check_answers "seed"
expect "mink db list" "shop" "$(mink db list)"
expect "mink table list shop" "shop.events
shop.orders" "$(mink table list shop)"
describe=$(mink table describe shop.orders)
if [[ "$describe" == *"primary key"*"id, region"* && "$describe" == *"DECIMAL(10,2)"* &&
      "$describe" == *"us (p1)"* && "$describe" == *"owners"*"node 1: "* ]]; then
  pass "mink table describe shop.orders"
else
  fail "mink table describe shop.orders: $describe"
fi
expect "mink table offsets shop.events --format text" "b0  start=0 end=2 owner=1" \
  "$(mink table offsets shop.events --format text)"
expect "mink table offsets shop.events --at 0" '{"bucket":"b0","start":0,"end":2,"at":0,"owner":1}' \
  "$(mink table offsets shop.events --at 0)"
# One node, live, the coordinator, advertising its listeners, owning the five buckets (two
# partitions of two buckets, and one).
expect "mink cluster nodes" \
  "{\"buckets\":5,\"coordinator\":true,\"epoch\":1,\"flight\":\"grpc://127.0.0.1:$FLIGHT_PORT\",\"kafka\":\"$BROKER\",\"live\":true,\"node\":1}" \
  "$(mink cluster nodes)"

# mink read shop.events -f: a tail that new writes reach, ended by Ctrl-C with status 0.
run_quiet "mink table create shop.tail" mink table create shop.tail -C "id BIGINT NOT NULL" -C "note STRING"
# (the binary itself, not the `mink` function: $! must be the process that gets Ctrl-C)
"$MINK_BIN" read shop.tail -f >"$WORK/tail.out" 2>"$WORK/tail.err" &
TAIL_PID=$!
sleep 0.5
echo '{"id": 1, "note": "followed"}' | mink write shop.tail
for _ in $(seq 1 100); do
  [ -s "$WORK/tail.out" ] && break
  sleep 0.1
done
kill -INT "$TAIL_PID"
wait "$TAIL_PID"
rc=$?
TAIL_PID=
expect "mink read shop.tail -f: the new row" '{"id":1,"note":"followed"}' "$(cat "$WORK/tail.out")"
expect "mink read -f: Ctrl-C ends it with status 0 and no error" "0 " "$rc $(cat "$WORK/tail.err")"

# Partial updates and deletes (a table of its own, so that the quick start's answers stay as
# they are).
run_quiet "mink table create shop.pk" mink table create shop.pk -C "k INT NOT NULL" \
  -C "a STRING" -C "b DECIMAL(5,1)" --primary-key k
printf '{"k": 1, "a": "x", "b": 1.5}\n{"k": 2, "a": "y", "b": "2"}\n' | mink write shop.pk
echo '{"k": 1, "b": 9}' | mink write shop.pk --columns b
echo '{"k": 2}' | mink write shop.pk --delete
expect "partial update and delete" '{"k":1,"a":"x","b":9.0}' "$(mink read shop.pk --mode snapshot)"
expect "changelog of shop.pk" '{"k":1,"__change":"+I"}
{"k":2,"__change":"+I"}
{"k":1,"__change":"-U"}
{"k":1,"__change":"+U"}
{"k":2,"__change":"-D"}' "$(mink read shop.pk --meta --columns k | sed 's/,"__bucket":"b0","__offset":[0-9]*//')"
expect_error "partial update with a column outside --columns" 2 \
  "mink write: line 1: column 'a' is not in --columns b" \
  mink write shop.pk --columns b <<<'{"k": 1, "a": "z", "b": 1}'

# ---- Clean restart
stop_node
start_node
check_answers "after a clean restart"

# ---- SIGKILL right after an acknowledged write
run_quiet "mink table create shop.crash" mink table create shop.crash -C "id BIGINT NOT NULL" -C "v STRING"
if echo '{"id": 1, "v": "acknowledged"}' | mink write shop.crash; then
  kill_node
else
  fail "write before SIGKILL"
fi
start_node
expect "after SIGKILL: the acknowledged row" '{"id":1,"v":"acknowledged"}' "$(mink read shop.crash)"
check_answers "after SIGKILL"

# ---- Bad input: one line naming the line and column, exit status 2, nothing written
orders_before=$(mink table offsets shop.orders)
events_before=$(mink table offsets shop.events)
expect_error "bad DECIMAL" 2 \
  "mink write: line 3: column 'amount': DECIMAL(10,2) value \"abc\" is not a number" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us", "amount": "1.00"}
{"id": 6, "region": "eu", "amount": 2}
{"id": 7, "region": "us", "amount": "abc"}
EOF
expect_error "missing NOT NULL column" 2 \
  "mink write: line 2: column 'region' is NOT NULL but missing" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us", "amount": "1.00"}
{"id": 6, "amount": "1.00"}
EOF
expect_error "malformed JSON" 2 "mink write: line 4: malformed JSON at column" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us"}
{"id": 6, "region": "us"}

{"id": 7, "region": "us"
EOF
expect_error "unknown column" 2 "mink write: line 1: unknown column 'nope' in shop.orders" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us", "nope": 1}
EOF
expect_error "lookup without the whole key" 2 \
  "mink lookup: column 'region' is part of the key but missing" mink lookup shop.orders id=1
expect_error "lookup of a log table" 2 \
  "mink lookup: lookups need a primary-key table; shop.events is a log table" \
  mink lookup shop.events id=7
expect_error "too many decimals" 2 \
  "mink write: line 1: column 'amount': DECIMAL(10,2) value \"1.234\" has more decimal places" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us", "amount": "1.234"}
EOF
expect_error "too large for DECIMAL(10,2)" 2 \
  "mink write: line 1: column 'amount': DECIMAL(10,2) value 123456789 does not fit DECIMAL(10,2)" \
  mink write shop.orders <<'EOF'
{"id": 5, "region": "us", "amount": 123456789}
EOF
expect_error "bad BIGINT" 2 "mink write: line 2: column 'id': BIGINT value \"x\" is not an integer" \
  mink write shop.events <<'EOF'
{"id": 10, "note": "fine"}
{"id": "x", "note": "bad"}
EOF
expect_error "--delete on a log table" 2 \
  "mink write: --delete needs a primary-key table; shop.events is a log table" \
  mink write shop.events --delete <<<'{"id": 7}'
expect "bad input wrote nothing to shop.orders" "$orders_before" "$(mink table offsets shop.orders)"
expect "bad input wrote nothing to shop.events" "$events_before" "$(mink table offsets shop.events)"
check_answers "after bad input"

# ---- Server errors
expect_error "union read of an untiered table" 1 "mink read: table shop.orders is not tiered" \
  mink read shop.orders --mode union
expect_error "unknown table" 1 "mink read: " mink read shop.nothing
expect_error "bad table name" 2 "mink read: 'orders' is not a table name" mink read orders
expect_error "usage error" 2 "mink table create: " mink table create shop.x

# ---- A node that cannot be reached: the error names its address
DEAD_PORT=$(free_port)
expect_error "unreachable node" 1 "mink db list: cannot reach node at 127.0.0.1:$DEAD_PORT" \
  mink db list -b "127.0.0.1:$DEAD_PORT"
expect_error "unreachable node (MINK_BOOTSTRAP)" 1 \
  "mink read: cannot reach node at 127.0.0.1:$DEAD_PORT" \
  env MINK_BOOTSTRAP="grpc://127.0.0.1:$DEAD_PORT" "$MINK_BIN" read shop.orders

mink_test_finish
