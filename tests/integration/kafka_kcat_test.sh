#!/usr/bin/env bash
# kcat (librdkafka 2.0.2) against the Kafka listener of a `mink serve` of its own: the Kafka
# commands at the top of docs/kafka.md verbatim (produce "hello", consume it, `mink read
# kafka.greetings` prints the value as hex 68656c6c6f), metadata as JSON (-L -J), keys, NULL keys
# and headers round-tripping exactly, every compression codec, an idempotent producer, offsets by
# timestamp (-o s@ts, -Q), several partitions (-p, relative and absolute offsets, keyed
# partitioning), the table view of the same rows, and the data after a clean restart.
#
# Usage: kafka_kcat_test.sh path/to/mink

source "$(dirname "$0")/lib.sh"
mink_test_init kafka-kcat "${1:-}"
require_tool kcat kcat -V
require_tool jq jq --version

# Every topic created on first use has 3 partitions (the node's --kafka-default-partitions).
start_node --kafka-default-partitions 3

# Every client call is bounded.
kc() { timeout 30 kcat -b "$BROKER" "$@"; }

# consume TOPIC [kcat flags...]: everything from the beginning, exit at the end.
consume() {
  local topic=$1
  shift
  kc -C -t "$topic" -o beginning -e -q "$@"
}

# ---- The commands of docs/kafka.md, verbatim (HOST:PORT = the node's Kafka listener)
if echo 'hello' | timeout 30 kcat -P -b "$BROKER" -t greetings; then
  pass "echo 'hello' | kcat -P -t greetings"
else
  fail "echo 'hello' | kcat -P -t greetings"
fi
expect "kcat -C -t greetings -o beginning -e" "hello" \
  "$(timeout 30 kcat -C -b "$BROKER" -t greetings -o beginning -e 2>"$WORK/kcat.err")"
read_out=$(mink read kafka.greetings)
expect_contains "mink read kafka.greetings prints the value as hex" 68656c6c6f "$read_out"
expect "mink read kafka.greetings: one row, value hex, null key, no headers" \
  '[1,"68656c6c6f",null,[]]' "$(jq -sc '[length, .[0].value, .[0].key, .[0].headers]' <<<"$read_out")"

# ---- Metadata: -L -J
meta=$(kc -L -J)
if jq -e . >/dev/null 2>&1 <<<"$meta"; then
  pass "kcat -L -J is JSON"
else
  fail "kcat -L -J is not JSON: $meta"
fi
expect "-L -J: one broker, the advertised listener" "1 127.0.0.1:$KAFKA_PORT" \
  "$(jq -r '.brokers | "\(length) \(.[0].name)"' <<<"$meta")"
expect "-L -J: controller is the node" "1" "$(jq -r '.controllerid' <<<"$meta")"
expect "-L -J: greetings has 3 partitions (auto-created with --kafka-default-partitions 3)" \
  "0 1 2" "$(jq -r '.topics[] | select(.topic == "greetings") | [.partitions[].partition] | sort | map(tostring) | join(" ")' <<<"$meta")"
expect "-L -J: every partition led by node 1, replicas and ISR = [1], no errors" "true" \
  "$(jq -r '[.topics[] | select(.topic == "greetings") | .partitions[] |
             .leader == 1 and ([.replicas[].id] == [1]) and ([.isrs[].id] == [1]) and (.error == null)] | all' <<<"$meta")"
expect "-L -t greetings -J names only that topic" "greetings" \
  "$(kc -L -t greetings -J | jq -r '[.topics[].topic] | join(",")')"
# librdkafka's feature gates (from the advertised ApiVersions ranges) come out enabled.
features=$(kc -L -X debug=feature 2>&1 >/dev/null | sed -n 's/.*Enabling feature \([A-Za-z0-9]*\).*/\1/p' | sort -u)
for feature in MsgVer2 IdempotentProducer ZSTD BrokerBalancedConsumer BrokerGroupCoordinator \
  OffsetTime LZ4; do
  expect_contains "librdkafka enables feature $feature" "$feature" "$features"
done

# ---- Keys and headers (-K: -H), NULL keys and values (-Z), exact round trip
t0=$(date +%s%3N)
printf 'k1:v1\nk2:value two\nk3:v:with:colons\n' |
  kc -P -t keyed -p 0 -K: -H a=b -H trace=xyz-1 -H a=second || fail "produce keyed"
