#!/usr/bin/env bash
# Runs every benchmark of the speed table in docs/speed.md that needs
# nothing but Go, prints the table and writes it into docs/speed.md (its
# block scripts/speed-table.sh, and with LARGE=1 also
# scripts/speed-table.sh-large), and the hook's and a tuning key's figures
# into README.md (blocks scripts/speed-table.sh-hook and -retune). The rows
# comparing with ccusage come from scripts/bench-report.sh.
#
#   [COUNT=3] [LARGE=1] scripts/speed-table.sh
#
# LARGE=1 also writes a generated single session of 1 GiB to a temporary
# folder and opens it in the inspector's timing test under /usr/bin/time
# -v, once: the first frame, all rows, the replay, the savings chart, the
# processor time and the peak memory (it needs 1 GiB of disk and minutes).
#
# Each benchmark runs COUNT times and a figure is the median of the runs.
# In the re-tuning rows, a preset's figure is its median and the row's range
# runs from its fastest preset to its slowest. The machine may be shared:
# run it when it is quiet (the load average is printed to standard error),
# and say so when it was not.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
load_before=$(scripts/doc-block.sh --load)
echo "load average before: $load_before" >&2

# bench OUT PKG PATTERN BENCHTIME [go test flags...]: runs the benchmarks
# into $dir/OUT.
bench() {
  local out=$1 pkg=$2 pattern=$3 benchtime=$4
  shift 4
  echo "running $pattern in $pkg" >&2
  go test "$pkg" -run '^$' -bench "$pattern" -benchtime "$benchtime" -count "$count" "$@" >"$dir/$out"
}

bench read ./transcript '^BenchmarkReadClaude$' 20x -cpu 1
bench follow ./transcript '^BenchmarkFollowLatency$' 50x
bench generate ./report '^BenchmarkGenerate$' 3x
bench count ./guard/tokens '^BenchmarkCount$/^o200k_base$/^(prose|code|lock|spaces|letter|base64)$' 5x -cpu 1
bench prepare ./guard/replay '^BenchmarkPrepare$' 2x
bench frame ./ui '^BenchmarkFirstFrame$' 2x
bench retune ./ui '^Benchmark(Retune|Chart)$' 20x
bench spill ./spillview '^Benchmark(Open50MB|ViewLargeFile)$' 20x
bench hook . '^BenchmarkHook$' 200x
if [ "${LARGE:-}" = 1 ]; then
  echo "writing and opening a 1 GiB session" >&2
  go run ./internal/corpus/gencorpus -single "$dir/large.jsonl" >/dev/null
  go test -c -o "$dir/ui.test" ./ui
  SPILLWAY_LARGE_SESSION="$dir/large.jsonl" /usr/bin/time -v "$dir/ui.test" -test.run '^TestLargeSessionTimes$' -test.v >"$dir/large" 2>&1
  rm -f "$dir/large.jsonl"
fi
load_after=$(scripts/doc-block.sh --load)
echo "load average after: $load_after" >&2

# fig OUT NAME UNIT SCALE FORMAT: the median over the runs of benchmark NAME
# (its full name, without the -GOMAXPROCS suffix) in UNIT (ns/op, MB/s),
# divided by SCALE and printed with FORMAT.
fig() {
  awk -v want="$2" -v unit="$3" -v scale="$4" -v format="$5" '
    /^Benchmark/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      if (name != "Benchmark" want) next
      for (i = 3; i <= NF; i++) if ($i == unit) v[++n] = $(i - 1) / scale
    }
    END {
      if (n == 0) { print "no figure for " want " in " unit > "/dev/stderr"; exit 1 }
      for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
      printf format, (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }' "$dir/$1"
}

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
    }' "$dir/retune"
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

mbs='%.0f'
generate="JSON $(fig generate Generate/json MB/s 1 "$mbs"), text $(fig generate Generate/text MB/s 1 "$mbs"), CSV $(fig generate Generate/csv MB/s 1 "$mbs") MB/s"
read_claude="$(fig read ReadClaude/texts MB/s 1 "$mbs") / $(fig read ReadClaude/sizes-only MB/s 1 "$mbs") MB/s on one core"
frame="$(fig frame FirstFrame ns/op 1e9 '%.2f') s"
count_cell="o200k: prose $(fig count Count/o200k_base/prose MB/s 1 "$mbs"), code $(fig count Count/o200k_base/code MB/s 1 "$mbs"), lock files $(fig count Count/o200k_base/lock MB/s 1 "$mbs") MB/s"
worst="spaces $(fig count Count/o200k_base/spaces ns/op 1e6 '%.0f'), one letter $(fig count Count/o200k_base/letter ns/op 1e6 '%.0f'), base64 $(fig count Count/o200k_base/base64 ns/op 1e6 '%.0f') ms"
prepare="$(fig prepare Prepare ns/op 1e9 '%.2f') s, in the background"
retune=$(rows Retune | cell)
ceiling=$(rows Chart | awk '$1 ~ /\/ceiling$/ { sub("/ceiling$", "", $1); print }' | cell)
knobs=$(rows Chart | awk '$1 ~ /\/knobs$/ { sub("/knobs$", "", $1); print }' | cell)
follow="$(fig follow FollowLatency ns/op 1e6 '%.2f') ms"
spill="$(fig spill Open50MB ns/op 1e6 '%.0f') ms / $(fig spill ViewLargeFile/plain ns/op 1e6 '%.2f') ms"
# hook_cell METRIC: the hook's figure for each policy, "kept / spilled / tokens".
hook_cell() {
  echo "$(fig hook Hook/kept "$1" 1 '%.1f') / $(fig hook Hook/spilled "$1" 1 '%.1f') / $(fig hook Hook/tokens "$1" 1 '%.1f') ms"
}
hook_median=$(hook_cell median-ms)
hook_p99=$(hook_cell p99-ms)
hook_cpu=$(hook_cell cpu-median-ms)

