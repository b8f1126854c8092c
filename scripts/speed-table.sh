#!/usr/bin/env bash
# Runs the inspector's re-tuning benchmarks and prints README's speed-table
# rows for them, figures in milliseconds per key.
#
#   [BENCHTIME=20x] [COUNT=3] scripts/speed-table.sh
#
# Each benchmark runs COUNT times; a preset's figure is its median, and a
# row's range runs from its fastest preset to its slowest. The machine may
# be shared: run it when it is quiet, and say so when it was not.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-20x}
count=${COUNT:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test ./ui -run '^$' -bench '^Benchmark(Retune|Chart)$' -benchtime "$benchtime" -count "$count" >"$out"

# rows NAME: "preset ms" per preset (median over the runs), in first-seen order.
rows() {
  awk -v want="$1" '
    $1 ~ "^Benchmark" want "/" {
      name = $1; sub("^Benchmark" want "/", "", name); sub("-[0-9]+$", "", name)
      if (!(name in n)) order[++k] = name
      v[name, ++n[name]] = $3 / 1e6
    }
    END {
      for (i = 1; i <= k; i++) {
        name = order[i]; m = n[name]
        for (a = 1; a <= m; a++) s[a] = v[name, a]
        for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
        printf "%s %.0f\n", name, (m % 2) ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
      }
    }' "$out"
}

# cell LINES: "lo-hi ms (preset x ms, …)" from "preset ms" lines.
cell() {
  awk '
    { name[NR] = $1; ms[NR] = $2; if (NR == 1 || $2 < lo) lo = $2; if (NR == 1 || $2 > hi) hi = $2 }
    END {
      printf "%s ms (", (lo == hi) ? lo : lo "-" hi
      for (i = 1; i <= NR; i++) printf "%s%s %s ms", (i > 1) ? ", " : "", name[i], ms[i]
      printf ")"
    }'
}

retune=$(rows Retune | cell)
ceiling=$(rows Chart | awk '$1 ~ /\/ceiling$/ { sub("/ceiling$", "", $1); print }' | cell)
knobs=$(rows Chart | awk '$1 ~ /\/knobs$/ { sub("/knobs$", "", $1); print }' | cell)
echo "| a key that re-tunes (\`+\`, \`-\`) on 10,000 results, a ceiling not used before each time, to the replayed totals and rows on screen, while the savings chart computes all its points (\`go test -bench Retune ./ui\`) | $retune |"
echo "| the same key to the savings chart drawn in full: a new ceiling, the chart's other points known (\`go test -bench Chart ./ui\`, \`ceiling\`) | $ceiling |"
echo "| the chart after a change of the other knobs (\`d\`, \`s\`, \`p\`), every point new (\`knobs\`) | $knobs |"
