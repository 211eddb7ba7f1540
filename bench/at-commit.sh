#!/usr/bin/env bash
# Benchmarks a commit (default HEAD) from a clean export, so edits in progress in a shared working
# tree do not leak into the numbers. Extra arguments go to run.js (--quick, --only=…).
#   bash bench/at-commit.sh [rev] [run.js arguments]
set -euo pipefail
root="$(git rev-parse --show-toplevel)"
rev="HEAD"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then rev="$1"; shift; fi
commit="$(git -C "$root" rev-parse --short "$rev")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$root" archive "$commit" | tar -x -C "$work"
ln -s "$root/node_modules" "$work/node_modules"
(cd "$work" && npm run --silent build >/dev/null)
cd "$work" && BENCH_COMMIT="$commit" node --expose-gc dist/bench/run.js --out="$root/bench/results.json" "$@"
