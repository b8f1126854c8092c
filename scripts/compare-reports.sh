#!/usr/bin/env bash
# Compares `report --format json` of two builds over every log in a folder,
# under every preset: the check that a change on a measured path moved no
# number it did not mean to move.
#
#   scripts/compare-reports.sh [BASE_REV] [LOG_DIR]
#
# BASE_REV defaults to HEAD (the committed tree against the work tree);
# LOG_DIR to ../shared/transcripts. Spill files go to a temporary folder,
# and paths under it are rewritten so both builds compare alike. Exits 1
# and prints a diff per log and preset when any report differs.
#
# SHARED=1 compares only what both builds write: keys the newer build
# added are left out, so a schema that grew still shows every value that
# moved; presets the base lacks are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}
logs=${2:-../shared/transcripts}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git worktree remove --force "$tmp/base-src" >/dev/null 2>&1 || true' EXIT

git worktree add --detach "$tmp/base-src" "$base" >/dev/null 2>&1
(cd "$tmp/base-src" && go build -o "$tmp/base" .)
go build -o "$tmp/new" .

presets=$("$tmp/new" presets --format json | jq -r '.[].name')
status=0
for log in "$logs"/*.jsonl; do
  for p in $presets; do
    if [ -n "${SHARED:-}" ] && ! "$tmp/base" presets --format json | jq -e --arg p "$p" 'any(.[]; .name == $p)' >/dev/null; then
      continue
    fi
    for side in base new; do
      "$tmp/$side" report --format json --preset "$p" --spill-dir "$tmp/spill-$side" "$log" 2>"$tmp/$side.err" |
        sed "s#$tmp/spill-$side#SPILL#g" | jq -S . >"$tmp/$side.json" || true
    done
    if [ -n "${SHARED:-}" ]; then
      # Keep of the new report only the keys the base report has.
      jq -S --slurpfile b "$tmp/base.json" '
        def shared($b): if type == "object" and ($b | type) == "object" then
            with_entries(select(.key as $k | $b | has($k)) | .key as $k | .value |= shared($b[$k]))
          elif type == "array" and ($b | type) == "array" then
            [range(0; length) as $i | .[$i] | shared($b[$i])]
          else . end;
        shared($b[0])' "$tmp/new.json" >"$tmp/new.shared" && mv "$tmp/new.shared" "$tmp/new.json"
    fi
    if ! cmp -s "$tmp/base.json" "$tmp/new.json"; then
      echo "== $(basename "$log") under $p"
      diff "$tmp/base.json" "$tmp/new.json" | head -40 || true
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "same reports for every log under every preset"
exit $status