{
echo "| what | figure |"
echo "|---|---|"
echo "| \`report\` over 20 of those sessions in memory-cached files, per format (\`go test -bench Generate ./report\`) | $generate |"
echo "| reading one generated 3.4 MB session (\`go test -bench ReadClaude -cpu 1 ./transcript\`), keeping texts / sizes only | $read_claude |"
echo "| first frame of the inspector on a 107 MB transcript, recorded costs shown (\`go test -bench FirstFrame ./ui\`) | $frame |"
echo "| token counting, one core, cold (\`go test -bench Count -cpu 1 ./guard/tokens\`; \`scripts/tokens-vs-node.sh\` runs npm tiktoken on the same texts) | $count_cell |"
echo "| worst cases: 1 MiB of spaces, of one letter, of base64 (the same benchmark) | $worst |"
echo "| counting and measuring 10,000 results of realistic sizes once (\`go test -bench Prepare ./guard/replay\`) | $prepare |"
echo "| a key that re-tunes (\`+\`, \`-\`) on 10,000 results, a ceiling not used before each time, to the replayed totals and rows on screen, while the savings chart computes all its points (\`go test -bench Retune ./ui\`) | $retune |"
echo "| the same key to the savings chart drawn in full: a new ceiling, the chart's other points known (\`go test -bench Chart ./ui\`, \`ceiling\`) | $ceiling |"
echo "| the chart after a change of the other knobs (\`d\`, \`s\`, \`p\`), every point new (\`knobs\`) | $knobs |"
echo "| an appended line reaching a followed session's state (\`go test -bench FollowLatency ./transcript\`) | $follow |"
echo "| opening a 50 MB spill file in the viewer / drawing a frame of a 48k-line file (\`go test -bench Open50MB ./spillview\`, \`-bench ViewLargeFile/plain\`) | $spill |"
echo "| \`spillway hook claude-code\` on a 100 KB Read, a process started per call as Claude Code starts it, the result kept / spilled / under a token ceiling (\`go test -bench Hook .\`): median, 99th percentile, processor time | $hook_median; $hook_p99; $hook_cpu |"
} | tee /dev/stderr | scripts/doc-block.sh scripts/speed-table.sh docs/speed.md "$load_before" "$load_after"
echo "Per tool call on a 100 KB Read, the result kept / spilled / under a token ceiling: $hook_median at the median, $hook_p99 at the 99th percentile ([docs/speed.md](docs/speed.md))." |
  scripts/doc-block.sh scripts/speed-table.sh-hook README.md "$load_before" "$load_after"
echo "A tuning key (\`+\`, \`-\`) on a session of 10,000 results, to its replayed totals on screen while the savings chart computes, per preset: $retune ([docs/speed.md](docs/speed.md))." |
  scripts/doc-block.sh scripts/speed-table.sh-retune README.md "$load_before" "$load_after"
if [ "${LARGE:-}" = 1 ]; then
  # Wall times, then the processor time used by each point (all threads).
  large=$(awk '
    function after(word,   i) { for (i = 1; i < NF; i++) if ($i == word) return $(i + 1) }
    /first frame/ { f = after("frame"); r = after("rows"); p = after("replayed"); d = after("done") }
    /processor time/ { rc = after("rows"); pc = after("replayed"); dc = after("done") }
    /Maximum resident/ { m = $NF / 1024 }
    END { printf "first frame %s s, all rows %s s (%s s of processor time), replayed %s s (%s s), chart %s s (%s s); %.0f MB peak RSS; no spill file written", f, r, rc, p, pc, d, dc, m }' "$dir/large")
  {
    echo "| what | figure |"
    echo "|---|---|"
    echo "| the inspector on a generated single session of 1 GiB (184,497 results, 5,808 of them spilled; \`LARGE=1 scripts/speed-table.sh\`: \`go test -run LargeSession ./ui\` under \`/usr/bin/time -v\`), harness-rs-0.0.50 | $large |"
  } | tee /dev/stderr | scripts/doc-block.sh scripts/speed-table.sh-large docs/speed.md "$load_before" "$load_after"
fi
