#!/usr/bin/env bash
# Prints the path of ccusage 20.0.24's native build, the one the timing
# scripts run: $CCUSAGE when set, else the one installed from the npm
# registry under WORKDIR/ccusage (installed there the first time). Prints
# nothing, and says why on stderr, when there is none.
#
#   native=$(scripts/ccusage.sh WORKDIR)
set -euo pipefail
work=$1
if [ -n "${CCUSAGE:-}" ]; then
  echo "$CCUSAGE"
  exit
fi
if ! command -v npm >/dev/null; then
  echo "ccusage not found (set CCUSAGE or install npm): not timed" >&2
  exit
fi
if [ ! -d "$work/ccusage/node_modules/ccusage" ]; then
  (mkdir -p "$work/ccusage" && cd "$work/ccusage" && npm install --silent ccusage@20.0.24 >/dev/null)
fi
native=$(ls "$work"/ccusage/node_modules/@ccusage/ccusage-*/bin/ccusage 2>/dev/null | head -1)
if [ -z "$native" ]; then
  echo "ccusage's native build for this machine is not in the package: not timed" >&2
  exit
fi
chmod +x "$native" # the package ships it without the execute bit
echo "$native"
