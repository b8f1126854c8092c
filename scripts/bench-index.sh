#!/usr/bin/env bash
# Times the session index against ccusage 20.0.24 on the generated fleet
# (2,000 Claude Code and Codex sessions, about 2 GB, with sub-agents,
# resumed sessions and compactions) and checks that both find the same
# totals for every Claude Code session, and the index the generator's for
# every session.
#
#   [RUNS=5] [CCUSAGE=path/to/ccusage] scripts/bench-index.sh [WORKDIR]
#
# Needs Go; ccusage is installed from the npm registry when npm is present
# and CCUSAGE is not set; the comparisons use python3. The figures are
# wall time (median of RUNS, fastest-slowest), CPU time and peak RSS from
# /usr/bin/time, with the load average before and after: on a shared
# machine, compare the ratios of tools run in turns, not the seconds. The
# table is written into docs/speed.md (block scripts/bench-index.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-"${TMPDIR:-/tmp}/spillway-bench-index"}
corpus="$work/fleet"
mkdir -p "$work"

if [ ! -f "$work/totals.json" ]; then
  echo "writing the corpus to $corpus"
  rm -rf "$corpus"
  go run ./internal/corpus/gencorpus -fleet -dir "$corpus" -totals "$work/totals.json.tmp"
  mv "$work/totals.json.tmp" "$work/totals.json"
fi
# A log written in the last 15 minutes may still be growing, and the index
# keeps its reader to go on from where it stopped (internal/index/live.go):
# files just generated would all take that path, which a user's older
# sessions do not. They are dated an hour back.
find "$corpus" -name '*.jsonl' -newermt '-16 minutes' -exec touch -d '-1 hour' {} +
go build -o "$work/scanindex" ./internal/index/scanindex
files=$(find "$corpus" -name '*.jsonl' | wc -l)
corpus_mb=$(du -sm "$corpus" | cut -f1)
find "$corpus" -name '*.jsonl' -exec cat {} + >/dev/null # warm the page cache for every tool

native=$(scripts/ccusage.sh "$work")

runs=${RUNS:-5}
run() { # label, command...: one timed run appended to $work/label.time
  local label=$1; shift
  if ! /usr/bin/time -o "$work/$label.time" -a -f "%e %M %U %S" "$@" >"$work/$label.out" 2>"$work/$label.err"; then
    echo "$label failed:" >&2; cat "$work/$label.err" >&2
    return 1
  fi
}
median() { sort -n "$work/$1.time" | awk '{w[NR]=$1} END {print w[int((NR+1)/2)]}'; }
row() { # label, what: one line of figures for label's runs
  sort -n "$work/$1.time" | awk -v what="$2" '{w[NR]=$1; c[NR]=$3+$4; if ($2>m) m=$2} END {
    printf "| %s | %.2f s (median of %d, %.2f-%.2f s) | %.2f s | %d MB |\n", what, w[int((NR+1)/2)], NR, w[1], w[NR], c[int((NR+1)/2)], m/1024}'
}

