#!/usr/bin/env bash
# Times the session list on the generated fleet as a user waits for it: the
# program in tmux at 120x40, its screen read every 50 ms. On an empty cache,
# from the start to the rows, the replayed totals, the savings chart and
# idle (every hazard found); once idle, the keys + - d s d, each from the
# key to its totals and chart; reopened with that cache, from the start to
# rows, totals and chart. In the same rounds: ccusage 20.0.24's `claude
# session` and `report --by session --no-cache` on the fleet's Claude Code
# folder, and `report --by day --format json` run a second time.
#
#   [RUNS=3] [CCUSAGE=path/to/ccusage] scripts/bench-list.sh [WORKDIR]
#
# Needs Go and tmux; ccusage is installed from the npm registry when npm is
# present and CCUSAGE is not set. The table is written into docs/speed.md
# (block scripts/bench-list.sh); the screens at the moment each cold chart
# completed are left in WORKDIR/chart-N.screen.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "tmux not found: the list is timed in tmux" >&2; exit 1; }
work=${1:-"${TMPDIR:-/tmp}/spillway-bench-list"}
fleet="$work/fleet"
mkdir -p "$work"

if [ ! -d "$fleet/claude/projects" ]; then
  echo "writing the fleet to $fleet"
  go run ./internal/corpus/gencorpus -fleet -dir "$fleet.tmp"
  mv "$fleet.tmp" "$fleet"
fi
# Logs written in the last 15 minutes may still be growing and take a
# slower path than a user's older sessions (scripts/bench-index.sh).
find "$fleet/" -name '*.jsonl' -newermt '-16 minutes' -exec touch -d '-1 hour' {} +
go build -o "$work/spillway" .
find "$fleet/" -name '*.jsonl' -exec cat {} + >/dev/null # warm the page cache

native=$(scripts/ccusage.sh "$work")

ms() { echo $(($(date +%s%N) / 1000000)); }
screen() { tmux capture-pane -p -t spillway-bench 2>/dev/null || true; }
# settled: the screen's totals and chart are in (no figure still coming).
settled() {
  local s=$1
  grep -q '^cost saved by ceiling' <<<"$s" && ! grep -q '→ …\|replaying' <<<"$s"
}
record() { echo "$2" >>"$work/$1.times"; } # label, seconds

list() { # cache, tag: one run of the list; appends to the .times files
  local cache=$1 tag=$2 t0 s rows="" totals="" chart="" idle="" before
  tmux kill-session -t spillway-bench 2>/dev/null || true
  rm -f "$work/list.time"
  t0=$(ms)
  tmux new-session -d -s spillway-bench -x 120 -y 40 \
    "SPILLWAY_CACHE_DIR='$cache' /usr/bin/time -o '$work/list.time' -f '%M %U %S' '$work/spillway' '$fleet'"
  while :; do
    s=$(screen)
    local at=$(($(ms) - t0))
    [ -z "$rows" ] && grep -q '^  20[0-9][0-9]-' <<<"$s" && rows=$at
    if [ -z "$totals" ] && grep -q '^[0-9,]* sessions · .*→ \$' <<<"$s" && ! grep -q '→ …\|replaying' <<<"$s"; then totals=$at; fi
    if [ -z "$chart" ] && [ -n "$totals" ] && settled "$s"; then
      chart=$at
      [ "$tag" = cold ] && echo "$s" >"$work/chart-$round.screen"
    fi
    [ -n "$chart" ] && [ "$tag" = reopened ] && break
    if [ -n "$chart" ] && ! grep -q '…' <<<"$s"; then idle=$at; break; fi
    [ "$at" -gt 600000 ] && { echo "the list did not settle in 10 minutes" >&2; exit 1; }
    sleep 0.05
  done
  record "$tag-rows" "$(awk -v v="$rows" 'BEGIN{print v/1000}')"
  record "$tag-chart" "$(awk -v v="$chart" 'BEGIN{print v/1000}')"
  [ "$tag" = cold ] && record cold-idle "$(awk -v v="$idle" 'BEGIN{print v/1000}')"
  if [ "$tag" = cold ]; then
    local n=0
    for key in + - d s d; do
      n=$((n + 1))
      before=$(sed -n 2p <<<"$s")
      t0=$(ms)
      tmux send-keys -t spillway-bench "$key"
      while :; do
        s=$(screen)
        [ "$(sed -n 2p <<<"$s")" != "$before" ] && settled "$s" && ! grep -q 'looking' <<<"$s" && break
        [ $(($(ms) - t0)) -gt 120000 ] && { echo "key $key did not settle in 2 minutes" >&2; exit 1; }
        sleep 0.05
      done
      record "key$n" "$(awk -v v="$(($(ms) - t0))" 'BEGIN{print v/1000}')"
      grep '^[0-9,]* sessions' <<<"$s" >>"$work/keys-$round.totals"
    done
  fi
  tmux send-keys -t spillway-bench q
  while [ ! -s "$work/list.time" ]; do sleep 0.1; done
  read -r rss user sys <"$work/list.time"
  record "$tag-rss" "$((rss / 1024))"
  record "$tag-cpu" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')"
}

