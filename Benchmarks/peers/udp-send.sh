#!/usr/bin/env bash
# Bursts of datagrams through ConferNet's UDPSocket on loopback, one `send` each against one
# write for the burst (release build): CPU microseconds per datagram, sender and receiver
# together in one process, for bursts of 1, 4, 8 and 16 datagrams of SIZE bytes.
#
#   Benchmarks/peers/udp-send.sh
#   BURSTS=100000 SIZE=1200 Benchmarks/peers/udp-send.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root/Benchmarks" --product UDPSend >&2
"$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/UDPSend" --bursts "${BURSTS:-100000}" --size "${SIZE:-1200}"
