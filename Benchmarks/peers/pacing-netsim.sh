#!/usr/bin/env bash
# The paced sender through a real relay: `confer send` → `confer netsim` → `confer receive`
# over loopback UDP in real time, the receiver's feedback (transport-cc, NACK, PLI,
# receiver reports) going back through netsim to the sender.
#
#   1. Keyframe bursts at a cap: 20 s of camera-like 640x360 (testsrc2 with light temporal
#      noise, a 10 s clip looped), VP8 starting at 800 kbit/s with a keyframe every 2 s, the
#      encoder free to skip frames as a camera sender's is (`--drop-frames`), through a
#      600 kbit/s cap with a 50 ms drop-tail queue (25 ms each way), sent a frame at a time
#      (`--no-pacing`) and then paced, twice each. Per run: datagrams the queue dropped, netsim's
#      queueing delay, keyframes, frames sent, decoded and freezes at the receiver,
#      retransmissions, the sender's mean target over 5–20 s.
#   2. Ramp-up from a low start: 20 s of testsrc2 with heavier noise at 1280x720 (a 5 s clip looped),
#      VP8 with a 4 Mbit/s ceiling starting at 300 kbit/s (`--start-bitrate 300`, so the
#      sender probes), keyframes only on request (as a WebRTC sender: a periodic keyframe
#      of 1280x720 noise is a burst every cut follows), through a 2.5 Mbit/s cap with a
#      100 ms queue, without and with jitter (20 ms, normal, order kept), paced. Per run: the first second the sender's
#      target reached 80 % of the link (2,000 kbit/s), the target each second, the mean
#      over 10–20 s, and the queue's drops.
#
#   Benchmarks/peers/pacing-netsim.sh        # prints two Markdown tables
# Needs: ffmpeg (the clips), python3. Ports 7510–7539 on 127.0.0.1.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-pacing-netsim}
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer

card=$work/camera-360p.y4m
camera=$work/camera-720p.y4m
[ -f "$card" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=30:duration=10,noise=alls=6:allf=t" \
    -pix_fmt yuv420p "$card"
[ -f "$camera" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=5,noise=alls=14:allf=t" \
    -pix_fmt yuv420p "$camera"
uptime | sed 's/.*load average: //' > "$work/load-before.txt"

# One run named $1 on ports $2 (netsim) and $2+4 (receiver): netsim options up to `--`,
# then `confer send` options.
run() {
    local name=$1 port=$2
    shift 2
    local netsim=() send=()
    while [ "$1" != -- ]; do netsim+=("$1"); shift; done
    shift
    send=("$@")
    "$confer" receive --listen 127.0.0.1:$((port + 4)) --codec vp8 -o "$work/$name.y4m" --idle-timeout 3 -q --json \
        > "$work/receive-$name.json" &
    local receiver=$!
    "$confer" netsim --listen 127.0.0.1:"$port" --forward 127.0.0.1:$((port + 4)) --delay 25 --return-delay 25 \
        "${netsim[@]}" --duration 25 -q --json > "$work/netsim-$name.json" &
    local relay=$!
    sleep 1
    "$confer" send --codec vp8 --to 127.0.0.1:"$port" --duration 20 -q --json "${send[@]}" > "$work/send-$name.json"
    wait "$receiver"
    kill -INT "$relay" 2>/dev/null || true
    wait "$relay" || true
    rm -f "$work/$name.y4m"
}

for round in 1 2; do
    run burst-$round 75${round}0 --bandwidth 600 --queue 50 -- "$card" --loop --bitrate 800 --keyframe-interval 2 --drop-frames \
        --no-pacing
    run paced-$round 75${round}5 --bandwidth 600 --queue 50 -- "$card" --loop --bitrate 800 --keyframe-interval 2 --drop-frames \
        --pacing
done
run ramp 7530 --bandwidth 2500 --queue 100 -- "$camera" --loop --bitrate 4000 --start-bitrate 300 --pacing \
    --keyframe-interval 0
run ramp-jitter 7535 --bandwidth 2500 --queue 100 --jitter 20 --jitter-distribution normal --seed 1 -- \
    "$camera" --loop --bitrate 4000 --start-bitrate 300 --pacing --keyframe-interval 0
uptime | sed 's/.*load average: //' > "$work/load-after.txt"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(kind, name): return json.load(open(f"{work}/{kind}-{name}.json"))
def mean(values): return sum(values) / max(len(values), 1)
print(f"load average {open(f'{work}/load-before.txt').read().strip()} before, "
      f"{open(f'{work}/load-after.txt').read().strip()} after")
print()
print("| sender | datagrams into the cap | dropped by the queue | queueing ms (mean / max) | keyframes | "
      "frames sent / decoded | freezes | retransmissions (refused over budget) | mean target 5–20 s (kbit/s) |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
for name, label in (("burst-1", "a frame at a time (`--no-pacing`)"), ("burst-2", "a frame at a time (`--no-pacing`)"),
                    ("paced-1", "paced (the default)"), ("paced-2", "paced (the default)")):
    forward = load("netsim", name)["statistics"]["forward"]
    send, video = load("send", name), load("receive", name)["pipeline"]["video"]
    sent = send["pipeline"]["video"]
    delivered = forward["packetsSent"] - forward["droppedQueue"]
    mean_queue = forward["totalQueueingDelay"]["microseconds"] / max(delivered, 1) / 1000
    target = mean([s["targetKbps"] for s in send["timeline"][5:20]])
    print(f"| {label} | {forward['packetsSent']:,} | {forward['droppedQueue']} "
          f"({100 * forward['droppedQueue'] / max(forward['packetsSent'], 1):.1f} %) "
          f"| {mean_queue:.0f} / {forward['maxQueueingDelay']['microseconds'] / 1000:.0f} "
          f"| {send['keyframes']} | {send['frames']} / {video['framesDecoded']} | {video['freezeCount']} "
          f"| {sent['retransmittedPacketsSent']} ({sent['retransmissionsOverBudget']}) | {target:.0f} |")
print()
print("| path (2.5 Mbit/s, 100 ms queue) | first second at ≥ 2,000 kbit/s | target each second (kbit/s) | "
      "mean target 10–20 s | mean sent 10–20 s | dropped by the queue |")
print("|---|---:|---|---:|---:|---:|")
for name, label in (("ramp", "clean"), ("ramp-jitter", "20 ms jitter")):
    forward = load("netsim", name)["statistics"]["forward"]
    timeline = load("send", name)["timeline"]
    reached = next((s["second"] + 1 for s in timeline if s["targetKbps"] >= 2000), None)
    print(f"| {label} | {'never' if reached is None else f'{reached} s'} "
          f"| {' '.join(str(s['targetKbps']) for s in timeline)} "
          f"| {mean([s['targetKbps'] for s in timeline[10:20]]):.0f} | {mean([s['sentKbps'] for s in timeline[10:20]]):.0f} "
          f"| {forward['droppedQueue']} |")
PY
