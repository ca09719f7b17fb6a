#!/usr/bin/env bash
# Live meeting latency on loopback (release builds):
#  1. glass to glass: MeetingLatency runs a host and PARTICIPANTS participants in one process,
#     each on its own UDP socket with SRTP; participant 1's frame counter is read in the
#     composites participant 2 renders (p50/p95 from capture to render);
#  2. join → first composite: `confer serve` and `confer host --approve all` run, then JOINS
#     times `confer join --events` asks to join; the time from its "connecting" event to its
#     "firstFrame" event (request, approval, keys, sockets, keyframe, decode) is collected.
#
#   Benchmarks/peers/meeting-latency.sh
#   PARTICIPANTS=4 SECONDS_OF_VIDEO=20 JOINS=20 Benchmarks/peers/meeting-latency.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product MeetingLatency >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/MeetingLatency
echo "== glass to glass"
"$tool" --participants "${PARTICIPANTS:-4}" --seconds "${SECONDS_OF_VIDEO:-10}"

echo "== join to first composite"
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
work=$(mktemp -d)
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" > "$work/url" 2>/dev/null &
server=$!
trap 'kill $server $host 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
"$confer" host --server "$url" --token "$("$confer" token --secret "$secret" --room bench --identity host --role host)" \
  --approve all --quiet > /dev/null &
host=$!
sleep 1
for i in $(seq "${JOINS:-10}"); do
  "$confer" join --server "$url" --token "$("$confer" token --secret "$secret" --room bench --identity "m$i")" \
    --duration 1.5 --events --quiet > "$work/join-$i.jsonl"
done
python3 - "$work" <<'PY'
import json, sys, glob
times = []
for path in sorted(glob.glob(sys.argv[1] + "/join-*.jsonl")):
    events = [json.loads(line) for line in open(path) if line.startswith("{")]
    start = next(e["t"] for e in events if e.get("event") == "connection" and e.get("state") == "connecting")
    first = next((e["t"] for e in events if e.get("event") == "firstFrame"), None)
    if first is not None: times.append((first - start) * 1000)
times.sort()
pick = lambda f: times[min(len(times) - 1, round((len(times) - 1) * f))] if times else 0
print(json.dumps({"joins": len(times), "joinToFirstFrameP50Milliseconds": round(pick(0.5), 1),
                  "joinToFirstFrameP95Milliseconds": round(pick(0.95), 1),
                  "joinToFirstFrameMilliseconds": [round(t, 1) for t in times]}, indent=2))
PY