timed() { # label, command...: one timed run
  local label=$1; shift
  /usr/bin/time -o "$work/timed.time" -f "%e %M" "$@" >"$work/$label.out" 2>"$work/$label.err" || {
    echo "$label failed:" >&2; cat "$work/$label.err" >&2; exit 1
  }
  read -r wall rss <"$work/timed.time"
  record "$label" "$wall"
  record "$label-rss" "$((rss / 1024))"
}

runs=${RUNS:-3}
rm -f "$work"/*.times "$work"/keys-*.totals "$work"/chart-*.screen
load_before=$(scripts/doc-block.sh --load)
for round in $(seq "$runs"); do
  [ -n "$native" ] && timed ccusage env CLAUDE_CONFIG_DIR="$fleet/claude" "$native" claude session --json --offline
  timed report-session "$work/spillway" report --by session --no-cache "$fleet/claude"
  rm -rf "$work/cache"
  list "$work/cache" cold
  list "$work/cache" reopened
  SPILLWAY_CACHE_DIR="$work/cache" "$work/spillway" report --by day --format json -z UTC "$fleet" >"$work/day-first.out"
  timed report-day env SPILLWAY_CACHE_DIR="$work/cache" "$work/spillway" report --by day --format json -z UTC "$fleet"
  cmp -s "$work/day-first.out" "$work/report-day.out" || { echo "report --by day differs run again" >&2; exit 1; }
done
load_after=$(scripts/doc-block.sh --load)
for round in $(seq 2 "$runs"); do
  cmp -s "$work/keys-1.totals" "$work/keys-$round.totals" || { echo "the keys' totals differ between rounds" >&2; exit 1; }
done

fig() { # label: median (fastest-slowest) of its runs
  sort -g "$work/$1.times" | awk '{v[NR]=$1} END {printf "%.2f s (%.2f-%.2f)", v[int((NR+1)/2)], v[1], v[NR]}'
}
most() { sort -g "$work/$1.times" | tail -1; }
median() { sort -g "$work/$1.times" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
files=$(find "$fleet/" -name '*.jsonl' | wc -l)
mb=$(du -smL "$fleet" | cut -f1)
claude_mb=$(du -sm "$fleet/claude" | cut -f1)
{
  echo "The generated fleet: $files files, $mb MB ($claude_mb MB of it Claude Code's); $runs rounds, every run in turns; a figure is the median (fastest-slowest)."
  echo
  echo "| what | time | peak RSS |"
  echo "|---|---|---|"
  [ -n "$native" ] && echo "| ccusage 20.0.24 \`claude session --json --offline\` on the Claude Code folder | $(fig ccusage) | $(most ccusage-rss) MB |"
  echo "| \`report --by session --no-cache\` on the same folder | $(fig report-session) | $(most report-session-rss) MB |"
  echo "| the list, empty cache: rows | $(fig cold-rows) | |"
  echo "| the list, empty cache: replayed totals and savings chart | $(fig cold-chart) | $(most cold-rss) MB ($(median cold-cpu) s of processor time to the end) |"
  echo "| the list, empty cache: idle, every hazard found | $(fig cold-idle) | |"
  echo "| keys once idle, each from the key to its totals and chart: \`+\` / \`-\` / \`d\` / \`s\` / \`d\` | $(median key1) / $(median key2) / $(median key3) / $(median key4) / $(median key5) s (slowest key $(cat "$work"/key?.times | sort -g | tail -1) s) | |"
  echo "| the list reopened with that cache: rows / totals and chart | $(median reopened-rows) / $(fig reopened-chart) | $(most reopened-rss) MB |"
  echo "| \`report --by day --format json\` run again with the cache, the same bytes as the first run | $(fig report-day) | $(most report-day-rss) MB |"
  if [ -n "$native" ]; then
    echo
    awk -v a="$(median report-session)" -v b="$(median cold-chart)" -v c="$(median ccusage)" \
      'BEGIN {printf "Against ccusage'"'"'s wall: `report --by session` %.2fx, the cold list'"'"'s totals and chart %.1fx.\n", a/c, b/c}'
  fi
} | tee /dev/stderr | scripts/doc-block.sh scripts/bench-list.sh docs/speed.md "$load_before" "$load_after"
