#!/usr/bin/env bash
# What the host's plain-RTP copy for an SFU costs (release builds, loopback): `confer serve`,
# `confer host --approve all` and MEMBERS `confer join` processes with cameras run for SECONDS;
# the host's CPU time (user + system, /proc) is read over the same window with and without
# `--forward-video/--forward-audio` to a Janus streaming mountpoint, runs alternating, RUNS of
# each. Janus's own CPU over the forwarded runs is read too: the SFU's cost of taking the copy.
#
#   Benchmarks/peers/forward-cost.sh
#   MEMBERS=4 SECONDS_OF_MEETING=20 RUNS=3 Benchmarks/peers/forward-cost.sh
#   MEMBERS=0 Benchmarks/peers/forward-cost.sh      # the host alone: what it costs to run for the audience
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
members=${MEMBERS:-3}
seconds=${SECONDS_OF_MEETING:-10}
runs=${RUNS:-2}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

source "$root/Benchmarks/peers/lib/janus.sh"
janus_start
read -r video audio < <(janus_create '[{"type":"video","mid":"v","port":0,"pt":96,"codec":"vp8","videobufferkf":true},{"type":"audio","mid":"a","port":0,"pt":111,"codec":"opus"}]' 1 \
  | python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["video"], p["audio"])')

secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db > "$work/url" 2>/dev/null &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")

run() { # $1: forward or plain; prints host CPU %, Janus CPU %, packets and bytes forwarded
  local extra=() room="bench-$1-$RANDOM"
  [ "$1" = forward ] && extra=(--forward-video "127.0.0.1:$video" --forward-audio "127.0.0.1:$audio")
  "$confer" host --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity host --role host)" \
    --approve all --json --quiet "${extra[@]}" > "$work/host.json" &
  local host=$!
  sleep 1
  local joins=()
  for i in $(seq "$members"); do
    "$confer" join --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity "m$i")" \
      --duration $((seconds + 4)) --quiet > /dev/null &
    joins+=("$!")
  done
  sleep 2
  local h0 j0 h1 j1
  h0=$(cpu "$host"); j0=$(cpu "$janus")
  sleep "$seconds"
  h1=$(cpu "$host"); j1=$(cpu "$janus")
  # No members (MEMBERS=0, the host alone): a bare `wait` would wait for the host too.
  [ "${#joins[@]}" -eq 0 ] || wait "${joins[@]}"
  kill -INT "$host"; wait "$host" || true
  python3 - "$work/host.json" "$1" "$(( h1 - h0 ))" "$(( j1 - j0 ))" "$ticks" "$seconds" <<'PY'
import json, sys
path, mode, host, janus, ticks, seconds = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
figures = json.load(open(path))["media"]["figures"]
print(json.dumps({"mode": mode, "hostCPUPercent": round(100 * host / ticks / seconds, 1),
                  "janusCPUPercent": round(100 * janus / ticks / seconds, 1),
                  "packetsForwarded": figures["packetsForwarded"], "bytesForwarded": figures["bytesForwarded"],
                  "hostFramesSent": figures["framesSent"]}))
PY
}
for _ in $(seq "$runs"); do run plain; run forward; done
