#!/usr/bin/env bash
# End-to-end test of mink-query (issue 5): starts `mink serve` on a temporary directory and a free
# loopback port, creates and fills the quick start's tables (README.md), then runs the query of
# README.md's "SQL" section with `mink-query exec` piped (JSON lines) and on a terminal (an
# aligned table, through script(1)), CSV, several statements from a file, SQL errors (DuckDB's
# message and position, status 2, no crash), a table created after the engine started, and an
# unreachable node.
#
# Usage: query_test.sh path/to/mink path/to/mink-query

source "$(dirname "$0")/lib.sh"
mink_test_init query "${1:-}"
QUERY_BIN=${2:?usage: query_test.sh path/to/mink path/to/mink-query}
mink-query() { "$QUERY_BIN" "$@"; }
start_node

# expect_error NAME STATUS STDERR_SUBSTRING CMD...: fails with STATUS, nothing on stdout, stderr
# holds the substring.
expect_error() {
  local name=$1 substring=$3
  run_failing "$name" "$2" "${@:4}" || return
  if [[ "$ERR" != *"$substring"* ]]; then
    fail "$name: stderr '$ERR' does not contain '$substring'"
  else
    pass "$name"
  fi
}

# ---- The quick start's tables (README.md)
create_shop_tables

# ---- README.md's SQL, verbatim. Piped: JSON lines, one per row (group order is DuckDB's).
out=$(mink-query exec -e "SELECT region, sum(amount) FROM mink.shop.orders GROUP BY region")
rc=$?
expect "seed query (piped): status" 0 "$rc"
expect "seed query (piped): rows" '{"region":"eu","sum(amount)":3.00}
{"region":"us","sum(amount)":11.00}' "$(printf '%s\n' "$out" | sort)"

# On a terminal: an aligned table (script(1) gives the command a pseudo-terminal).
tty_out=$(script -qec "'$QUERY_BIN' exec -e \"SELECT region, sum(amount) FROM mink.shop.orders GROUP BY region ORDER BY region DESC\"" /dev/null | tr -d '\r')
expect "seed query (terminal): aligned table" 'region | sum(amount)
-------+------------
us     |       11.00
eu     |        3.00' "$tty_out"

expect "--format csv" 'region,total
eu,3.00
us,11.00' "$(mink-query exec --format csv -e "SELECT region, sum(amount) AS total FROM mink.shop.orders GROUP BY region ORDER BY region")"

expect "log table" '{"id":7,"note":"a"}
{"id":8,"note":"b"}' "$(mink-query exec -e "SELECT * FROM mink.shop.events ORDER BY id")"

# ---- Several statements from a file: each result in turn.
cat >"$WORK/script.sql" <<'SQL'
-- a comment
SELECT count(*) AS n FROM mink.shop.orders;
SELECT id, note
  FROM mink.shop.events
 WHERE id = 8;
CREATE TEMP TABLE scratch (a INT);
SELECT max(amount) AS top FROM mink.shop.orders
SQL
expect "exec -f with several statements" '{"n":2}
{"id":8,"note":"b"}
{"top":11.00}' "$(mink-query exec -f "$WORK/script.sql")"

# ---- Catalog: SHOW TABLES, DESCRIBE, information_schema.
expect "SHOW ALL TABLES of mink" 'shop,events
shop,orders' "$(mink-query exec --format csv -e "SELECT schema, name FROM (SHOW ALL TABLES) WHERE database = 'mink' ORDER BY name" | tail -n +2)"
expect "DESCRIBE" 'id,BIGINT
region,VARCHAR
amount,"DECIMAL(10,2)"' "$(mink-query exec --format csv -e "SELECT column_name, column_type FROM (DESCRIBE mink.shop.orders)" | tail -n +2)"
expect "pragma_table_info: NOT NULL and the primary key" '0,id,BIGINT,true,true
1,region,VARCHAR,true,true
2,amount,"DECIMAL(10,2)",false,false' "$(mink-query exec --format csv -e "SELECT cid, name, type, \"notnull\", pk FROM pragma_table_info('mink.shop.orders')" | tail -n +2)"
expect "information_schema.tables" 'mink,shop,events
mink,shop,orders' "$(mink-query exec --format csv -e "SELECT table_catalog, table_schema, table_name FROM information_schema.tables WHERE table_catalog = 'mink' ORDER BY table_name" | tail -n +2)"

