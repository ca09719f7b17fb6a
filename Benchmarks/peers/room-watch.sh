#!/usr/bin/env bash
# Administrators following a room on one `confer serve` (release, loopback): WATCHERS watchers,
# first over the admin watch WebSocket (pushed), then polling GET /v1/rooms/ROOM every INTERVAL
# seconds (as `confer rooms watch` did before), while an administrator posts CHANGES chat lines
# GAP_MS apart. Prints the RoomWatchLoad tool's JSON: for each way, the latency from a post to
# each watcher holding it (p50/p99), the server's CPU per second of the run, and what it sent.
#
#   Benchmarks/peers/room-watch.sh                      # 20 watchers, 100 changes 50 ms apart, 1 s polls
#   WATCHERS=100 Benchmarks/peers/room-watch.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product RoomWatchLoad >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/RoomWatchLoad
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$(mktemp)
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --admin-token "$admin" --memory-db --unused-timeout 600 > "$out" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
url=$(head -1 "$out")
"$tool" --server "$url" --admin-token "$admin" --server-pid "$server" --watchers "${WATCHERS:-20}" --changes "${CHANGES:-100}" \
  --gap-ms "${GAP_MS:-50}" --interval "${INTERVAL:-1}"
