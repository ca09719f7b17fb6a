#!/usr/bin/env bash
# One administrator's requests to `confer serve`'s admin API (release, loopback), one after
# another: REQUESTS requests, reading a room and posting a chat line in turn. Over http, first
# through ConferClient's AdminClient (what `confer rooms` runs) and then through Foundation's
# URLSession (what it ran before); then AdminClient over https with a self-signed certificate
# (which URLSession on Linux cannot trust). Prints the AdminRequests tool's JSON for each.
#
#   Benchmarks/peers/admin-requests.sh               # 500 requests
#   REQUESTS=2000 Benchmarks/peers/admin-requests.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
swift build -c release --package-path "$root/Benchmarks" --product AdminRequests >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
tool=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/AdminRequests
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
serve() { # $1: where the URL goes; the rest: more options
  local out=$1; shift
  "$confer" serve --listen 127.0.0.1:0 --secret "$secret" --admin-token "$admin" --memory-db "$@" > "$out" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
}
serve "$work/plain"
serve "$work/tls" --cert "$work/cert.pem" --key "$work/key.pem"
echo "== http" >&2
"$tool" --server "$(head -1 "$work/plain")" --admin-token "$admin" --requests "${REQUESTS:-500}"
echo "== https" >&2
"$tool" --server "$(head -1 "$work/tls")" --admin-token "$admin" --requests "${REQUESTS:-500}" --trust "$work/cert.pem"
