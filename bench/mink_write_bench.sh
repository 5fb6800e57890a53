#!/usr/bin/env bash
# mink_write_bench: `mink write` of N JSON lines (default 1,000,000) into a running node, beside
# the DoPut rate of the same rows sent as Arrow by table_bench to the same node in the same run
# (the limit: what `mink write` would reach if turning JSON into Arrow cost nothing). Also times
# `mink read` of the table back to JSON lines.
#
# It starts `mink serve` on a free loopback port with a new directory under $TMPDIR (or /tmp),
# stops only that process and removes the directory at exit. Every step has a timeout.
#
# Usage: bench/mink_write_bench.sh [BUILD_DIR] [ROWS]
#   BUILD_DIR holds bin/mink and bench/table_bench (default build-tbench)

set -u
BUILD=${1:-build-tbench}
ROWS=${2:-1000000}
MINK="$BUILD/bin/mink"
TABLE_BENCH="$BUILD/bench/table_bench"
STEP_TIMEOUT=600
for f in "$MINK" "$TABLE_BENCH"; do
  [ -x "$f" ] || { echo "mink_write_bench: $f not built (ninja -C $BUILD mink table_bench)" >&2; exit 2; }
done
case "$ROWS" in '' | *[!0-9]*) echo "mink_write_bench: ROWS must be a number" >&2; exit 2 ;; esac
[ "$ROWS" -le 20000000 ] || { echo "mink_write_bench: at most 20000000 rows" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mink-write-bench.XXXXXX")
NODE_PID=
cleanup() {
  if [ -n "$NODE_PID" ]; then
    kill -INT "$NODE_PID" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$NODE_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$NODE_PID" 2>/dev/null
    wait "$NODE_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export MINK_BOOTSTRAP="grpc://127.0.0.1:$PORT"
"$MINK" serve --listen "127.0.0.1:$PORT" --meta-url "sqlite:$WORK/meta.db" \
  --storage-uri "-2@file://$WORK/objects" --log-level warn >"$WORK/node.log" 2>&1 &
NODE_PID=$!
for _ in $(seq 1 300); do
  "$MINK" db list >/dev/null 2>&1 && break
  kill -0 "$NODE_PID" 2>/dev/null || { echo "the node exited:" >&2; tail -20 "$WORK/node.log" >&2; exit 1; }
  sleep 0.1
done

# CPU seconds (user + system) of the node so far.
node_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$NODE_PID/stat"
}
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "mink_write_bench: $ROWS rows; node pid $NODE_PID on 127.0.0.1:$PORT; $(nproc) cores"
echo "  uptime: $(uptime)"

t0=$(now)
timeout "$STEP_TIMEOUT" "$TABLE_BENCH" --emit-json "$ROWS" >"$WORK/rows.jsonl" || exit 1
t1=$(now)
BYTES=$(stat -c %s "$WORK/rows.jsonl")
echo "  input: $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB of JSON lines" \
  "($(awk -v b="$BYTES" -v n="$ROWS" 'BEGIN { printf "%.0f", b / n }') B a line), generated in $(secs "$t0" "$t1") s"

mapfile -t COLUMNS < <("$TABLE_BENCH" --print-log-columns)
CREATE=()
for c in "${COLUMNS[@]}"; do CREATE+=(-C "$c"); done
"$MINK" db create bench || exit 1
"$MINK" table create bench.cli_logs "${CREATE[@]}" || exit 1

echo
echo "mink write   uptime: $(uptime)"
c0=$(node_cpu)
t0=$(now)
/usr/bin/time -f "%e %U %S %M" -o "$WORK/write.time" \
  timeout "$STEP_TIMEOUT" "$MINK" write bench.cli_logs <"$WORK/rows.jsonl" || exit 1
t1=$(now)
c1=$(node_cpu)
read -r _ W_USER W_SYS W_KB <"$WORK/write.time"
WRITTEN=$("$MINK" table offsets bench.cli_logs --format json | awk -F'"end":' '{ split($2, a, /[,}]/); s += a[1] } END { print s }')
WRITE_RATE=$(rate "$ROWS" "$t0" "$t1")
echo "  mink write: $ROWS rows in $(secs "$t0" "$t1") s = $WRITE_RATE rows/s," \
  "$(awk -v b="$BYTES" -v a="$t0" -v c="$t1" 'BEGIN { printf "%.1f", b / 1e6 / (c - a) }') MB/s of JSON"
echo "    mink process: user $W_USER s, sys $W_SYS s, max RSS $((W_KB / 1024)) MiB; node: $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }') s CPU"
echo "    rows in the table afterwards: $WRITTEN"

echo
echo "mink read (JSON lines to /dev/null)   uptime: $(uptime)"
t0=$(now)
/usr/bin/time -f "%e %U %S %M" -o "$WORK/read.time" \
  timeout "$STEP_TIMEOUT" "$MINK" read bench.cli_logs --format json >"$WORK/read.jsonl" || exit 1
t1=$(now)
read -r _ R_USER R_SYS R_KB <"$WORK/read.time"
READ_ROWS=$(wc -l <"$WORK/read.jsonl")
READ_RATE=$(rate "$READ_ROWS" "$t0" "$t1")
echo "  mink read: $READ_ROWS rows in $(secs "$t0" "$t1") s = $READ_RATE rows/s" \
  "(mink process: user $R_USER s, sys $R_SYS s, max RSS $((R_KB / 1024)) MiB)"
rm -f "$WORK/read.jsonl"

echo
echo "DoPut of the same rows as Arrow (table_bench --address)   uptime: $(uptime)"
timeout "$STEP_TIMEOUT" "$TABLE_BENCH" --address "127.0.0.1:$PORT" --phases log --scans 0 \
  --rows "$ROWS" --json >"$WORK/doput.out" || { cat "$WORK/doput.out"; exit 1; }
grep -E "DoPut|per DoPut" "$WORK/doput.out"
PUT_RATE=$(tail -1 "$WORK/doput.out" | python3 -c 'import json, sys; print(round(json.load(sys.stdin)["log_put"]["rows_s"]))')

echo
echo "summary   uptime: $(uptime)"
printf "  %-44s %12s rows/s\n" "mink write (JSON lines -> Arrow -> DoPut)" "$WRITE_RATE"
printf "  %-44s %12s rows/s\n" "DoPut of the same rows (Arrow, 100k a put)" "$PUT_RATE"
printf "  %-44s %12s\n" "ratio mink write / DoPut" "$(awk -v a="$WRITE_RATE" -v b="$PUT_RATE" 'BEGIN { printf "%.2f", a / b }')"
printf "  %-44s %12s rows/s\n" "mink read (DoGet -> JSON lines)" "$READ_RATE"
