#!/usr/bin/env bash
# Under a bad network: one VP8 stream (`confer send`, 800 kbit/s, the 640x360 test card, a
# keyframe every 2 s) pushed through `confer netsim` (3 % loss, 30 ms normal jitter around
# 50 ms, seed 1; the return path 50 ms, no loss) into
#   - GStreamer: udpsrc ! rtpjitterbuffer latency=200 ! rtpvp8depay ! vp8dec
#   - `confer receive`: the jitter-buffered ReceivePipeline, its NACK/PLI/transport-cc
#     feedback going back through netsim to `confer send`, which answers it
#   - `confer receive --no-nack` (keyframe requests only)
#   - `confer receive --no-jitter-buffer` (frame assembly and decoding, no feedback)
# in real time over loopback UDP, and the same conditions simulated in virtual time for
# Confer's ReceivePipeline (`confer simulate`, with and without NACK).
#
# Every output frame is identified by the frame counter the test card draws, so frames
# rendered, freezes (runs of 5 or more missing frames: a gap above max(3 × 33 ms, 33 + 150 ms),
# the W3C freeze rule at 30 fps) and garbled frames (counter unreadable) are counted the
# same way for every receiver. Prints a Markdown table.
#
#   Benchmarks/peers/bad-network.sh          # 20 s clip; SECONDS_OF_VIDEO=60 for longer
# Needs: gst-launch-1.0 with gst-plugins-good (rtpjitterbuffer, rtpvp8depay, vp8dec), python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-bad-network}
seconds=${SECONDS_OF_VIDEO:-20}
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer

clip=$work/clip.y4m
[ -f "$clip" ] || "$confer" generate -o "$clip" --size 640x360 --duration "$seconds" -q >/dev/null
netsim_options=(--loss 3 --jitter 30 --jitter-distribution normal --delay 50 --return-delay 50 --seed 1)
echo "load before: $(uptime)" >&2
uptime | sed 's/.*load average: //' > "$work/load-before.txt"

# Sends the clip through netsim on port $1 to a receiver on port $2.
send_through_netsim() {
    "$confer" netsim --listen 127.0.0.1:"$1" --forward 127.0.0.1:"$2" "${netsim_options[@]}" \
        --duration $((seconds + 4)) -q --json > "$work/netsim-$3.json" &
    local relay=$!
    sleep 1
    "$confer" send "$clip" --codec vp8 --to 127.0.0.1:"$1" --bitrate 800 --keyframe-interval 2 -q --json > "$work/send-$3.json"
    wait "$relay"
}

# `confer receive` with extra options $3… on port $1, named $2.
confer_receiver() {
    local port=$1 name=$2
    shift 2
    "$confer" receive --listen 127.0.0.1:"$port" --codec vp8 -o "$work/$name.y4m" --idle-timeout 3 "$@" -q --json \
        > "$work/$name.json" &
    local receiver=$!
    sleep 1
    send_through_netsim $((port - 4)) "$port" "$name"
    wait "$receiver"
}

# GStreamer receiver.
rm -f "$work/gst.yuv"
gst-launch-1.0 -e -q udpsrc address=127.0.0.1 port=7004 \
    caps="application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)96" \
    ! rtpjitterbuffer latency=200 ! rtpvp8depay ! vp8dec ! videoconvert ! video/x-raw,format=I420 \
    ! filesink location="$work/gst.yuv" 2> "$work/gst.log" &
gst=$!
sleep 1
send_through_netsim 7000 7004 gst
sleep 1
kill -INT "$gst"
wait "$gst" || true

# confer receive: jitter buffer and feedback, keyframe requests only, and recording.
confer_receiver 7104 receive
confer_receiver 7204 receive-no-nack --no-nack
confer_receiver 7304 receive-record --no-jitter-buffer
uptime | sed 's/.*load average: //' > "$work/load-after.txt"
echo "load after: $(uptime)" >&2

# Confer's ReceivePipeline in virtual time, same conditions.
"$confer" simulate "$clip" --codec vp8 --loss 3 --jitter 30 --delay 50 --seed 1 --bitrate 800 \
    -o "$work/simulate-nack.y4m" -q --json > "$work/simulate-nack.json"
"$confer" simulate "$clip" --codec vp8 --loss 3 --jitter 30 --delay 50 --seed 1 --bitrate 800 --no-nack \
    -o "$work/simulate-no-nack.y4m" -q --json > "$work/simulate-no-nack.json"

python3 - "$work" "$seconds" <<'PY'
import json, sys
work, seconds = sys.argv[1], int(sys.argv[2])
W, H = 640, 360
expected = seconds * 30

def frames_yuv(path):
    size = W * H * 3 // 2
    with open(path, 'rb') as f:
        while True:
            data = f.read(size)
            if len(data) < size: return
            yield data[:W * H]

