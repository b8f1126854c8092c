#!/usr/bin/env bash
# Times `spillway report` against ccusage 20.0.24 on the generated Claude Code
# corpus (200 sessions × 1,000 calls, 2 KB tool results, two lines per
# request) and checks both find the same totals for every session.
#
#   [RUNS=5] scripts/bench-report.sh [WORKDIR]   (default: a folder under $TMPDIR)
#
# Needs Go; ccusage is installed from the npm registry when npm is present,
# and the comparison of totals uses python3 when present.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-"${TMPDIR:-/tmp}/spillway-bench-report"}
corpus="$work/claude/projects/bench"
mkdir -p "$work"

if [ ! -f "$corpus/session-0199.jsonl" ]; then
  echo "writing the corpus to $corpus"
  go run ./internal/corpus/gencorpus -dir "$corpus"
fi
du -sh "$corpus"
go build -o "$work/spillway" .
cat "$corpus"/*.jsonl > /dev/null # warm the page cache for both tools

# The machine may be shared and noisy: the tools run in turns, RUNS times
# each, and the median, fastest and slowest wall times are printed.
runs=${RUNS:-5}
run() { # label, command...: one timed run appended to $work/label.time
  local label=$1; shift
  if ! /usr/bin/time -o "$work/$label.time" -a -f "%e %M" "$@" >"$work/$label.out"; then
    echo "$label failed" >&2
    return 1
  fi
}
summary() { # label
  sort -n "$work/$1.time" | awk -v l="$1" '{w[NR]=$1; if ($2>m) m=$2} END {
    printf "%-14s wall median %5.2f s (%.2f-%.2f over %d runs)   peak RSS %4d MB\n", l, w[int((NR+1)/2)], w[1], w[NR], NR, m/1024}'
}

native=""
if command -v npm >/dev/null; then
  if [ ! -x "$work/ccusage/node_modules/.bin/ccusage" ]; then
    (mkdir -p "$work/ccusage" && cd "$work/ccusage" && npm install --silent ccusage@20.0.24 >/dev/null)
  fi
  native=$(ls "$work"/ccusage/node_modules/@ccusage/ccusage-*/bin/ccusage 2>/dev/null | head -1)
  [ -n "$native" ] && chmod +x "$native" # the package ships it without the execute bit
  native=${native:-$work/ccusage/node_modules/.bin/ccusage}
else
  echo "npm not found: ccusage not timed"
fi

rm -f "$work"/*.time
for _ in $(seq "$runs"); do
  run spillway-json "$work/spillway" report --format json "$corpus"
  run spillway-text "$work/spillway" report "$corpus"
  if [ -n "$native" ]; then
    run ccusage env CLAUDE_CONFIG_DIR="$work/claude" "$native" claude session --json --offline --mode calculate -z UTC
  fi
done
summary spillway-json
summary spillway-text
if [ -n "$native" ]; then
  summary ccusage
  if command -v python3 >/dev/null; then
    python3 - "$work/spillway-json.out" "$work/ccusage.out" <<'PY'
import json, os, sys
ours = {os.path.basename(s["path"])[:-len(".jsonl")]: s["totals"] for s in json.load(open(sys.argv[1]))["sessions"]}
theirs = json.load(open(sys.argv[2]))["sessions"]
bad = 0
for s in theirs:
    o = ours.get(s["sessionId"])
    r = o["recorded"] if o else None
    same = r is not None and (r["input"], r["output"], r["cache_creation"], r["cache_read"]) == (
        s["inputTokens"], s["outputTokens"], s["cacheCreationTokens"], s["cacheReadTokens"]) \
        and abs(o["cost_usd"] - s["totalCost"]) <= 1e-6
    bad += not same
print(f"{len(theirs)} sessions compared with ccusage: {bad} differ in tokens or cost")
sys.exit(1 if bad or len(theirs) != len(ours) else 0)
PY
  fi
fi
