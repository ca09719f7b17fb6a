#!/usr/bin/env bash
# STUN Binding requests answered per second, on loopback, by Confer's responder (`confer
# serve`, release, its STUN port) and by coturn (`turnserver --stun-only`, Debian's),
# measured by the same client (the STUNLoad tool: WINDOW requests in flight from one socket
# for DURATION seconds), ROUNDS times each, one server then the other. The servers run on
# core 0 and the client on core 1 (`taskset`, with two cores or more): left to the
# scheduler, the two sharing one core or not made runs differ by a third. Prints STUNLoad's
# JSON for each run, Confer's first in each round, with the server's CPU time per answer
# added ("serverMicrosecondsPerAnswer", from /proc: user and system time over the run),
# which the machine's other load moves less than the rate.
#
#   Benchmarks/peers/stun-binding.sh                      # window 16, 5 s each, 3 rounds
#   WINDOW=1 ROUNDS=5 Benchmarks/peers/stun-binding.sh
#   CONFER=/path/to/confer Benchmarks/peers/stun-binding.sh   # another build of confer
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v turnserver >/dev/null || { echo "stun-binding: needs coturn (apt-get install coturn)" >&2; exit 2; }
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product STUNLoad >&2
confer=${CONFER:-$(swift build -c release --package-path "$root" --show-bin-path)/confer}
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/STUNLoad
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
window=${WINDOW:-16}
seconds=${DURATION:-5}
rounds=${ROUNDS:-3}
server_cpu=() client_cpu=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then server_cpu=(taskset -c 0) client_cpu=(taskset -c 1); fi

"${server_cpu[@]}" "$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db --json > "$work/serve" 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/serve" ] && break; sleep 0.1; done
confer_port=$(sed -n 's/.*"stun": \([0-9]*\).*/\1/p' "$work/serve")

# A free port for coturn: bind one, read it, let it go.
coturn_port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${server_cpu[@]}" turnserver -n --stun-only --no-cli --no-tls --no-dtls --listening-ip 127.0.0.1 --listening-port "$coturn_port" \
  --log-file "$work/coturn.log" --no-stdout-log > /dev/null 2>&1 &
pids+=($!)
# coturn says nothing on stdout once it listens: wait until its port is bound.
for _ in $(seq 50); do ss -Hlun "sport = :$coturn_port" 2>/dev/null | grep -q . && break; sleep 0.1; done
ss -Hlun "sport = :$coturn_port" 2>/dev/null | grep -q . || echo "stun-binding: coturn is not listening on $coturn_port (see $work/coturn.log)" >&2
# load PID PORT: STUNLoad against PORT, its JSON with PID's CPU time per answer added.
load() {
  local before after
  before=$(awk '{print $14 + $15}' "/proc/$1/stat")
  "${client_cpu[@]}" "$tool" --server "127.0.0.1:$2" --window "$window" --seconds "$seconds" > "$work/load"
  after=$(awk '{print $14 + $15}' "/proc/$1/stat")
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); ticks = int(sys.argv[3]) - int(sys.argv[2])
d["serverMicrosecondsPerAnswer"] = round(ticks / int(sys.argv[4]) * 1e6 / max(d["answered"], 1), 2)
print(json.dumps(d))' "$work/load" "$before" "$after" "$(getconf CLK_TCK)"
}
confer_pid=${pids[0]}
coturn_pid=${pids[1]}
for round in $(seq "$rounds"); do
  echo "== round $round: confer serve (STUN on 127.0.0.1:$confer_port)" >&2
  load "$confer_pid" "$confer_port"
  echo "== round $round: coturn $(turnserver --version 2>/dev/null | head -1) (STUN on 127.0.0.1:$coturn_port)" >&2
  load "$coturn_pid" "$coturn_port"
done