printf 'k4:\n:null key\n' | kc -P -t keyed -p 0 -K: -Z || fail "produce NULL values and keys"
# Without -Z an empty value is sent as an empty (not NULL) value: the table keeps it empty (see
# mink read below; kafka-python and confluent-kafka read it back as b""), while kcat -Z prints
# any zero-length value as NULL (with length 0), as it does against Kafka.
printf 'k5:\n' | kc -P -t keyed -p 0 -K: || fail "produce an empty value"
t1=$(date +%s%3N)
out=$(consume keyed -p 0 -Z -f '%k|%K|%s|%S|%h|%o\n')
expect "keys, values and headers round-trip (%k %K %s %S %h %o)" \
  "k1|2|v1|2|a=b,trace=xyz-1,a=second|0
k2|2|value two|9|a=b,trace=xyz-1,a=second|1
k3|2|v:with:colons|13|a=b,trace=xyz-1,a=second|2
k4|2|NULL|-1||3
NULL|-1|null key|8||4
k5|2|NULL|0||5" "$out"
expect "the format of the brief: -f '%k %s %h %o'" "k1 v1 a=b,trace=xyz-1,a=second 0" \
  "$(consume keyed -p 0 -c 1 -f '%k %s %h %o\n')"
bad_ts=$(consume keyed -p 0 -f '%T\n' | awk -v a="$t0" -v b="$t1" '$1 < a || $1 > b + 1000')
expect "timestamps (%T) are the producer's, between send start and end" "" "$bad_ts"
expect "mink read kafka.keyed: key, value, headers as the table stores them (hex)" \
  '{"key":"6b31","value":"7631","headers":[{"key":"a","value":"62"},{"key":"trace","value":"78797a2d31"},{"key":"a","value":"7365636f6e64"}]}
{"key":"6b34","value":null,"headers":[]}
{"key":null,"value":"6e756c6c206b6579","headers":[]}
{"key":"6b35","value":"","headers":[]}' \
  "$(mink read kafka.keyed --columns key,value,headers | sed -n '1p;4,6p')"

# Keyed partitioning: librdkafka hashes the key, so each key lands in exactly one partition.
for i in $(seq 1 5); do printf 'alpha:a%s\nbeta:b%s\ngamma:g%s\n' "$i" "$i" "$i"; done |
  kc -P -t spread -K: || fail "produce keyed without a partition"
expect "keyed messages: 15 in total, each key in one partition, in order" \
  "alpha 1 a1,a2,a3,a4,a5