def frames_y4m(path):
    with open(path, 'rb') as f:
        f.readline()
        while True:
            line = f.readline()
            if not line: return
            data = f.read(W * H * 3 // 2)
            if len(data) < W * H * 3 // 2: return
            yield data[:W * H]

def counter(luma):
    # TestPatternSource's strip: 18 columns x 2 rows at (4 %, 80 %) sized 92 % x 16 %.
    x0, y0 = round(W * 0.04), round(H * 0.80)
    x1, y1 = round(W * 0.96), round(H * 0.96)
    cw, ch = (x1 - x0) / 18, (y1 - y0) / 2
    def mean(cx, cy):
        xs = range(max(0, round(cx - cw / 4)), min(W, max(round(cx - cw / 4) + 1, round(cx + cw / 4))))
        ys = range(max(0, round(cy - ch / 4)), min(H, max(round(cy - ch / 4) + 1, round(cy + ch / 4))))
        return sum(luma[y * W + x] for y in ys for x in xs) / (len(xs) * len(ys))
    value = 0
    for c in range(18):
        cx = x0 + cw * (c + 0.5)
        d = mean(cx, y0 + ch * 0.5) - mean(cx, y0 + ch * 1.5)
        if abs(d) < 48: return None
        if c == 0 and d <= 0: return None
        if c == 17 and d >= 0: return None
        if 0 < c < 17: value = value << 1 | (1 if d > 0 else 0)
    return value

def analyse(frames):
    seen, garbled, count = set(), 0, 0
    for luma in frames:
        count += 1
        n = counter(luma)
        if n is None or n >= expected: garbled += 1
        else: seen.add(n)
    freezes, run = 0, 0
    for i in range(expected):
        if i in seen: run = 0
        else:
            run += 1
            if run == 5: freezes += 1
    return count, len(seen), garbled, freezes

rows = []
gst = analyse(frames_yuv(f"{work}/gst.yuv"))
rows.append(("GStreamer 1.22 `rtpjitterbuffer latency=200 ! rtpvp8depay ! vp8dec`", "gst", "UDP via `confer netsim`", gst,
             "200 (fixed latency)"))
for name, label in (("receive", "`confer receive` (jitter buffer, NACK/RTX + PLI back through netsim)"),
                    ("receive-no-nack", "`confer receive --no-nack` (jitter buffer, PLI only)"),
                    ("receive-record", "`confer receive --no-jitter-buffer` (frame assembly, no feedback)")):
    result = analyse(frames_y4m(f"{work}/{name}.y4m"))
    report = json.load(open(f"{work}/{name}.json"))
    video = (report.get("pipeline") or {}).get("video")
    if video:
        per_frame = 1000 * video["jitterBufferDelay"] / max(video["jitterBufferEmittedCount"], 1)
        sent = json.load(open(f"{work}/send-{name}.json"))
        delay = (f"{per_frame:.0f} mean jitter-buffer delay; {video['nackCount']} NACKs, "
                 f"{sent['retransmissionsSent']} RTX, {video['pliCount']} PLIs → {sent['keyframesOnRequest']} keyframes")
    else:
        delay = "0 (written on assembly)"
    rows.append((label, name, "UDP via `confer netsim`", result, delay))
for name, nack in (("simulate-nack", "NACK/RTX"), ("simulate-no-nack", "`--no-nack`")):
    report = json.load(open(f"{work}/{name}.json"))
    v = report["video"]
    per_frame = 1000 * v["jitterBufferDelay"] / max(v["jitterBufferEmittedCount"], 1)
    # The simulated output repeats the last picture where none rendered, so its distinct
    # counters are the frames rendered; freezes are the receiver's own W3C count.
    out, distinct, garbled, _ = analyse(frames_y4m(f"{work}/{name}.y4m"))
    rows.append((f"Confer `ReceivePipeline`, {nack}", name, "`confer simulate`, same conditions",
                 (out, distinct, garbled, v["freezeCount"]),
                 f"{per_frame:.0f} mean jitter-buffer delay (end-to-end p95 {report['endToEndDelay']['p95']:.0f})"))
runs = ("gst", "receive", "receive-no-nack", "receive-record")
loss = [json.load(open(f"{work}/netsim-{k}.json"))["statistics"]["forward"] for k in runs]
keyframes = [json.load(open(f"{work}/send-{k}.json"))["keyframes"] for k in runs]
load = [open(f"{work}/load-{k}.txt").read().strip() for k in ("before", "after")]
print(f"{seconds} s of 640x360 VP8 at 800 kbit/s ({expected} frames); keyframes sent: "
      + ", ".join(f"{k} {n}" for k, n in zip(runs, keyframes)) + "; netsim forward loss: "
      + ", ".join(f"{k} {100 * (s['packetsSent'] - s['packetsDelivered']) / max(s['packetsSent'], 1):.2f} %"
                  for k, s in zip(runs, loss))
      + f"; load average {load[0]} before, {load[1]} after")
print()
print("| receiver | path | frames out | distinct frames rendered | garbled | freezes | added delay (ms) |")
print("|---|---|---:|---:|---:|---:|---|")
for label, _, path, (out, distinct, garbled, freezes), delay in rows:
    print(f"| {label} | {path} | {out} | {distinct} ({100 * distinct / expected:.1f} %) | {garbled} | {freezes} | {delay} |")
PY
