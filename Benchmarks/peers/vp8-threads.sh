#!/usr/bin/env bash
# How far libvpx's own VP8 threads go on this machine, without any tool around them: a small C
# program (built here against the system libvpx) encodes the mix benchmark's composed 2×2 grid
# (1280×720, 300 frames, read into memory first) with the settings `confer mix` uses (realtime,
# cpu-used 8, CBR 1.5 Mbit/s, one token partition, error resilient), and prints frames per
# second of encoding alone:
#   one encoder, one thread · one encoder, two threads · two one-thread encoders side by side
#   (each encodes all 300 frames; the figure is their frames together per wall second).
# The last is what `confer mix` does with its segments; the second is the most any tool gets
# from one libvpx VP8 stream here (FFmpeg and GStreamer included).
#
#   Benchmarks/peers/vp8-threads.sh
# Needs: a C compiler (gcc or the toolchain's clang), libvpx-dev, ffmpeg (to make the clips), and the mix benchmark's inputs
# (Benchmarks/peers/mix.sh makes them; this script makes them too if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/confer-peers/mix}
mkdir -p "$work"
cd "$root"
for i in 0 1 2 3; do
  [ -f "$work/in$i.y4m" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=30:duration=10,hue=h=$((i*40))" \
    -pix_fmt yuv420p "$work/in$i.y4m"
done
swift build -c release --product confer >&2
confer=$(swift build -c release --show-bin-path)/confer
grid=/dev/shm/confer-vp8-threads.y4m
"$confer" mix "$work"/in0.y4m "$work"/in1.y4m "$work"/in2.y4m "$work"/in3.y4m -o "$grid" -q >/dev/null

cat > "$work/vp8-threads.c" <<'C'
#include <vpx/vpx_encoder.h>
#include <vpx/vp8cx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
enum { W = 1280, H = 720, N = 300 };
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  int threads = atoi(argv[2]);
  FILE *f = fopen(argv[1], "rb");
  char line[256];
  if (!f || !fgets(line, sizeof line, f)) return 1;
  size_t size = (size_t)W * H * 3 / 2;
  unsigned char *frames = malloc(size * N);
  for (int i = 0; i < N; i++)
    if (!fgets(line, sizeof line, f) || fread(frames + i * size, 1, size, f) != size) return 1;
  vpx_codec_enc_cfg_t c;
  vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &c, 0);
  c.g_w = W; c.g_h = H; c.g_timebase.num = 1; c.g_timebase.den = 90000; c.g_threads = threads;
  c.g_lag_in_frames = 0; c.g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
  c.rc_end_usage = VPX_CBR; c.rc_target_bitrate = 1500; c.rc_resize_allowed = 0; c.rc_dropframe_thresh = 0;
  c.rc_min_quantizer = 2; c.rc_max_quantizer = 52; c.rc_undershoot_pct = 100; c.rc_overshoot_pct = 15;
  c.rc_buf_sz = 1000; c.rc_buf_initial_sz = 500; c.rc_buf_optimal_sz = 600; c.kf_mode = VPX_KF_DISABLED;
  vpx_codec_ctx_t e;
  if (vpx_codec_enc_init(&e, vpx_codec_vp8_cx(), &c, 0)) return 1;
  vpx_codec_control(&e, VP8E_SET_CPUUSED, 8);
  vpx_codec_control(&e, VP8E_SET_TOKEN_PARTITIONS, 0);
  vpx_codec_control(&e, VP8E_SET_STATIC_THRESHOLD, 1);
  double start = now();
  for (int i = 0; i < N; i++) {
    vpx_image_t image;
    vpx_img_wrap(&image, VPX_IMG_FMT_I420, W, H, 1, frames + i * size);
    if (vpx_codec_encode(&e, &image, (vpx_codec_pts_t)i * 3000, 3000, 0, VPX_DL_REALTIME)) return 1;
    vpx_codec_iter_t it = NULL;
    while (vpx_codec_get_cx_data(&e, &it)) {}
  }
  printf("%.3f\n", now() - start);
  return 0;
}
C
# Any C compiler: gcc where installed, else the clang that comes with the Swift toolchain.
cc=${CC:-$(command -v gcc || command -v clang)}
"$cc" -O2 "$work/vp8-threads.c" -o "$work/vp8-threads" -lvpx
one=$("$work/vp8-threads" "$grid" 1)
two=$("$work/vp8-threads" "$grid" 2)
pair=$( { "$work/vp8-threads" "$grid" 1 & "$work/vp8-threads" "$grid" 1 & wait; } | sort -n | tail -1)
rm -f "$grid"
python3 - "$one" "$two" "$pair" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import sys
one, two, pair = (float(x) for x in sys.argv[1:4])
print("| libvpx VP8, 1280x720 grid, encoding only | frames/s | × one thread |")
print("|---|---|---|")
print(f"| one encoder, one thread | {300 / one:.0f} | 1.00 |")
print(f"| one encoder, two threads | {300 / two:.0f} | {one / two:.2f} |")
print(f"| two one-thread encoders side by side | {600 / pair:.0f} | {2 * one / pair:.2f} |")
print(f"load average after: {sys.argv[4]}")
PY
