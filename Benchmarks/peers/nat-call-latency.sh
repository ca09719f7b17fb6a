#!/usr/bin/env bash
# How long a call takes to connect (answered → the first picture decoded, as the server's call
# log records it) when both sides are behind their own NAT, beside the same calls with no NAT.
# Scripts/nat-lab's namespaces (needs root, iproute2, nftables): `confer serve` (release) in
# the server's, then CALLS calls from alice to bob, each a `confer call` process on each side,
# first with both inside the server's namespace (no NAT), then from behind natA and natB,
# where each announces the address the server's STUN responder saw, then between alice and
# carol, both behind natA (which does not hairpin): each announces its LAN address beside the
# mapping, and media goes to whichever answers first; last the same pair with --no-stun, which
# announces only the LAN addresses. Prints p50 and p95 of each, in milliseconds, as JSON.
#
#   Benchmarks/peers/nat-call-latency.sh            # 20 calls each way
#   CALLS=50 Benchmarks/peers/nat-call-latency.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/Scripts/nat-lab" check
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
lab="natbench$$"
work=$(mktemp -d)
trap '"$root/Scripts/nat-lab" down "$lab"; rm -rf "$work"' EXIT
"$root/Scripts/nat-lab" up "$lab"
calls=${CALLS:-20}
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
ip netns exec "$lab-server" "$confer" serve --listen 198.51.100.10:0 --secret "$secret" --memory-db --json > "$work/serve" 2>/dev/null &
for _ in $(seq 100); do [ -s "$work/serve" ] && break; sleep 0.1; done
url=$(sed -n 's/.*"url": "\([^"]*\)".*/\1/p' "$work/serve")
alice=$("$confer" token --secret "$secret" --calls --identity alice)
bob=$("$confer" token --secret "$secret" --calls --identity bob)

# run MODE CALLER_NS CALLEE_NS [FLAG]: CALLS calls, FLAG on both sides; one "accepted→connected ms"
# per line in $work/MODE.
run() {
  : > "$work/$1"
  local extra=(${4:-})
  for i in $(seq "$calls"); do
    ip netns exec "$lab-$3" "$confer" call --server "$url" --token "$bob" --device phone --json "${extra[@]}" > "$work/callee" 2>/dev/null &
    local callee=$!
    sleep 0.3
    ip netns exec "$lab-$2" "$confer" call --server "$url" --token "$alice" --to bob --video --duration 0.5 --json "${extra[@]}" > "$work/caller" 2>/dev/null || true
    wait "$callee" || true
    python3 - "$work/caller" >> "$work/$1" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))["record"]
if "connected" in record: print(record["connected"] - record["accepted"])
EOF
    echo "$1: call $i of $calls" >&2
  done
}
run direct server server
run nat alice bob
run sameNAT alice carol
run sameNATWithoutSTUN alice carol --no-stun
python3 - "$work" "$calls" <<'EOF'
import json, sys
def summary(path, calls):
    values = sorted(int(line) for line in open(path) if line.strip())
    pick = lambda p: values[min(len(values) - 1, int(len(values) * p))] if values else None
    return {"calls": calls, "connected": len(values), "p50": pick(0.5), "p95": pick(0.95)}
print(json.dumps({"acceptedToConnectedMilliseconds": {m: summary(f"{sys.argv[1]}/{m}", int(sys.argv[2])) for m in ["direct", "nat", "sameNAT", "sameNATWithoutSTUN"]}}))
EOF
