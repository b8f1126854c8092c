#!/usr/bin/env bash
# Times `spillway report` against ccusage 20.0.24 on the generated Claude Code
# corpus (200 sessions × 1,000 calls, 2 KB tool results, two lines per
# request) and checks both find the same totals for every session.
#
#   scripts/bench-report.sh [WORKDIR]     (default: a folder under $TMPDIR)
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

timed() { # label, command...: best wall time and peak RSS of 3 runs
  local label=$1; shift
  rm -f "$work/$label.time"
  for _ in 1 2 3; do
    if ! /usr/bin/time -o "$work/$label.time" -a -f "%e %M" "$@" >"$work/$label.out"; then
      echo "$label failed" >&2
      return 1
    fi
  done
  sort -n "$work/$label.time" | head -1 | awk -v l="$label" '{printf "%-10s wall %5.2f s   peak RSS %4d MB\n", l, $1, $2/1024}'
  rm -f "$work/$label.time"
}

timed spillway "$work/spillway" report --format json "$corpus"

if command -v npm >/dev/null; then
  if [ ! -x "$work/ccusage/node_modules/.bin/ccusage" ]; then
    (mkdir -p "$work/ccusage" && cd "$work/ccusage" && npm install --silent ccusage@20.0.24 >/dev/null)
  fi
  native=$(ls "$work"/ccusage/node_modules/@ccusage/ccusage-*/bin/ccusage 2>/dev/null | head -1)
  [ -n "$native" ] && chmod +x "$native" # the package ships it without the execute bit
  timed ccusage env CLAUDE_CONFIG_DIR="$work/claude" "${native:-$work/ccusage/node_modules/.bin/ccusage}" \
    claude session --json --offline --mode calculate -z UTC
  if command -v python3 >/dev/null; then
    python3 - "$work/spillway.out" "$work/ccusage.out" <<'PY'
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
else
  echo "npm not found: ccusage not timed"
fi
