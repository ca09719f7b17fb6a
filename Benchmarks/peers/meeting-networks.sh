#!/usr/bin/env bash
# The composite on real networks (issue 14): `confer meeting` with 9 members in virtual
# time, under 20 and 30 ms of jitter (normal, order kept, every path both ways), with and
# without 3 % loss, one member behind a 300 kbit/s downlink, and a clean control — several
# seeds each. Virtual time: the figures do not depend on the machine's load, and the same
# binary, options and seed give the same meeting.
#
# Prints one markdown row per run: host fps sent, the slowest member's received fps (and
# which member), the composite's mean target bitrate over seconds 2–10 and its last
# encoded size, encoder frame drops, freezes (all members), and size changes.
#
#   Benchmarks/peers/meeting-networks.sh                      # this tree's release build
#   CONFER=/path/to/old/confer Benchmarks/peers/meeting-networks.sh   # another build (a before figure)
#   SEEDS="1 2" PARTICIPANTS=4 Benchmarks/peers/meeting-networks.sh
#   ONLY="loss 3 %" Benchmarks/peers/meeting-networks.sh         # the rows whose network matches exactly
#   EXTRA="--no-pacing" Benchmarks/peers/meeting-networks.sh     # more options for every run
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${CONFER:-}" ]; then
  swift build -c release --package-path "$root" --product confer >&2
  CONFER="$root/.build/release/confer"
fi
seeds=${SEEDS:-1 2 3}
n=${PARTICIPANTS:-9}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| network | seed | host sends | slowest member receives | composite kbit/s (2–10 s) | last size | encoder drops | freezes | size changes | small encode (member: seconds) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
while IFS='|' read -r name args; do
  [ -n "${ONLY:-}" ] && [ "$name" != "$ONLY" ] && continue
  for seed in $seeds; do
    # shellcheck disable=SC2086
    "$CONFER" meeting --participants "$n" --seed "$seed" $args ${EXTRA:-} -q -o "$work/c.ivf" --audio-out "$work/m.wav" \
      --report "$work/r.json" > /dev/null 2>&1 || { echo "| $name | $seed | failed | | | | | | | |"; continue; }
    python3 - "$work/r.json" "$name" "$seed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h = r["host"]
slow = min(r["members"], key=lambda m: m["receiveFrameRate"])
t = [s for s in r["timeline"] if s["time"] > 2]
# Builds before the timeline had the composite's bitrate give only the target at the end (marked *).
if t and "compositeBitrate" in t[0]:
    rate = f'{sum(s["compositeBitrate"] for s in t) / len(t) / 1000:.0f}'
else:
    rate = f'{h["videoTargetBitrate"] / 1000:.0f}*'
size = f'{h["encodedWidth"]}x{h["encodedHeight"]}' if "encodedWidth" in h else r["canvas"]
freezes = sum(m["freezeCount"] for m in r["members"])
seconds = {}
for sample in r["timeline"]:
    for index, member in enumerate(sample["members"]):
        if member.get("smallEncode"):
            seconds[index + 1] = seconds.get(index + 1, 0) + 1
small = ", ".join(f"{k}: {v}" for k, v in sorted(seconds.items())) or "–"
print(f'| {sys.argv[2]} | {sys.argv[3]} | {r["hostSendFrameRate"]:.1f} fps | {slow["receiveFrameRate"]:.1f} fps (member {slow["id"]}) '
      f'| {rate} | {size} | {h["videoFramesDroppedByEncoder"]} | {freezes} | {h.get("resolutionChanges", "–")} | {small} |')
PY
  done
done <<EOF2
clean|
loss 3 %|--loss 3
jitter 20 ms|--jitter 20
jitter 30 ms|--jitter 30
jitter 20 ms, loss 3 %|--jitter 20 --loss 3
jitter 30 ms, loss 3 %|--jitter 30 --loss 3
member 9 down 300 kbit/s|--member 9:down-bandwidth=300
EOF2
