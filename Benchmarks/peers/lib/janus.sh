# Janus for the benchmarks (sourced): its streaming plugin and HTTP API only, in folder
# $work on a free port. Sets $janus (its pid) and $api (its HTTP API), and adds the pid to
# $pids for the caller's trap.
#
#   janus_start
#   janus_create '[{"type":"video","mid":"v","port":0,"pt":96,"codec":"vp8"}]' ID   # prints the ports JSON
janus_start() {
  local lib port disabled
  lib=$(dirname "$(dirname "$(ls /usr/lib/*/janus/plugins/libjanus_streaming.so | head -1)")")
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  disabled=$(printf 'libjanus_%s.so,' audiobridge duktape echotest lua nosip recordplay sip textroom videocall videoroom voicemail)
  cat > "$work/janus.jcfg" <<JCFG
general: { configs_folder = "$work", plugins_folder = "$lib/plugins", transports_folder = "$lib/transports", events_folder = "$lib/events", loggers_folder = "$lib/loggers", debug_level = 3 }
plugins: { disable = "${disabled%,}" }
transports: { disable = "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so,libjanus_websockets.so" }
JCFG
  echo "general: { json = \"compact\", base_path = \"/janus\", http = true, port = $port, ip = \"127.0.0.1\" }" > "$work/janus.transport.http.jcfg"
  echo "general: { }" > "$work/janus.plugin.streaming.jcfg"
  janus -F "$work" -C "$work/janus.jcfg" -o > "$work/janus.log" 2>&1 &
  janus=$!
  pids+=("$janus")
  api=http://127.0.0.1:$port/janus
  for _ in $(seq 50); do curl -sf "$api/info" > /dev/null && break; sleep 0.1; done
  janus_session=$(curl -s -d '{"janus":"create","transaction":"1"}' "$api" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
  janus_handle=$(curl -s -d '{"janus":"attach","plugin":"janus.plugin.streaming","transaction":"2"}' "$api/$janus_session" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
}

# Creates mountpoint $2 (type rtp) with media $1; prints its ports as JSON: {"video": …,
# "video_rtcp": …, "audio": …}.
janus_create() {
  curl -s -d "{\"janus\":\"message\",\"transaction\":\"3\",\"body\":{\"request\":\"create\",\"type\":\"rtp\",\"id\":$2,\"media\":$1}}" \
    "$api/$janus_session/$janus_handle" | python3 -c '
import json, sys
ports = {}
for p in json.load(sys.stdin)["plugindata"]["data"]["stream"]["ports"]:
    ports[p["type"]] = p["port"]
    if "rtcp_port" in p: ports[p["type"] + "_rtcp"] = p["rtcp_port"]
print(json.dumps(ports))'
}
