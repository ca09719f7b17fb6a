#!/usr/bin/env bash
# `confer mix` against FFmpeg's xstack whatever the clip: four 640×360 30 fps inputs of
# 4, 6, 10 and 60 s, synthetic (testsrc2, a hue per input) and camera-like (the same with
# temporal noise), into a 2×2 grid 1280×720, VP8 realtime cpu-used 8 at 1.5 Mbit/s, both
# tools with their default threads. Per row: frames per second (hyperfine median of RUNS
# runs after a warm-up, default 3), confer's speed as a multiple of FFmpeg's, each output's
# mean per-frame PSNR against the raw grid (FFmpeg's psnr filter, all planes) and its
# bitrate from the file size, and the load average after the row. FFmpeg's libvpx (VBR)
# overshoots 1.5 Mbit/s on noisy input while confer holds it, so the last PSNR column is
# confer asked for the bitrate FFmpeg actually wrote: quality at equal bits.
#
#   Benchmarks/peers/mix-lengths.sh                 # every length, both contents
#   LENGTHS="4 6" CONTENTS=noisy Benchmarks/peers/mix-lengths.sh
#   RT=1 Benchmarks/peers/mix-lengths.sh            # both tools at real-time priority (root),
#                                                   # so other work on a shared machine waits
# Needs: ffmpeg, hyperfine, python3. Inputs go to WORK (default /tmp/confer-peers/mix-lengths;
# the 60 s ones take 2.5 GB), the raw grid for PSNR to /dev/shm for the length of a row.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-peers/mix-lengths}
runs=${RUNS:-3}
lengths=${LENGTHS:-4 6 10 60}
contents=${CONTENTS:-synthetic noisy}
priority=""
[ "${RT:-0}" = 1 ] && priority="chrt -r 10"
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer
xstack='[0][1][2][3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[v]'

echo "| content | seconds | frames | FFmpeg fps | confer fps | confer / FFmpeg | PSNR FFmpeg | PSNR confer | kbit/s FFmpeg | kbit/s confer | PSNR confer at FFmpeg's kbit/s | load after |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for content in $contents; do
  for seconds in $lengths; do
    filter="testsrc2=size=640x360:rate=30:duration=$seconds"
    [ "$content" = noisy ] && filter="$filter,noise=alls=14:allf=t"
    inputs=()
    for i in 0 1 2 3; do
      f="$work/$content-$seconds-$i.y4m"
      [ -f "$f" ] || ffmpeg -v error -y -f lavfi -i "$filter,hue=h=$((i*40))" -pix_fmt yuv420p "$f"
      inputs+=("$f")
    done
    frames=$((seconds * 30))
    ff_in="-i ${inputs[0]} -i ${inputs[1]} -i ${inputs[2]} -i ${inputs[3]}"
    $priority hyperfine -N --warmup 1 --runs "$runs" --export-json "$work/run.json" \
      -n ffmpeg "ffmpeg -v error -y $ff_in -filter_complex $xstack -map [v] -c:v libvpx -deadline realtime -cpu-used 8 -b:v 1.5M $work/ff.ivf" \
      -n confer "$confer mix ${inputs[*]} -o $work/cf.ivf --codec vp8 --bitrate 1500 -q" >&2
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    "$confer" mix "${inputs[@]}" -o /dev/shm/confer-grid.y4m -q >/dev/null
    ff_kbps=$(( $(stat -c %s "$work/ff.ivf") * 8 / seconds / 1000 ))
    "$confer" mix "${inputs[@]}" -o "$work/cf-eq.ivf" --codec vp8 --bitrate "$ff_kbps" -q >/dev/null
    for tool in ff cf cf-eq; do
      ffmpeg -v error -i "$work/$tool.ivf" -i /dev/shm/confer-grid.y4m -lavfi "[0][1]psnr=stats_file=$work/$tool-psnr.log" -f null -
    done
    rm -f /dev/shm/confer-grid.y4m
    python3 - "$work" "$content" "$seconds" "$frames" "$load" <<'PY'
import json, os, re, sys
work, content, seconds, frames, load = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = {x["command"]: x["median"] for x in json.load(open(f"{work}/run.json"))["results"]}
fps = {k: frames / v for k, v in r.items()}
def quality(tool):
    v = [float(re.search(r"psnr_avg:(\S+)", line).group(1)) for line in open(f"{work}/{tool}-psnr.log")]
    return sum(v) / len(v), os.path.getsize(f"{work}/{tool}.ivf") * 8 / seconds / 1000
(pf, kf), (pc, kc), (pe, ke) = quality("ff"), quality("cf"), quality("cf-eq")
print(f"| {content} | {seconds} | {frames} | {fps['ffmpeg']:.0f} | {fps['confer']:.0f} | {fps['confer'] / fps['ffmpeg']:.2f} "
      f"| {pf:.2f} dB | {pc:.2f} dB | {kf:.0f} | {kc:.0f} | {pe:.2f} dB ({ke:.0f}) | {load} |")
PY
  done
done
