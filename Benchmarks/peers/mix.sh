#!/usr/bin/env bash
# Side by side: `confer mix` against FFmpeg's xstack and GStreamer's compositor on the same
# inputs, on this machine: four 640×360 test clips (10 s, 30 fps) into a 2×2 grid 1280×720,
# encoded with libvpx VP8 realtime cpu-used 8 at 1.5 Mbps, and the same without encoding
# (reading + compositing only). Prints markdown rows: frames per second (300 frames / the
# hyperfine median of RUNS runs after one warm-up, default 5) and confer's speed as a
# multiple of each peer's, with the load average after the row: other work on the cores
# skews every figure (libvpx's threads spin while they wait for each other, so a busy
# machine slows two-thread encoders several times over), so compare ratios from one run only.
#
#   Benchmarks/peers/mix.sh          # as the machine is
#   RT=1 Benchmarks/peers/mix.sh     # every command at real-time priority (root): on a shared
#                                    # machine, close to what an idle one would show
# Rows: "2x2-vp8" FFmpeg and GStreamer as PEERS.md runs them (two libvpx threads), confer by
# default (the stream cut at its keyframes, 0/128/256 like the peers' defaults, and the
# segments encoded side by side by two one-thread workers) and, as the variant, one encoder
# (--no-segments: two libvpx threads on an idle machine, one otherwise);
# "2x2-vp8-1-thread" everyone on one encoder thread, the variant without the pipeline;
# "2x2-raw" reading and compositing only: FFmpeg -f null, GStreamer fakesink, confer
# --discard (writes nothing), the variant writing raw .y4m to /dev/shm.
# Quality of the encoded outputs against the raw grid: PSNR=1 prints each tool's mean
# per-frame PSNR (FFmpeg's psnr filter) and bitrate after the table.
# Needs: ffmpeg, gst-launch-1.0 (plugins base/good/bad, libav), hyperfine, python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-peers/mix}
runs=${RUNS:-5}
priority=""
[ "${RT:-0}" = 1 ] && priority="chrt -r 10"
mkdir -p "$work"
cd "$root"
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer

for i in 0 1 2 3; do
  [ -f "$work/in$i.y4m" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=30:duration=10,hue=h=$((i*40))" \
    -pix_fmt yuv420p "$work/in$i.y4m"
done
frames=300
inputs="$work/in0.y4m $work/in1.y4m $work/in2.y4m $work/in3.y4m"
ff_in="-i $work/in0.y4m -i $work/in1.y4m -i $work/in2.y4m -i $work/in3.y4m"
xstack='[0][1][2][3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[v]'
gst_sources="filesrc location=$work/in0.y4m ! y4mdec ! c.sink_0  filesrc location=$work/in1.y4m ! y4mdec ! c.sink_1 \
  filesrc location=$work/in2.y4m ! y4mdec ! c.sink_2  filesrc location=$work/in3.y4m ! y4mdec ! c.sink_3"
gst_grid="compositor name=c sink_1::xpos=640 sink_2::ypos=360 sink_3::xpos=640 sink_3::ypos=360 \
  ! video/x-raw,format=I420,width=1280,height=720"

run() { # name ffmpeg-command gstreamer-command confer-command [confer-variant-command]
  local name=$1
  local extra=()
  [ $# -ge 5 ] && extra=(-n confer2 "$5")
  $priority hyperfine -N --warmup 1 --runs "$runs" --export-json "$work/$name.json" \
    -n ffmpeg "$2" -n gstreamer "$3" -n confer "$4" "${extra[@]}" >&2
  python3 - "$work/$name.json" "$name" "$frames" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[3])
fps = {k: n / v for k, v in r.items()}
variant = f"{fps['confer2']:.0f} ({fps['confer2'] / fps['ffmpeg']:.2f})" if "confer2" in fps else "-"
print(f"| {sys.argv[2]} | {fps['ffmpeg']:.0f} | {fps['gstreamer']:.0f} | {fps['confer']:.0f} "
      f"| {fps['confer'] / fps['ffmpeg']:.2f} | {fps['confer'] / fps['gstreamer']:.2f} | {variant} | {sys.argv[4]} |")
PY
}

echo "| work (fps) | FFmpeg | GStreamer | confer | confer / FFmpeg | confer / GStreamer | confer variant (/ FFmpeg) | load avg after |"
echo "|---|---|---|---|---|---|---|---|"
run "2x2-vp8" \
  "ffmpeg -v error -y $ff_in -filter_complex $xstack -map [v] -c:v libvpx -deadline realtime -cpu-used 8 -b:v 1.5M $work/ff.ivf" \
  "gst-launch-1.0 -q $gst_grid ! vp8enc deadline=1 cpu-used=8 target-bitrate=1500000 end-usage=cbr threads=2 lag-in-frames=0 ! avmux_ivf ! filesink location=$work/gst.ivf $gst_sources" \
  "$confer mix $inputs -o $work/cf.ivf --codec vp8 --bitrate 1500 -q" \
  "$confer mix $inputs -o $work/cf-one.ivf --codec vp8 --bitrate 1500 --no-segments -q"
for tool in ff gst cf; do cp "$work/$tool.ivf" "$work/$tool-default.ivf"; done
run "2x2-vp8-1-thread" \
  "ffmpeg -v error -y $ff_in -filter_complex $xstack -map [v] -c:v libvpx -deadline realtime -cpu-used 8 -b:v 1.5M -threads 1 $work/ff.ivf" \
  "gst-launch-1.0 -q $gst_grid ! vp8enc deadline=1 cpu-used=8 target-bitrate=1500000 end-usage=cbr threads=1 lag-in-frames=0 ! avmux_ivf ! filesink location=$work/gst.ivf $gst_sources" \
  "$confer mix $inputs -o $work/cf.ivf --codec vp8 --bitrate 1500 --threads 1 -q" \
  "$confer mix $inputs -o $work/cf.ivf --codec vp8 --bitrate 1500 --threads 1 --no-pipeline -q"
run "2x2-raw" \
  "ffmpeg -v error -y $ff_in -filter_complex $xstack -map [v] -f null -" \
  "gst-launch-1.0 -q $gst_grid ! fakesink $gst_sources" \
  "$confer mix $inputs --codec raw --discard --no-pipeline -q" \
  "$confer mix $inputs -o /dev/shm/confer-mix.y4m -q"
if [ "${PSNR:-0}" = 1 ]; then
  "$confer" mix $inputs -o "$work/grid.y4m" -q >/dev/null
  echo
  for f in ff-default gst-default cf-default cf-one; do
    ffmpeg -v error -i "$work/$f.ivf" -i "$work/grid.y4m" -lavfi "[0][1]psnr=stats_file=$work/psnr.log" -f null -
    python3 - "$work/psnr.log" "$work/$f.ivf" "$f" <<'PY'
import os, re, sys
v = [float(re.search(r"psnr_avg:(\S+)", line).group(1)) for line in open(sys.argv[1])]
kbps = os.path.getsize(sys.argv[2]) * 8 / (len(v) / 30) / 1000
print(f"{sys.argv[3]}: {len(v)} frames, mean PSNR {sum(v) / len(v):.2f} dB, {kbps:.0f} kbit/s (file)")
PY
  done
  rm -f "$work/grid.y4m"
fi
rm -f /dev/shm/confer-mix.y4m
