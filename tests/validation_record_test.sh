#!/usr/bin/env bash
# The validation record every report quotes (sim/report/data/validation.inc) must be what the
# suite gives now. Usage: validation_record_test.sh TRAINSIM RECORD SCENARIO...
# On a difference: regenerate it (tests/published/README.md, "The validation record").
set -u
trainsim=$1 record=$2
shift 2
fresh=$("$trainsim" check "$@" --validation-inc) || { echo "trainsim check failed"; exit 1; }
if ! diff -u "$record" <(printf '%s\n' "$fresh"); then
  echo "sim/report/data/validation.inc is stale: the model's errors moved. Regenerate it:"
  echo "  ./build/sim/trainsim check tests/published/*.yaml scenarios/llama3-405b-16k.yaml \\"
  echo "      scenarios/deepseek-v3-2048.yaml --validation-inc > sim/report/data/validation.inc"
  exit 1
fi
echo "validation record current ($(grep -c '^ACCURACY(' "$record") rows)"
