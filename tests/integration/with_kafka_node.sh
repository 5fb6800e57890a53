#!/usr/bin/env bash
# Runs one client test against a `mink serve` of its own (temporary directory, free loopback
# ports, Kafka listener on), bounded in time, and stops the node after it.
#
# Usage: with_kafka_node.sh path/to/mink SECONDS TOOL-CHECK -- COMMAND...
#   TOOL-CHECK is a shell command that must succeed (e.g. "node --version"); without it the test
#   fails under MINK_TEST_REQUIRE_SERVICES=1 and is skipped (77) otherwise.
# The command sees MINK_TEST_BROKER (host:port of the Kafka listener), MINK_BOOTSTRAP (Flight),
# MINK_TEST_FLIGHT_PORT and MINK_BIN.

source "$(dirname "$0")/lib.sh"
mink_test_init kafka-client "${1:-}"
budget=${2:?usage: with_kafka_node.sh path/to/mink SECONDS TOOL-CHECK -- COMMAND...}
check=${3:?}
shift 3
[ "${1:-}" = "--" ] && shift
require_tool "$check" bash -c "$check"

start_node
export MINK_TEST_BROKER=$BROKER MINK_TEST_FLIGHT_PORT=$FLIGHT_PORT MINK_BIN
timeout -k 5 "$budget" "$@"
rc=$?
if [ "$rc" -eq 124 ]; then
  fail "$* did not finish within $budget s"
elif [ "$rc" -ne 0 ]; then
  fail "$* exited with status $rc"
else
  pass "$*"
fi
mink_test_finish
