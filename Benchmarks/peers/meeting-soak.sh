#!/usr/bin/env bash
# A long meeting: does anything grow? Release builds on loopback: `confer serve`, `confer host
# --approve all` and MEMBERS `confer join` processes with cameras (320x180 each, a 640x360
# composite at 24 fps) run for MINUTES. Every SAMPLE seconds the resident memory (VmRSS) and
# CPU time of each process are read from /proc. Tokens live TTL seconds, so the server renews
# each member's token every TTL/2 seconds through the run; the last member's signaling is cut
# once, halfway, and resumes.
#
# Prints a markdown row a process: its memory after the warm-up (the first WARMUP seconds),
# at the end, the growth per minute fitted over the samples after the warm-up (least squares),
# and its average CPU; then each member's frames received per second over the whole meeting,
# from its own report.
#
# HEAP=1 runs the host and the first member under heaptrack (Debian's heaptrack package) and
# prints their heap, what malloc holds for the program, at each minute: resident memory can grow
# while the heap does not (pages the allocator touches for the first time).
#
#   Benchmarks/peers/meeting-soak.sh
#   MINUTES=30 MEMBERS=3 Benchmarks/peers/meeting-soak.sh
#   HEAP=1 MINUTES=4 Benchmarks/peers/meeting-soak.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
swift build -c release --package-path "$root" --product confer >&2
confer=$(swift build -c release --package-path "$root" --show-bin-path)/confer
members=${MEMBERS:-2}
minutes=${MINUTES:-10}
sample=${SAMPLE:-10}
warmup=${WARMUP:-60}
ttl=${TTL:-120}
seconds=$((minutes * 60))
work=$(mktemp -d)
pids=()
# heaptrack runs its program as a child: stop the children too.
# A trap runs under set -e too: a process already gone must not stop the clean-up.
trap 'for pid in "${pids[@]}"; do pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT
heap=${HEAP:-0}
if [ "$heap" = 1 ] && ! command -v heaptrack > /dev/null; then
  echo "HEAP=1 needs heaptrack: apt-get install heaptrack" >&2
  exit 2
fi
# Runs "$@" in place of the background shell it is called in (`traced NAME … &`), under
# heaptrack (writing $work/heap-NAME.zst) when HEAP=1 and NAME is host or m1.
traced() {
  local name=$1
  shift
  if [ "$heap" = 1 ] && { [ "$name" = host ] || [ "$name" = m1 ]; }; then
    exec heaptrack -o "$work/heap-$name" "$@"
  fi
  exec "$@"
}
# The confer process behind $1: itself, or heaptrack's child.
process() {
  local child
  for _ in $(seq 50); do
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = confer ] && { echo "$1"; return; }
    child=$(pgrep -P "$1" -x confer || true)
    [ -n "$child" ] && { echo "$child"; return; }
    sleep 0.1
  done
  echo "$1"
}

secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
token() { "$confer" token --secret "$secret" --room soak --ttl "$ttl" "$@"; }
"$confer" serve --listen 127.0.0.1:0 --secret "$secret" --memory-db > "$work/url" 2>/dev/null &
serve=$!
pids+=("$serve")
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")

# Tokens first: a `confer token` still running in a launched process's shell would be taken for it.
host_token=$(token --identity host --role host)
member_tokens=()
for i in $(seq "$members"); do member_tokens+=("$(token --identity "m$i")"); done
traced host "$confer" host --server "$url" --token "$host_token" --approve all --quiet \
  --report "$work/host.json" > /dev/null &
host=$!
pids+=("$host")
sleep 1
joins=()
for i in $(seq "$members"); do
  cut=()
  [ "$i" = "$members" ] && cut=(--cut-signaling-after $((seconds / 2)))
  traced "m$i" "$confer" join --server "$url" --token "${member_tokens[$((i - 1))]}" --duration "$seconds" --quiet \
    --report "$work/m$i.json" "${cut[@]}" > /dev/null &
  joins+=("$!")
  pids+=("$!")
done

# One line a sample: seconds since the start, then RSS (kB) and CPU ticks of each process.
names=(serve host)
watched=("$serve" "$(process "$host")")
for i in $(seq "$members"); do names+=("m$i"); watched+=("$(process "${joins[$((i - 1))]}")"); done
start=$(date +%s)
echo "progress: sampling ${#watched[@]} processes every ${sample}s for ${minutes} min" >&2
while :; do
  now=$(( $(date +%s) - start ))
  [ "$now" -ge "$seconds" ] && break
  line="$now"
  for pid in "${watched[@]}"; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    line="$line ${rss:-0} ${ticks:-0}"
  done
  echo "$line" >> "$work/samples"
  [ $((now % 60)) -lt "$sample" ] && echo "progress: ${now}s" >&2
  sleep "$sample"
done
wait "${joins[@]}" || true
kill -INT "${watched[1]}"; wait "$host" || true

python3 - "$work" "$warmup" "$(getconf CLK_TCK)" "$members" "${names[@]}" <<'PY'
import json, sys
work, warmup, hz, members = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
names = sys.argv[5:]
rows = [list(map(int, line.split())) for line in open(f"{work}/samples")]
print("| process | RSS after warm-up | RSS at the end | growth (least squares) | CPU, % of a core |")
print("|---|---|---|---|---|")
for k, name in enumerate(names):
    points = [(r[0], r[1 + 2 * k]) for r in rows if r[0] >= warmup and r[1 + 2 * k] > 0]
    ticks = [(r[0], r[2 + 2 * k]) for r in rows if r[2 + 2 * k] > 0]
    if len(points) < 2:
        print(f"| {name} | – | – | – | – |"); continue
    n = len(points); mx = sum(t for t, _ in points) / n; my = sum(v for _, v in points) / n
    slope = sum((t - mx) * (v - my) for t, v in points) / max(1e-9, sum((t - mx) ** 2 for t, _ in points))
    cpu = 100 * (ticks[-1][1] - ticks[0][1]) / hz / max(1, ticks[-1][0] - ticks[0][0])
    print(f"| {name} | {points[0][1] / 1024:.1f} MB | {points[-1][1] / 1024:.1f} MB | "
          f"{slope * 60:+.1f} kB/min | {cpu:.1f} |")
print()
for i in range(1, members + 1):
    report = json.load(open(f"{work}/m{i}.json"))
    figures = report.get("media", {}).get("figures", {})
    seconds = figures.get("seconds") or 0
    fps = figures.get("framesReceived", 0) / seconds if seconds else 0
    events = report.get("eventCounts", {})
    print(f"m{i}: {fps:.1f} composite frames/s over {seconds:.0f} s, {figures.get('packetsLost', 0)} packets lost, "
          f"events {json.dumps(events, sort_keys=True)}, ended: {report.get('endReason') or 'left'}")
PY

if [ "$heap" = 1 ]; then
  echo
  echo "heap (MB) at each minute, from heaptrack (the RSS above of host and m1 includes heaptrack's own):"
  for name in host m1; do
    heaptrack_print -f "$work/heap-$name.zst" --print-massif "$work/$name.massif" --print-peaks 0 --print-leaks 0 \
      --print-allocators 0 --print-temporary 0 > /dev/null 2>&1
    # The last snapshot of each minute before the end (the last is taken as the process exits).
    grep -E "^(time|mem_heap_B)=" "$work/$name.massif" | paste - - | tr '=\t' '  ' \
      | awk -v name="$name" -v end="$seconds" '$2 < end { m = int($2 / 60); heap[m] = $4 } END {
          printf "%s:", name; for (k = 0; k in heap; k++) printf " %.2f", heap[k] / 1048576; print "" }'
  done
fi