beta 1 b1,b2,b3,b4,b5
gamma 1 g1,g2,g3,g4,g5" \
  "$(consume spread -f '%k %p %s\n' | sort -s -k1,1 |
     awk '!(($1, $2) in seen) {seen[$1, $2] = 1; nparts[$1]++}
          {vals[$1] = vals[$1] (vals[$1] ? "," : "") $3}
          END {for (k in vals) print k, nparts[k], vals[k]}' | sort)"

# ---- Compression: every codec produces and consumes the same values
for codec in gzip snappy lz4 zstd; do
  seq 1 200 | awk -v c="$codec" '{printf "%s message %04d %s\n", c, $1, "the quick brown fox jumps over the lazy dog"}' \
    >"$WORK/$codec.in"
  if kc -P -t "z-$codec" -p 0 -z "$codec" -X linger.ms=50 <"$WORK/$codec.in" 2>"$WORK/$codec.err"; then
    pass "produce with -z $codec"
  else
    fail "produce with -z $codec: $(cat "$WORK/$codec.err")"
  fi
  consume "z-$codec" -p 0 -f '%s\n' >"$WORK/$codec.out"
  if cmp -s "$WORK/$codec.in" "$WORK/$codec.out"; then
    pass "-z $codec: 200 values back, same bytes, same order"
  else
    fail "-z $codec: consumed $(wc -l <"$WORK/$codec.out") lines, differing from what was produced"
    diff "$WORK/$codec.in" "$WORK/$codec.out" | head -5 >&2
  fi
  expect "-z $codec: offsets 0..199" "0 199 200" \
    "$(consume "z-$codec" -p 0 -f '%o\n' | awk 'NR == 1 {f = $1} {l = $1; n++} END {print f, l, n}')"
done
# The stored rows are the same values (hex), read through the table.
expect "mink read kafka.z-zstd: 200 rows, first value" \
  "200 $(head -1 "$WORK/zstd.in" | tr -d '\n' | od -An -tx1 | tr -d ' \n')" \
  "$(mink read kafka.z-zstd --columns value | jq -rs '"\(length) \(.[0].value)"')"

# ---- Idempotent producer (InitProducerId, sequences)
seq 1 100 | sed 's/^/idem-/' >"$WORK/idem.in"
if kc -P -t idem -p 0 -X enable.idempotence=true -X linger.ms=5 <"$WORK/idem.in" 2>"$WORK/idem.err"; then
  pass "idempotent produce"
else
  fail "idempotent produce: $(cat "$WORK/idem.err")"
fi
consume idem -p 0 -f '%s\n' >"$WORK/idem.out"
cmp -s "$WORK/idem.in" "$WORK/idem.out" && pass "idempotent: 100 values once each, in order" ||
  fail "idempotent: got $(wc -l <"$WORK/idem.out") values"

# ---- Offsets by timestamp
seq 1 5 | sed 's/^/early-/' | kc -P -t timed -p 0 || fail "produce early"
sleep 1.1
ts_mid=$(date +%s%3N)
sleep 0.1
seq 1 5 | sed 's/^/late-/' | kc -P -t timed -p 0 || fail "produce late"
expect "-o s@<ms>: only the records at or after the timestamp" "late-1 5
late-2 6
late-3 7
late-4 8
late-5 9" "$(kc -C -t timed -p 0 -o "s@$ts_mid" -e -q -f '%s %o\n')"
expect "-o s@0: everything" "10" "$(kc -C -t timed -p 0 -o s@0 -e -q -f '%s\n' | wc -l)"
q=$(kc -Q -t "timed:0:$ts_mid")
expect_contains "-Q -t timed:0:<ms> answers offset 5" "offset 5" "$q"
expect_contains "-Q -t timed:0:0 answers offset 0" "offset 0" "$(kc -Q -t timed:0:0)"
future=$(( $(date +%s%3N) + 3600000 ))
expect_contains "-Q with a future timestamp answers offset -1" "offset -1" "$(kc -Q -t "timed:0:$future")"
expect "-o e@<ms>: stops before the timestamp" "early-1
early-2
early-3
early-4
early-5" "$(kc -C -t timed -p 0 -o beginning -o "e@$ts_mid" -e -q -f '%s\n' 2>/dev/null)"

# ---- Several partitions
for p in 0 1 2; do
  n=$((p + 2))
  seq 1 "$n" | sed "s/^/p$p-/" | kc -P -t multi -p "$p" || fail "produce to partition $p"
done
expect "-p 1: only partition 1" "p1-1 1 0
p1-2 1 1
p1-3 1 2" "$(kc -C -t multi -p 1 -o beginning -e -q -f '%s %p %o\n')"
expect "all partitions: every message on its partition at its offset" "0 0 p0-1
0 1 p0-2
1 0 p1-1
1 1 p1-2
1 2 p1-3
2 0 p2-1
2 1 p2-2
2 2 p2-3
2 3 p2-4" "$(consume multi -f '%p %o %s\n' | sort)"
expect "-p 2 -o -2: the last two" "p2-3
p2-4" "$(kc -C -t multi -p 2 -o -2 -e -q -f '%s\n')"
expect "-p 2 -o 1 -c 2: from offset 1, two messages" "p2-2
p2-3" "$(kc -C -t multi -p 2 -o 1 -c 2 -e -q -f '%s\n')"
expect "-p 0 -o end: nothing new" "" "$(kc -C -t multi -p 0 -o end -e -q -f '%s\n')"
expect "mink table offsets kafka.multi: one bucket per partition, ends = message counts" \
  '{"bucket":"b0","start":0,"end":2,"owner":1}
{"bucket":"b1","start":0,"end":3,"owner":1}
{"bucket":"b2","start":0,"end":4,"owner":1}' "$(mink table offsets kafka.multi)"
expect "mink read kafka.multi --meta: bucket and offset of each partition's rows" \
  '{"value":"70322d33","__bucket":"b2","__offset":2,"__change":"+A"}' \
  "$(mink read kafka.multi --meta --columns value --bucket 2 | sed -n 3p)"

# ---- The data after a clean restart
before=$(consume multi -f '%p %o %k %s %h %T\n' | sort)
keyed_before=$(consume keyed -p 0 -Z -f '%k|%s|%h|%o|%T\n')
stop_node
start_node --kafka-default-partitions 3
expect "after a clean restart: kafka.multi reads the same" "$before" \
  "$(consume multi -f '%p %o %k %s %h %T\n' | sort)"
expect "after a clean restart: keys, headers and timestamps the same" "$keyed_before" \
  "$(consume keyed -p 0 -Z -f '%k|%s|%h|%o|%T\n')"
printf 'after-restart\n' | kc -P -t multi -p 0 || fail "produce after restart"
expect "after a clean restart: appends continue at the next offset" "2 after-restart" \
  "$(kc -C -t multi -p 0 -o 2 -e -q -f '%o %s\n')"

mink_test_finish
