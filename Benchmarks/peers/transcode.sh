#!/usr/bin/env bash
# Side by side: `confer transcode` against FFmpeg driving the same library with the same
# settings, on the same input, on this machine. Prints one row per codec with the ratio
# Confer time / FFmpeg time (hyperfine, 3 runs each after 1 warm-up, medians).
#
#   Benchmarks/peers/transcode.sh            # 720p 10 s testsrc2 + a noisy 720p clip
#   THREADS=1 Benchmarks/peers/transcode.sh  # only the one-thread VP8 rows
# Needs: ffmpeg, hyperfine, python3 (Scripts/install-deps installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-peers}
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer

[ -f "$work/in720.y4m" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=10" -pix_fmt yuv420p "$work/in720.y4m"
[ -f "$work/noise720.y4m" ] || ffmpeg -v error -y -f lavfi -i "mandelbrot=size=1280x720:rate=30" -t 10 -pix_fmt yuv420p "$work/noise720.y4m"
[ -f "$work/in48k.wav" ] || ffmpeg -v error -y -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=60" -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=60" -filter_complex amerge=inputs=2 -c:a pcm_s16le "$work/in48k.wav"

# Same settings on both sides: libvpx realtime, cpu-used 8, CBR 1.5 Mbps, no lag,
# error-resilient, one keyframe per 10 s; x264 ultrafast zerolatency baseline 1.5 Mbps;
# Opus 64 kbps complexity 10, 20 ms frames.
vpx_common="-deadline realtime -cpu-used 8 -b:v 1.5M -minrate 1.5M -maxrate 1.5M -lag-in-frames 0 -error-resilient 1 -g 300 -keyint_min 300"
run() { # name ffmpeg-command confer-command
  local name=$1 ff=$2 cf=$3
  hyperfine -N --warmup 1 --runs 3 --export-json "$work/$name.json" -n ffmpeg "$ff" -n confer "$cf" >&2
  python3 - "$work/$name.json" "$name" <<'PY'
import json, sys
results = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
f, c = results["ffmpeg"], results["confer"]
cpu = lambda x: x["user"] + x["system"]
print(f"| {sys.argv[2]} | {f['median']:.3f} s | {c['median']:.3f} s | {c['median'] / f['median']:.3f} "
      f"| {cpu(f):.3f} s | {cpu(c):.3f} s | {cpu(c) / cpu(f):.3f} |")
PY
}
# Wall-clock medians and mean CPU time (user + system). On a machine shared with other work
# the CPU-time ratio is the trustworthy one: it is the cost of the same work, without the
# waiting that other processes cause.
echo "| work | FFmpeg wall | confer wall | wall ratio | FFmpeg CPU | confer CPU | CPU ratio |"
echo "|---|---|---|---|---|---|---|"
for input in in720 noise720; do
  for threads in ${THREADS:-1 2}; do
    run "vp8-$input-t$threads" \
      "ffmpeg -v error -y -i $work/$input.y4m -c:v libvpx $vpx_common -threads $threads $work/ff.ivf" \
      "$confer transcode $work/$input.y4m -o $work/cf.ivf --codec vp8 --bitrate 1500 --speed 8 --threads $threads --keyframe-interval 300 -q"
  done
  run "vp9-$input-t2" \
    "ffmpeg -v error -y -i $work/$input.y4m -c:v libvpx-vp9 $vpx_common -row-mt 1 -tile-columns 1 -aq-mode 3 -threads 2 $work/ff9.ivf" \
    "$confer transcode $work/$input.y4m -o $work/cf9.ivf --codec vp9 --bitrate 1500 --speed 8 --threads 2 --keyframe-interval 300 -q"
  run "h264-$input-t1" \
    "ffmpeg -v error -y -i $work/$input.y4m -c:v libx264 -preset ultrafast -tune zerolatency -profile:v baseline -b:v 1.5M -maxrate 1.5M -bufsize 1.5M -g 300 -threads 1 -bsf:v h264_mp4toannexb -f h264 $work/ff.h264" \
    "$confer transcode $work/$input.y4m -o $work/cf.h264 --codec h264 --bitrate 1500 --threads 1 --keyframe-interval 300 -q"
done
run "opus-60s-stereo" \
  "ffmpeg -v error -y -i $work/in48k.wav -c:a libopus -b:a 64k -compression_level 10 -frame_duration 20 -application voip $work/ff.opus" \
  "$confer transcode $work/in48k.wav -o $work/cf.opus --codec opus --bitrate 64 -q"
# Decoding: both write the decoded 720p video as Y4M to tmpfs.
for f in ff.ivf ff9.ivf ff.h264; do
  run "decode-$f-720p" \
    "ffmpeg -v error -y -threads 1 -i $work/$f -f yuv4mpegpipe -pix_fmt yuv420p /dev/shm/confer-peer-ff.y4m" \
    "$confer transcode $work/$f -o /dev/shm/confer-peer-cf.y4m -q"
done
rm -f /dev/shm/confer-peer-*.y4m
