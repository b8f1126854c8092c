#!/usr/bin/env bash
# Replaces the generated block NAME of a Markdown FILE with a line saying
# when, on what and at what load the figures were measured, then standard
# input. A block is the lines between "<!-- begin NAME: ... -->" and
# "<!-- end NAME -->"; the measuring scripts write docs/speed.md through it.
#
#   scripts/doc-block.sh NAME FILE "LOAD BEFORE" "LOAD AFTER" < rows
#   scripts/doc-block.sh --load      (the one-minute load average now)
set -euo pipefail
if [ "$1" = --load ]; then
  cut -d' ' -f1 /proc/loadavg 2>/dev/null || sysctl -n vm.loadavg | awk '{print $2}'
  exit
fi
name=$1 file=$2 before=$3 after=$4
rows=$(mktemp)
out=$(mktemp)
trap 'rm -f "$rows" "$out"' EXIT

cpu=$( (grep -m1 'model name' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null) | sed 's/^model name[[:space:]]*: //')
cores=$(getconf _NPROCESSORS_ONLN)
{
  echo "Measured $(date -u +%Y-%m-%d) on $cores cores (${cpu:-unknown processor}), $(uname -s), $(go env GOVERSION);" \
    "load average $before before, $after after."
  echo
  cat
} >"$rows"

awk -v begin="<!-- begin $name" -v end="<!-- end $name -->" -v rows="$rows" '
  skip && $0 == end { skip = 0; found = 1 }
  skip { next }
  { print }
  substr($0, 1, length(begin) + 1) == begin ":" || $0 == begin " -->" {
    while ((getline line < rows) > 0) print line
    skip = 1
  }
  END { if (!found) exit 1 }' "$file" >"$out" || {
  echo "$file has no block $name" >&2
  exit 1
}
cat "$out" >"$file"
echo "wrote the figures into $file ($name); git diff shows what moved" >&2
