#!/usr/bin/env bash
# Exports traces with the CLI and has the Chrome DevTools trace engine parse them.
# Needs `npm ci` in this folder first (the README's test command and .ci/run do it);
# without it the test is skipped (exit 77), except under CI where it fails.
set -eu
bin=$1 src=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/@paulirish/trace_engine" ]; then
  echo "trace engine not installed: run (cd tests/trace_check && npm ci)"
  [ "${CI:-}" = "true" ] && exit 1
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
"$bin" compare "$src/scenarios/default.yaml" --trace-dir "$out" >/dev/null
"$bin" run "$src/scenarios/paper-1f1b.yaml" --trace "$out/paper-1f1b.json" >/dev/null
"$bin" run "$src/scenarios/default.yaml" --set parallelism.tp=2 --set parallelism.dp=1 \
  --no-fold --trace "$out/default-tp2-expanded.json" >/dev/null
"$bin" run "$src/scenarios/mixtral-8x7b.yaml" --set parallelism.ep=4 \
  --trace "$out/mixtral-ep4.json" >/dev/null  # expert parallelism's all-to-all thread
cd "$here" && node validate.mjs "$out"/*.json
