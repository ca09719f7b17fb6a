#!/usr/bin/env bash
# Call set-up on loopback: CALLS video calls between two devices in the CallLatency tool
# (release) through one `confer serve` (release), and as many again, alternating, with the
# callee behind a NAT (announcing an address where nothing answers). Prints dial → ringing and
# accept → first decoded picture at the caller, p50 and p95, in milliseconds, for each kind; and, during
# each call, a third user's dial → calleeBusy refusal.
#
#   Benchmarks/peers/call-latency.sh            # 20 calls of each kind
#   CALLS=50 Benchmarks/peers/call-latency.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product CallLatency >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/CallLatency
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$(mktemp)
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db > "$out" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
"$tool" --server "$(head -1 "$out")" --secret "$secret" --calls "${CALLS:-20}"