load_before=$(scripts/doc-block.sh --load)
mapfile -t claude_paths < <(find "$corpus/claude/projects" -name '*.jsonl' -not -path '*/subagents/*' | sort)
rm -f "$work"/*.time
for _ in $(seq "$runs"); do
  if [ -n "$native" ]; then
    run ccusage env CLAUDE_CONFIG_DIR="$corpus/claude" "$native" claude session --json --offline
  fi
  run index-claude "$work/scanindex" -no-cache "$corpus/claude/projects"
  run index-paths "$work/scanindex" -no-cache "${claude_paths[@]}"
  run index-all "$work/scanindex" -no-cache "$corpus"
  rm -rf "$work/cache"
  run index-write "$work/scanindex" -cache-dir "$work/cache" "$corpus"
  run index-reopen "$work/scanindex" -cache-dir "$work/cache" "$corpus"
done
load_after=$(scripts/doc-block.sh --load)

status=0
python3 - "$work" "${native:+yes}" <<'PY' || status=$?
import json, os, sys
work, have_cc = sys.argv[1], sys.argv[2] == "yes"
bad = 0
gen = json.load(open(os.path.join(work, "totals.json")))
for label in ("index-all", "index-reopen"):
    ours = {s["path"]: s for s in json.load(open(os.path.join(work, label + ".out")))["sessions"]}
    diff = [p for p, t in gen.items() if p not in ours or (ours[p]["api_calls"], ours[p]["recorded"]["Input"], ours[p]["recorded"]["CacheCreation"],
            ours[p]["recorded"]["CacheRead"], ours[p]["recorded"]["Output"]) != (t["Calls"], t["Input"], t["CacheCreation"], t["CacheRead"], t["Output"])]
    print(f"{label}: {len(ours)} sessions, {len(diff)} differ from the generator's totals")
    bad += len(diff) + abs(len(ours) - len(gen))
if have_cc:
    ours = {os.path.basename(s["path"])[:-len(".jsonl")]: s for s in json.load(open(os.path.join(work, "index-claude.out")))["sessions"]}
    theirs = json.load(open(os.path.join(work, "ccusage.out")))["sessions"]
    key = lambda r: (r["Input"], r["CacheCreation"], r["CacheRead"], r["Output"])
    diff = []
    for s in theirs:
        o = ours.get(s["sessionId"])
        same = o is not None and key(o["recorded"]) == (s["inputTokens"], s["cacheCreationTokens"], s["cacheReadTokens"], s["outputTokens"]) \
            and abs(o["cost_usd"] - s["totalCost"]) <= 1e-6
        if not same:
            diff.append(s["sessionId"])
    total_ours = [sum(key(o["recorded"])[i] for o in ours.values()) for i in range(4)] + [sum(o["cost_usd"] for o in ours.values())]
    total_theirs = [sum(s[k] for s in theirs) for k in ("inputTokens", "cacheCreationTokens", "cacheReadTokens", "outputTokens", "totalCost")]
    same_total = total_ours[:4] == total_theirs[:4] and abs(total_ours[4] - total_theirs[4]) <= 1e-6 * len(theirs)
    print(f"ccusage: {len(theirs)} Claude Code sessions ({len(ours)} indexed); totals {'equal' if same_total else 'DIFFER'}: "
          f"{total_theirs[:4]} tokens, ${total_theirs[4]:.6f} against ${total_ours[4]:.6f}; {len(diff)} sessions differ")
    # A resumed session's copies of the session it resumes are counted once
    # by both; ccusage counts them in whichever file it reads first, spillway
    # in the file named after the session they belong to. Sessions differing
    # otherwise are errors.
    resumed = {f"c0ffee00-0000-4000-8000-{i:012d}" for i in range(0, 100000, 40)} | {f"c0ffee00-0000-4000-8000-{i - 1:012d}" for i in range(40, 100000, 40)}
    other = [d for d in diff if d not in resumed]
    if diff:
        print(f"ccusage: the {len(diff) - len(other)} resumed sessions (or sessions resumed) among them give a resumed copy to the file read first; {len(other)} others")
    bad += len(other) + (not same_total) + abs(len(theirs) - len(ours))
sys.exit(1 if bad else 0)
PY

echo
{
echo "The generated fleet: $files files, $corpus_mb MB; $runs runs of each, in turns."
echo
echo "| run | wall | CPU (user+sys) | peak RSS |"
echo "|---|---|---|---|"
[ -n "$native" ] && row ccusage "ccusage 20.0.24 \`claude session --json --offline\` (the Claude Code sessions)"
row index-claude "index, no cache, the same Claude Code folder"
row index-paths "index, no cache, the same sessions named as ${#claude_paths[@]} paths"
row index-all "index, no cache, all $files files"
row index-write "index, writing the cache, all files"
row index-reopen "index, reopened with the cache, all files"
if [ -n "$native" ]; then
  echo
  awk -v a="$(median index-claude)" -v b="$(median ccusage)" 'BEGIN {printf "The index, no cache, on the Claude Code folder takes %.2fx the wall time of ccusage.\n", a/b}'
fi
} | tee /dev/stderr | scripts/doc-block.sh scripts/bench-index.sh docs/speed.md "$load_before" "$load_after"
exit "$status"
