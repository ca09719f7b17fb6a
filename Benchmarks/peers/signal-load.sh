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
#   HEAP=1 ROUNDS=6 Benchmarks/peers/signal-load.sh     # the server under heaptrack: its heap as each round begins
#   CONFER=/tmp/old/confer Benchmarks/peers/signal-load.sh   # another build's server (the tool is this one's)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${CONFER:-}" ] || swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product SignalLoad >&2
confer=${CONFER:-$(swift build -c release --package-path "$root" --show-bin-path)/confer}
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/SignalLoad
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$(mktemp)
heap=${HEAP:-0}
work=$(mktemp -d)
started=$(date +%s.%N)
since() { awk -v now="$(date +%s.%N)" -v start="$started" 'BEGIN { printf "%.2f", now - start }'; }
if [ "$heap" = 1 ]; then
  command -v heaptrack > /dev/null || { echo "HEAP=1 needs heaptrack: apt-get install heaptrack" >&2; exit 2; }
  heaptrack -o "$work/serve" "$confer" serve --listen 127.0.0.1:0 --secret "$secret" --join-timeout 120 --empty-timeout 1 \
    > "$out" 2>/dev/null &
else
  "$confer" serve --listen 127.0.0.1:0 --secret "$secret" --join-timeout 120 --empty-timeout 1 > "$out" 2>/dev/null &
fi
launched=$!
trap 'pkill -P $launched 2>/dev/null || true; kill $launched 2>/dev/null || true; rm -rf "$out" "$work"' EXIT
for _ in $(seq 200); do grep -q '^http' "$out" && break; sleep 0.1; done
url=$(grep '^http' "$out" | head -1)
# heaptrack runs the server as its child.
server=$launched
[ "$heap" = 1 ] && server=$(pgrep -P "$launched" -x confer)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
rounds=${ROUNDS:-1}
memory=()
times=()
for round in $(seq "$rounds"); do
  [ "$rounds" -gt 1 ] && echo "progress: round $round of $rounds" >&2
  memory+=("$(rss)")
  times+=("$(since)")
  "$tool" --server "$url" --secret "$secret" --server-pid "$server" --rooms "${ROOMS:-100}" --members "${MEMBERS:-10}" --messages "${MESSAGES:-3}" --in-flight "${IN_FLIGHT:-16}"
  # Every room closes a second after its last member left.
  [ "$rounds" -gt 1 ] && sleep 3
done
memory+=("$(rss)")
times+=("$(since)")
[ "$rounds" -gt 1 ] && echo "{\"serverRSSKiBAtEachRoundsStartThenEnd\": [$(IFS=,; echo "${memory[*]}")]}"
if [ "$heap" = 1 ]; then
  kill -INT "$server"
  wait "$launched" || true
  heaptrack_print -f "$work/serve.zst" --print-massif "$work/serve.massif" --print-peaks 0 --print-leaks 0 \
    --print-allocators 0 --print-temporary 0 > /dev/null 2>&1
  # The heap in the last snapshot half a second before each round began (heaptrack's clock starts a
  # little after $started; the rounds are 3 s apart), and before the end.
  grep -E "^(time|mem_heap_B)=" "$work/serve.massif" | paste - - | tr '=\t' '  ' \
    | awk -v times="${times[*]}" 'BEGIN { n = split(times, at, " ") }
        { for (k = 1; k <= n; k++) if ($2 <= at[k] - 0.5) heap[k] = $4 }
        END { printf "{\"serverHeapKiBAtEachRoundsStartThenEnd\": ["; for (k = 1; k <= n; k++) printf "%s%d", (k > 1 ? "," : ""), heap[k] / 1024; print "]}" }'
fi
exit 0
