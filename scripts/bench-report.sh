#!/usr/bin/env bash
# Times `spillway report` against ccusage 20.0.24 on the generated Claude Code
# corpus (200 sessions × 1,000 calls, 2 KB tool results, two lines per
# request) and checks both find the same totals for every session.
#
#   [RUNS=5] scripts/bench-report.sh [WORKDIR]   (default: a folder under $TMPDIR)
#
# Needs Go; ccusage is installed from the npm registry when npm is present and CCUSAGE is not set,
# and the comparison of totals uses python3 when present. It ends with the
# table of the three commands, which it writes into docs/speed.md (block
# scripts/bench-report.sh); scripts/speed-table.sh measures the rest.
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
row() { # label, what: the table's row for label's runs
  sort -n "$work/$1.time" | awk -v what="$2" '{w[NR]=$1; if ($2>m) m=$2} END {
    printf "| %s | %.2f s (median of %d runs, %.2f-%.2f s); %d MB peak RSS |\n", what, w[int((NR+1)/2)], NR, w[1], w[NR], m/1024}'
}

native=$(scripts/ccusage.sh "$work")

rm -f "$work"/*.time
rm -rf "$work/cache"
# The table read afresh (--no-cache) is what compares with ccusage; run
# again with the session index, it takes each session's share from there.
SPILLWAY_CACHE_DIR="$work/cache" "$work/spillway" report "$corpus" >/dev/null
load_before=$(scripts/doc-block.sh --load)
for _ in $(seq "$runs"); do
  run spillway-json env SPILLWAY_CACHE_DIR="$work/cache" "$work/spillway" report --format json "$corpus"
  run spillway-text "$work/spillway" report --no-cache "$corpus"
  run spillway-kept env SPILLWAY_CACHE_DIR="$work/cache" "$work/spillway" report "$corpus"
  if [ -n "$native" ]; then
    run ccusage env CLAUDE_CONFIG_DIR="$work/claude" "$native" claude session --json --offline --mode calculate -z UTC
  fi
done
load_after=$(scripts/doc-block.sh --load)
verdict=""
if [ -n "$native" ] && command -v python3 >/dev/null; then
  status=0
  verdict=$(python3 - "$work/spillway-json.out" "$work/ccusage.out" <<'PY'
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
if bad or len(theirs) != len(ours):
    print(f"{bad} of {len(theirs)} sessions differ in tokens or cost from ours ({len(ours)} sessions)")
    sys.exit(1)
print(f"same totals for all {len(theirs)} sessions")
PY
  ) || status=$?
  echo "$verdict" >&2
fi

corpus_mb=$(du -sm "$corpus" | cut -f1)
json_mb=$(( $(wc -c <"$work/spillway-json.out") / 1000000 ))
{
echo "| what | figure |"
echo "|---|---|"
row spillway-text "\`spillway report --no-cache\` (the text table, read afresh) over the generated corpus: 200 Claude Code sessions × 1,000 calls, 2 KB results, two lines per request, $corpus_mb MB (\`RUNS=$runs scripts/bench-report.sh\`: the four commands in turns, $runs runs each)"
row spillway-kept "\`spillway report\` run again: each session's share of the table from the session index"
row spillway-json "\`spillway report --format json\` over the same corpus, $json_mb MB of JSON out, the logs related from the session index as the first \`report\` left it"
if [ -n "$native" ]; then
  row ccusage "ccusage 20.0.24 (native build, \`claude session --json --offline\`) on the same files${verdict:+, $verdict}"
fi
} | tee /dev/stderr | scripts/doc-block.sh scripts/bench-report.sh docs/speed.md "$load_before" "$load_after"
exit "${status:-0}"
