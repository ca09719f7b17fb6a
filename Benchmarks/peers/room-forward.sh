#!/usr/bin/env bash
# The room's forward, set mid-meeting (release builds, loopback): `confer serve`, `confer host
# --approve all` and one `confer join` run a meeting; then ROUNDS times the administrator
# sets the room's forward to a UDP socket (PUT /v1/rooms/ROOM/forward, straight over HTTP so
# no process start is timed), and the time to the first packet there, to the first packet of
# a keyframe, and to that keyframe's last packet (the audience can show a picture) is taken;
# the forward is stopped (DELETE) and the socket drained before the next round.
#
#   Benchmarks/peers/room-forward.sh
#   ROUNDS=20 FPS=30 Benchmarks/peers/room-forward.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
work=$(mktemp -d)
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --admin-token "$admin" --memory-db > "$work/url" 2>/dev/null &
server=$!
host="" member=""
trap 'kill $server $host $member 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
fps=${FPS:-30}
"$confer" host --server "$url" --token "$("$confer" token --secret "$secret" --room bench --identity host --role host)" \
  --approve all --size 640x360 --fps "$fps" --quiet > /dev/null 2>&1 &
host=$!
sleep 1
"$confer" join --server "$url" --token "$("$confer" token --secret "$secret" --room bench --identity alice)" \
  --duration 600 --quiet > /dev/null 2>&1 &
member=$!
sleep 3
echo "== the room's forward set mid-meeting: $fps fps composite, ${ROUNDS:-10} rounds" >&2
python3 - "$url" "$admin" "${ROUNDS:-10}" <<'PY'
import json, socket, sys, time, urllib.request
url, admin, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
audience = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
audience.bind(("127.0.0.1", 0))
port = audience.getsockname()[1]

def call(method, body=None):
    request = urllib.request.Request(f"{url}/v1/rooms/bench/forward", method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=5).read()

def vp8_keyframe_start(packet):
    # RTP header (no CSRCs, no extension from the forward), then the VP8 payload descriptor.
    payload = packet[12 + 4 * (packet[0] & 0x0F):]
    if packet[0] & 0x10:
        length = int.from_bytes(packet[14 + 4 * (packet[0] & 0x0F):16 + 4 * (packet[0] & 0x0F)], "big")
        payload = payload[4 + 4 * length:]
    first, i = payload[0], 1
    if first & 0x80:
        x = payload[1]; i = 2
        if x & 0x80: i += 2 if payload[i] & 0x80 else 1
        if x & 0x40: i += 1
        if x & 0x30: i += 1
    return bool(first & 0x10) and (first & 0x07) == 0 and (payload[i] & 0x01) == 0

results = []
for _ in range(rounds):
    audience.settimeout(0.2)
    try:
        while True: audience.recv(65536)
    except socket.timeout:
        pass
    audience.settimeout(3)
    start = time.monotonic()
    call("PUT", {"video": f"127.0.0.1:{port}"})
    first = keyframe = complete = None
    keyframe_timestamp = None
    try:
        while complete is None:
            packet = audience.recv(65536)
            now = time.monotonic()
            if first is None: first = now
            timestamp = int.from_bytes(packet[4:8], "big")
            if keyframe is None and vp8_keyframe_start(packet):
                keyframe, keyframe_timestamp = now, timestamp
            if keyframe is not None and timestamp == keyframe_timestamp and packet[1] & 0x80:
                complete = now
    except socket.timeout:
        pass
    call("DELETE")
    if complete is not None:
        results.append(((first - start) * 1000, (keyframe - start) * 1000, (complete - start) * 1000))
    time.sleep(0.3)

def pick(values, f):
    values = sorted(values)
    return round(values[min(len(values) - 1, round((len(values) - 1) * f))], 1) if values else None
print(json.dumps({
    "rounds": rounds, "roundsWithAPicture": len(results),
    "firstPacketP50Milliseconds": pick([r[0] for r in results], 0.5),
    "firstKeyframePacketP50Milliseconds": pick([r[1] for r in results], 0.5),
    "pictureP50Milliseconds": pick([r[2] for r in results], 0.5),
    "pictureP95Milliseconds": pick([r[2] for r in results], 0.95),
    "pictureMilliseconds": [round(r[2], 1) for r in results],
}, indent=2))
PY
