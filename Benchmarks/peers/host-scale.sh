#!/usr/bin/env bash
# Host scale: how many participants one compositing host keeps up with on this machine.
# N distinct VP8 640×360 30 fps participant streams (test card or noise, encoded up front,
# not timed) are decoded frame by frame, laid out on a 1280×720 grid and the canvas is
# encoded once (VP8 realtime cpu-used 8, 1.5 Mbit/s, one encoder thread, no frame drops),
# for N = 4, 9, 16, 25, with the whole loop on one thread and with Confer's CompositeLoop
# on two. Prints markdown rows: real-time factor (media seconds / wall seconds), CPU
# seconds (all threads) and CPU seconds per media second — the cores a live host needs,
# which other work on the machine does not change much, unlike the wall-clock figures.
#
#   Benchmarks/peers/host-scale.sh                      # N = 4,9,16,25; card and noise; 1 and 2 threads
#   PARTICIPANTS=16 CONTENT=noise SECONDS_OF_VIDEO=30 Benchmarks/peers/host-scale.sh
#   NICE=-10 Benchmarks/peers/host-scale.sh             # ahead of other work (root), which still gets a share
#   RT=1 Benchmarks/peers/host-scale.sh                 # at real-time priority (root), as on an idle machine
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
priority=""
[ "${RT:-0}" = 1 ] && priority="chrt -r 10"
if [ -n "${NICE:-}" ]; then
  priority="nice -n $NICE"
  # With the kernel's session autogroups (sched_autogroup_enabled=1, as here) CPU time is
  # shared between sessions first, and a nice value only ranks threads inside their own
  # session: the session's autogroup must be reniced too (restored on exit).
  if [ -w /proc/self/autogroup ]; then
    echo "$NICE" > /proc/self/autogroup
    trap 'echo 0 > /proc/self/autogroup' EXIT
  fi
fi
swift build -c release --package-path "$root/Benchmarks" --product HostScale >&2
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/HostScale
echo "uptime before: $(uptime)${priority:+ (run with: $priority)}"
$priority "$tool" --participants "${PARTICIPANTS:-4,9,16,25}" --content "${CONTENT:-card,noise}" \
  --threads "${THREADS:-1,2}" --seconds "${SECONDS_OF_VIDEO:-10}" --clip-seconds "${CLIP_SECONDS:-10}"
echo "uptime after: $(uptime)"
