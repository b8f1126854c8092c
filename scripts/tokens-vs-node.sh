#!/usr/bin/env bash
# Compares guard/tokens with npm tiktoken 1.0.22 (tiktoken's Rust core built
# to WebAssembly), both on one core, on the generated benchmark texts of
# about 1 MB each: throughput in MB/s (best of several runs) and whether the
# token counts agree, for o200k_base and cl100k_base.
#
#   scripts/tokens-vs-node.sh [WORKDIR]     (default: a new temporary folder)
#
# "cold" is our speed with an empty piece cache at the start of each count,
# the honest figure for text never seen; "warm" is with the cache filled.
# npm tiktoken is not run on the spaces and letter texts: its merge is
# quadratic in a piece's length (100 KB of spaces took it 12 s here, and a
# MB aborts with "RuntimeError: unreachable").
#
# Needs Go; npm tiktoken is installed from the npm registry when node and npm
# are present, and skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  work=$1
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
corpus="$work/corpus"
reps=${REPS:-5}

echo "writing the texts to $corpus"
go test ./guard/tokens -run '^TestWriteBenchCorpus$' -count=1 -corpus-dir "$corpus" >/dev/null

echo "timing guard/tokens (go test -bench, one core, best of $reps)"
go test ./guard/tokens -run '^$' -bench '^BenchmarkCount(Warm)?$' -cpu 1 -benchtime 5x -count "$reps" \
  | awk '$NF == "MB/s" { split($1, p, "/"); key = p[1] "\t" p[2] "\t" p[3]
      if ($(NF-1) + 0 > best[key]) best[key] = $(NF-1) + 0 }
    END { for (k in best) print k "\t" best[k] }' >"$work/go.tsv"

: >"$work/node.tsv"
if command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$work/npm/node_modules/tiktoken" ]; then
    echo "installing npm tiktoken@1.0.22"
    (mkdir -p "$work/npm" && cd "$work/npm" && npm install --silent --no-audit --no-fund tiktoken@1.0.22 >/dev/null)
  fi
  cat >"$work/bench.cjs" <<'EOF'
const fs = require("fs");
const path = require("path");
const { get_encoding } = require(process.argv[2]);
const [dir, reps, ...kinds] = process.argv.slice(3);
for (const name of ["o200k_base", "cl100k_base"]) {
  const enc = get_encoding(name);
  for (const kind of kinds) {
    const text = fs.readFileSync(path.join(dir, kind + ".txt"), "utf8");
    const bytes = Buffer.byteLength(text);
    let count = enc.encode_ordinary(text).length; // warm-up
    let best = Infinity;
    for (let i = 0; i < Number(reps); i++) {
      const t0 = process.hrtime.bigint();
      count = enc.encode_ordinary(text).length;
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    console.log([name, kind, count, (bytes / 1e6 / best).toFixed(2)].join("\t"));
  }
  enc.free();
}
EOF
  echo "timing npm tiktoken (best of $reps)"
  node "$work/bench.cjs" "$work/npm/node_modules/tiktoken" "$corpus" "$reps" \
    prose code lock base64 minified mixed >"$work/node.tsv"
else
  echo "node or npm not found: npm tiktoken skipped"
fi

echo
awk -F'\t' '
  FILENAME ~ /counts.tsv$/ { bytes[$1 "\t" $2] = $3; ours[$1 "\t" $2] = $4; order[++n] = $1 "\t" $2; next }
  FILENAME ~ /go.tsv$/ { if ($1 == "BenchmarkCount") cold[$2 "\t" $3] = $4; else warm[$2 "\t" $3] = $4; next }
  FILENAME ~ /node.tsv$/ { npm[$1 "\t" $2] = $4; npmCount[$1 "\t" $2] = $3; next }
  END {
    printf "%-12s %-9s %6s %9s %9s %9s %8s  %s\n", "encoding", "kind", "MB", "ours cold", "ours warm", "npm", "cold/npm", "counts"
    for (i = 1; i <= n; i++) {
      k = order[i]; split(k, p, "\t")
      ratio = "-"; same = "npm not run (" ours[k] ")"
      if (k in npm) {
        ratio = sprintf("%.1fx", cold[k] / npm[k])
        same = (npmCount[k] == ours[k]) ? "same (" ours[k] ")" : "DIFFER: ours " ours[k] ", npm " npmCount[k]
      }
      printf "%-12s %-9s %6.2f %9.2f %9.2f %9s %8s  %s\n", p[1], p[2], bytes[k] / 1e6, cold[k], warm[k], (k in npm) ? npm[k] : "-", ratio, same
    }
  }' "$corpus/counts.tsv" "$work/go.tsv" "$work/node.tsv"
