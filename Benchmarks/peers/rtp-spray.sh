#!/usr/bin/env bash
# A plain-RTP receiver under a spray: `confer receive` (VP8, no SRTP) gets a 6 s stream from
# `confer send` (180 frames of the test card) while another process sprays RTP-shaped
# datagrams at it — the stream's payload type, random SSRCs, sequence numbers and
# timestamps — for a second before the stream and all through it, from another address.
# Prints frames decoded and what the receiver counted as from other sources, with and
# without the spray, in one run.
#
#   Benchmarks/peers/rtp-spray.sh          # RATE=500 sprayed datagrams per second
# Needs: python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-rtp-spray}
rate=${RATE:-500}
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer
clip=$work/clip.y4m
[ -f "$clip" ] || "$confer" generate -o "$clip" --size 640x360 --duration 6 -q >/dev/null

spray() { # port seconds
    python3 - "$1" "$2" "$rate" <<'PY'
import os, random, socket, struct, sys, time
port, seconds, rate = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
end = time.time() + seconds
sent = 0
while time.time() < end:
    header = struct.pack("!BBHII", 0x80, 96, random.getrandbits(16), random.getrandbits(32), random.getrandbits(32))
    s.sendto(header + os.urandom(random.randint(20, 1000)), ("127.0.0.1", port))
    sent += 1
    time.sleep(1 / rate)
print(sent)
PY
}

run() { # name port spray?
    "$confer" receive --listen 127.0.0.1:"$2" --codec vp8 -o "$work/$1.ivf" --idle-timeout 3 -q --json > "$work/$1.json" &
    local receiver=$!
    local sprayed=0
    if [ "$3" = yes ]; then spray "$2" 9 > "$work/$1.sprayed" & fi
    sleep 1
    "$confer" send "$clip" --codec vp8 --to 127.0.0.1:"$2" --bitrate 800 -q --json > "$work/send-$1.json"
    wait "$receiver"
    wait
    [ "$3" = yes ] && sprayed=$(cat "$work/$1.sprayed")
    python3 - "$work/$1.json" "$1" "$sprayed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {r.get('framesDecoded', '?')} / 180 | {r.get('otherSSRC', '?')} |")
PY
}

echo "| run | datagrams sprayed | frames decoded | counted from other sources |"
echo "|---|---|---|---|"
run clean 7300 no
run spray 7310 yes
