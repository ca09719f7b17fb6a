#!/usr/bin/env bash
# How soon a viewer who starts watching mid-meeting sees the composite through Janus
# (release builds, loopback). A meeting (`confer host` forwarding to a Janus streaming
# mountpoint, and one `confer join` with a camera) runs per setup; once it has run 4 s,
# VIEWERS WebRTC viewers (Scripts/janus-viewer, aiortc: ICE, DTLS-SRTP, as a browser) start
# one after another, each watching WATCH seconds. Three setups, in one run:
#   plain      --forward-video only: a viewer waits for a keyframe some member asks for;
#   buffered   Janus's own remedy, videobufferkf: it keeps the last keyframe and sends it
#              to a new viewer first, then the live frames, which refer to pictures after it;
#   rtcp       --forward-video-rtcp too: Janus's PLI as the viewer starts reaches the host,
#              whose next composite frame is a keyframe.
# Prints one JSON line per viewer, then a line per setup: the first picture's time after the
# viewer's answer and after its first audio frame (the connection up), median and worst, and
# how many viewers saw nothing.
#
#   Benchmarks/peers/janus-viewer.sh
#   VIEWERS=10 WATCH=4 Benchmarks/peers/janus-viewer.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
viewers=${VIEWERS:-5}
watch=${WATCH:-3}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

source "$root/Benchmarks/peers/lib/janus.sh"
janus_start
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db > "$work/url" 2>/dev/null &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")

run() { # $1: plain, buffered or rtcp; $2: the mountpoint's id
  local extra=() room="viewers-$1" buffer=false rtcp=""
  [ "$1" = buffered ] && buffer=true
  [ "$1" = rtcp ] && rtcp=',"rtcpport":0'
  local ports
  ports=$(janus_create "[{\"type\":\"video\",\"mid\":\"v\",\"port\":0,\"pt\":96,\"codec\":\"vp8\",\"videobufferkf\":$buffer$rtcp},{\"type\":\"audio\",\"mid\":\"a\",\"port\":0,\"pt\":111,\"codec\":\"opus\"}]" "$2")
  local video audio video_rtcp
  read -r video audio video_rtcp < <(python3 -c 'import json,sys; p=json.loads(sys.argv[1]); print(p["video"], p["audio"], p.get("video_rtcp", 0))' "$ports")
  extra=(--forward-video "127.0.0.1:$video" --forward-audio "127.0.0.1:$audio")
  [ "$1" = rtcp ] && extra+=(--forward-video-rtcp "127.0.0.1:$video_rtcp")
  "$confer" host --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity host --role host)" \
    --approve all --quiet "${extra[@]}" > /dev/null &
  local host=$!
  sleep 1
  "$confer" join --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity alice)" \
    --duration $((4 + viewers * (watch + 2))) --quiet > /dev/null &
  local member=$!
  sleep 4
  for i in $(seq "$viewers"); do
    "$root/Scripts/janus-viewer" "$api" "$2" "$watch" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["setup"]=sys.argv[1]; print(json.dumps(r))' "$1" \
      | tee -a "$work/viewers.jsonl"
    sleep 1
  done
  kill -INT "$member" "$host" 2>/dev/null; wait "$member" "$host" 2>/dev/null || true
}
run plain 1
run buffered 2
run rtcp 3
python3 - "$work/viewers.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
for setup in ["plain", "buffered", "rtcp"]:
    times = [r["firstFrameSeconds"] for r in rows if r["setup"] == setup and r["firstFrameSeconds"] is not None]
    count = sum(1 for r in rows if r["setup"] == setup)
    frames = [r["frames"] for r in rows if r["setup"] == setup]
    summary = {"setup": setup, "viewers": count, "sawNothing": count - len(times),
               "framesMedian": statistics.median(frames) if frames else 0}
    if times:
        summary["firstPictureMedianSeconds"] = round(statistics.median(times), 3)
        summary["firstPictureWorstSeconds"] = round(max(times), 3)
        # After the first audio frame: the connection is up, what is left is the keyframe.
        lags = [r["firstFrameSeconds"] - r["firstAudioSeconds"] for r in rows
                if r["setup"] == setup and r["firstFrameSeconds"] is not None and r["firstAudioSeconds"] is not None]
        if lags:
            summary["afterAudioMedianSeconds"] = round(statistics.median(lags), 3)
            summary["afterAudioWorstSeconds"] = round(max(lags), 3)
    print(json.dumps(summary))
PY
