#!/usr/bin/env bash
# What the host's plain-RTP copy for an SFU costs (release builds, loopback): `confer serve`,
# `confer host --approve all` and MEMBERS `confer join` processes with cameras run for SECONDS;
# the host's CPU time (user + system, /proc) is read over the same window with and without
# `--forward-video/--forward-audio` to a Janus streaming mountpoint, runs alternating, RUNS of
# each. Janus's own CPU over the forwarded runs is read too: the SFU's cost of taking the copy.
#
#   Benchmarks/peers/forward-cost.sh
#   MEMBERS=4 SECONDS_OF_MEETING=20 RUNS=3 Benchmarks/peers/forward-cost.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
members=${MEMBERS:-3}
seconds=${SECONDS_OF_MEETING:-10}
runs=${RUNS:-2}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Janus with its streaming plugin and HTTP API only, on a free port.
lib=$(dirname "$(dirname "$(ls /usr/lib/*/janus/plugins/libjanus_streaming.so | head -1)")")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
disabled=$(printf 'libjanus_%s.so,' audiobridge duktape echotest lua nosip recordplay sip textroom videocall videoroom voicemail)
cat > "$work/janus.jcfg" <<EOF
general: { configs_folder = "$work", plugins_folder = "$lib/plugins", transports_folder = "$lib/transports", events_folder = "$lib/events", loggers_folder = "$lib/loggers", debug_level = 3 }
plugins: { disable = "${disabled%,}" }
transports: { disable = "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so,libjanus_websockets.so" }
EOF
echo "general: { json = \"compact\", base_path = \"/janus\", http = true, port = $port, ip = \"127.0.0.1\" }" > "$work/janus.transport.http.jcfg"
echo "general: { }" > "$work/janus.plugin.streaming.jcfg"
janus -F "$work" -C "$work/janus.jcfg" -o > "$work/janus.log" 2>&1 &
janus=$!
pids+=("$janus")
api=http://127.0.0.1:$port/janus
for _ in $(seq 50); do curl -sf "$api/info" > /dev/null && break; sleep 0.1; done
post() { curl -s -d "$2" "$1"; }
session=$(post "$api" '{"janus":"create","transaction":"1"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
handle=$(post "$api/$session" '{"janus":"attach","plugin":"janus.plugin.streaming","transaction":"2"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
read -r video audio < <(post "$api/$session/$handle" '{"janus":"message","transaction":"3","body":{"request":"create","type":"rtp","id":1,"media":[{"type":"video","mid":"v","port":0,"pt":96,"codec":"vp8","videobufferkf":true},{"type":"audio","mid":"a","port":0,"pt":111,"codec":"opus"}]}}' \
  | python3 -c 'import json,sys; p={x["type"]:x["port"] for x in json.load(sys.stdin)["plugindata"]["data"]["stream"]["ports"]}; print(p["video"], p["audio"])')

secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db > "$work/url" 2>/dev/null &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")

run() { # $1: forward or plain; prints host CPU %, Janus CPU %, packets and bytes forwarded
  local extra=() room="bench-$1-$RANDOM"
  [ "$1" = forward ] && extra=(--forward-video "127.0.0.1:$video" --forward-audio "127.0.0.1:$audio")
  "$confer" host --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity host --role host)" \
    --approve all --json --quiet "${extra[@]}" > "$work/host.json" &
  local host=$!
  sleep 1
  local joins=()
  for i in $(seq "$members"); do
    "$confer" join --server "$url" --token "$("$confer" token --secret "$secret" --room "$room" --identity "m$i")" \
      --duration $((seconds + 4)) --quiet > /dev/null &
    joins+=("$!")
  done
  sleep 2
  local h0 j0 h1 j1
  h0=$(cpu "$host"); j0=$(cpu "$janus")
  sleep "$seconds"
  h1=$(cpu "$host"); j1=$(cpu "$janus")
  wait "${joins[@]}"
  kill -INT "$host"; wait "$host" || true
  python3 - "$work/host.json" "$1" "$(( h1 - h0 ))" "$(( j1 - j0 ))" "$ticks" "$seconds" <<'PY'
import json, sys
path, mode, host, janus, ticks, seconds = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
figures = json.load(open(path))["media"]["figures"]
print(json.dumps({"mode": mode, "hostCPUPercent": round(100 * host / ticks / seconds, 1),
                  "janusCPUPercent": round(100 * janus / ticks / seconds, 1),
                  "packetsForwarded": figures["packetsForwarded"], "bytesForwarded": figures["bytesForwarded"],
                  "hostFramesSent": figures["framesSent"]}))
PY
}
for _ in $(seq "$runs"); do run plain; run forward; done
