#!/usr/bin/env bash
# Round-trip time at a receive-only endpoint: `confer send` → `confer netsim` (150 ms each
# way) → `confer receive`, which learns the RTT from RTCP XR (its RRTR, the sender's DLRR)
# and plans retransmissions with it. Prints what the receiver measured beside what the
# sender measured from the receiver's reports.
#
#   Benchmarks/peers/xr-rtt.sh          # DELAY=150 ms each way
# Needs: python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-xr}
delay=${DELAY:-150}
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer
[ -f "$work/clip.y4m" ] || "$confer" generate -o "$work/clip.y4m" --size 640x360 --duration 8 -q >/dev/null
"$confer" receive --listen 127.0.0.1:7420 --codec vp8 -o "$work/out.ivf" --idle-timeout 3 -q --json > "$work/recv.json" &
sleep 1
"$confer" netsim --listen 127.0.0.1:7416 --forward 127.0.0.1:7420 --delay "$delay" --return-delay "$delay" --duration 14 -q --json \
    > "$work/netsim.json" &
sleep 1
"$confer" send "$work/clip.y4m" --codec vp8 --to 127.0.0.1:7416 --bitrate 800 -q --json > "$work/send.json"
wait
python3 - "$work" "$delay" <<'PY'
import json, sys
work, delay = sys.argv[1], int(sys.argv[2])
r = json.load(open(f"{work}/recv.json")); s = json.load(open(f"{work}/send.json"))
p = r["pipeline"]
print(f"| path | receiver's RTT (XR) | XR measurements | sender's RTT (RR) | frames decoded |")
print(f"|---|---|---|---|---|")
print(f"| {delay} ms each way | {p.get('roundTripTime', 0) * 1000:.1f} ms | {p.get('roundTripTimesMeasured', 0)} | {s.get('roundTripTime', 0) * 1000:.1f} ms | {r['framesDecoded']} |")
PY