# ---- A table created and written after ... is visible to the next query.
mink table create shop.late -C "k INT NOT NULL" -C "v STRING" --primary-key k
echo '{"k": 1, "v": "x"}' | mink write shop.late
expect "a new table is visible" '{"k":1,"v":"x"}' "$(mink-query exec -e "SELECT * FROM mink.shop.late")"

# ---- SQL errors: DuckDB's message with its position, status 2, nothing on stdout.
expect_error "syntax error" 2 'Parser Error: syntax error at or near "region"' \
  mink-query exec -e "SELECT region FROM mink.shop.orders GROUP region"
# The statement's line, and a caret under the position (8 + 42 columns in).
expect_error "syntax error: the line and position" 2 "LINE 1: SELECT region FROM mink.shop.orders GROUP region
$(printf '%50s' '')^" \
  mink-query exec -e "SELECT region FROM mink.shop.orders GROUP region"
expect_error "unknown table" 2 "Catalog Error: Table with name nope does not exist" \
  mink-query exec -e "SELECT * FROM mink.shop.nope"
expect_error "unknown column" 2 'Binder Error: Referenced column "nope" not found' \
  mink-query exec -e "SELECT nope FROM mink.shop.orders"
expect_error "writes are refused" 2 "the mink catalog is read-only" \
  mink-query exec -e "INSERT INTO mink.shop.events VALUES (1, 'x')"
expect_error "bad --format" 2 "--format must be table, json, csv or arrow" \
  mink-query exec --format xml -e "SELECT 1"
expect_error "no SQL" 2 "give the SQL with -e SQL or -f FILE" mink-query exec

# ---- mink-query shell: a script on stdin (multi-line statements, ';' in quotes and comments,
# dot commands); a failed statement is reported and the rest still runs (status 2 at the end).
cat >"$WORK/shell.in" <<'SQL'
.tables
.schema shop.orders
SELECT region,
  sum(amount) AS total
FROM mink.shop.orders -- a comment; not the end
GROUP BY region ORDER BY region;
SELECT ';' AS semi; SELECT nope;
.format csv
SELECT * FROM mink.shop.events ORDER BY id;
SQL
shell_out=$(mink-query shell <"$WORK/shell.in" 2>"$WORK/shell.err")
shell_rc=$?
expect "shell: script output" 'mink.shop.events
mink.shop.late
mink.shop.orders
mink.shop.orders (id BIGINT NOT NULL, region STRING NOT NULL, amount DECIMAL(10,2)) PRIMARY KEY (id, region) PARTITIONED BY (region) BUCKETED BY (id) BUCKETS 2;
{"region":"eu","total":3.00}
{"region":"us","total":11.00}
{"semi":";"}
id,note
7,a
8,b' "$shell_out"
expect "shell: a failed statement sets status 2" 2 "$shell_rc"
if grep -q 'Error: Binder Error: Referenced column "nope"' "$WORK/shell.err"; then
  pass "shell: the error is reported"
else
  fail "shell: the error is reported: $(cat "$WORK/shell.err")"
fi
# On a terminal: prompts, a statement over two lines, an aligned table, history in a file.
export MINK_QUERY_HISTORY="$WORK/history"
tty_shell=$( (printf 'SELECT count(*) AS n\n'; sleep 0.5; printf '  FROM mink.shop.orders;\n'; sleep 1;
              printf '\004') | timeout 30 script -qec "'$QUERY_BIN' shell" /dev/null | tr -d '\r')
if [[ "$tty_shell" == *"mink> "*"  ...> "*$'\nn\n-\n2\n(1 row)\n'* ]]; then
  pass "shell on a terminal"
else
  fail "shell on a terminal: $tty_shell"
fi
if grep -q 'SELECT' "$WORK/history" 2>/dev/null; then
  pass "shell history saved"
else
  fail "shell history saved"
fi
unset MINK_QUERY_HISTORY

# ---- An unreachable node: the error names its address.
DEAD_PORT=$(free_port)
expect_error "unreachable node" 1 "127.0.0.1:$DEAD_PORT" \
  mink-query -b "127.0.0.1:$DEAD_PORT" exec -e "SELECT * FROM mink.shop.orders"

mink_test_finish
