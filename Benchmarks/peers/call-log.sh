#!/usr/bin/env bash
# The call log at scale (release): CALLS calls among USERS users in a fresh SQLite file
# (WAL), then a call's writes and page queries for one user, through the index and with
# the table scanned. Prints the CallLogLoad tool's JSON.
#
#   Benchmarks/peers/call-log.sh                  # 100,000 calls, 1,000 users
#   CALLS=1000000 Benchmarks/peers/call-log.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root/Benchmarks" --product CallLogLoad >&2
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/CallLogLoad
"$tool" --calls "${CALLS:-100000}" --users "${USERS:-1000}"
