#!/usr/bin/env bash
# Signaling load: ROOMS rooms of MEMBERS members (one host approving every request, the
# rest participants) join one `confer serve` (release) over real WebSockets on loopback,
# each room chats MESSAGES times, everyone leaves. Prints the SignalLoad tool's JSON: joins
# per second, join latency p50/p99 (join sent → admitted, the host's approval included),
# message fan-out latency p50/p99 (sent → received by each other member), and the server's
# resident memory per member.
#
# ROUNDS > 1 runs the load again against the same server, waiting between rounds for every room to
# close (--empty-timeout 1): what it holds once all have left should stop growing after the first
# rounds. A last line gives the server's resident memory when each round began and at the end.
#
#   Benchmarks/peers/signal-load.sh                     # 100 rooms × 10 members
#   ROOMS=10 MEMBERS=5 Benchmarks/peers/signal-load.sh
#   ROUNDS=10 Benchmarks/peers/signal-load.sh           # 10,000 joins and leaves on one server
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product SignalLoad >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/SignalLoad
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$(mktemp)
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --join-timeout 120 --empty-timeout 1 > "$out" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
url=$(head -1 "$out")
rss() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
rounds=${ROUNDS:-1}
memory=()
for round in $(seq "$rounds"); do
  [ "$rounds" -gt 1 ] && echo "progress: round $round of $rounds" >&2
  memory+=("$(rss)")
  "$tool" --server "$url" --secret "$secret" --server-pid "$server" --rooms "${ROOMS:-100}" --members "${MEMBERS:-10}" --messages "${MESSAGES:-3}" --in-flight "${IN_FLIGHT:-16}"
  # Every room closes a second after its last member left.
  [ "$rounds" -gt 1 ] && sleep 3
done
memory+=("$(rss)")
[ "$rounds" -gt 1 ] && echo "{\"serverRSSKiBAtEachRoundsStartThenEnd\": [$(IFS=,; echo "${memory[*]}")]}"
exit 0
