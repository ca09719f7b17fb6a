#!/usr/bin/env bash
# One weak member in a composite meeting (issue 14, item 2): `confer meeting` with 9
# members in virtual time, member 9 behind a capped downlink (300, 600, 900 kbit/s), with
# the composite encoded once in one temporal layer ("one": it follows the weakest link),
# encoded a second time smaller for the weak ("simulcast", the default), in three
# temporal layers alone ("layers": the weak member gets the layers its link carries; with
# VP9, "layers-as-one" describes them as one stream, as FFmpeg reads VP9), and in three
# layers with the smaller encode for links too weak for the base layer ("layers+small",
# what --temporal-layers 3 does by default), several seeds. Virtual time: the figures do
# not depend on the machine's load.
#
# Prints one markdown row per run: the host's frame rate, the slowest of the other eight,
# the weak member's, freezes (all members), the composite's mean target bitrate over
# seconds 2–10, what the host sent the weak member (kbit/s, seconds 2–10, everything:
# video, retransmissions, probes, audio) and what it got each second: temporal layers
# (got/encoded), or "s" for the small encode.
#
#   Benchmarks/peers/meeting-weak-member.sh                        # this tree's release build
#   CAPS="600" SEEDS="1" MODES="simulcast" Benchmarks/peers/meeting-weak-member.sh
#   MODES="simulcast layers layers+small" Benchmarks/peers/meeting-weak-member.sh
#   CODEC=vp9 MODES="layers" Benchmarks/peers/meeting-weak-member.sh   # every stream VP9 (default vp8)
#   CODEC=vp9 MODES="layers layers-as-one" CAPS="600 900" Benchmarks/peers/meeting-weak-member.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${CONFER:-}" ]; then
  swift build -c release --package-path "$root" --product confer >&2
  CONFER="$root/.build/release/confer"
fi
seeds=${SEEDS:-1 2 3}
caps=${CAPS:-300 600 900}
modes=${MODES:-one simulcast layers}
codec=${CODEC:-vp8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| weak downlink | mode | seed | host sends | other 8 receive (slowest) | weak member receives | freezes | composite kbit/s (2–10 s) | sent to the weak member kbit/s | what it got each second |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
for cap in $caps; do
  for mode in $modes; do
    case $mode in
      one) flags="--no-simulcast" ;;
      simulcast) flags="" ;;
      layers) flags="--temporal-layers 3 --no-simulcast" ;;
      layers-as-one) flags="--temporal-layers 3 --no-simulcast --vp9-layers-as-one" ;;
      layers+small) flags="--temporal-layers 3" ;;
      *) echo "unknown mode $mode (one, simulcast, layers, layers-as-one, layers+small)" >&2; exit 2 ;;
    esac
    for seed in $seeds; do
      # shellcheck disable=SC2086
      "$CONFER" meeting --participants 9 --codec "$codec" --seed "$seed" --member "9:down-bandwidth=$cap" $flags -q \
        -o "$work/c.ivf" --audio-out "$work/m.wav" --report "$work/r.json" > /dev/null 2>&1 \
        || { echo "| $cap | $mode | $seed | failed | | | | | | |"; continue; }
      python3 - "$work/r.json" "$cap" "$mode" "$seed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["members"]
t = [s for s in r["timeline"] if s["time"] > 2]
composite = sum(s["compositeBitrate"] for s in t) / len(t) / 1000
sent = sum(s["members"][-1]["sentBitrate"] for s in t) / len(t) / 1000
layers = " ".join("s" if s["members"][-1]["smallEncode"] else f'{s["members"][-1]["layers"]}/{s["compositeLayers"]}'
                  for s in r["timeline"])
print(f'| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {r["hostSendFrameRate"]:.1f} fps '
      f'| {min(x["receiveFrameRate"] for x in m[:-1]):.1f} fps | {m[-1]["receiveFrameRate"]:.1f} fps, last {r["timeline"][-1]["members"][-1]["resolution"]} '
      f'| {sum(x["freezeCount"] for x in m)} | {composite:.0f} | {sent:.0f} | {layers} |')
PY
    done
  done
done
