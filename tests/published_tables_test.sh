#!/usr/bin/env bash
# The results tables README.md and tests/published/README.md print (predicted against measured,
# the mean and max, memory, ranking, setting changes) must be what the suite gives now: every
# line `trainsim check --markdown` writes must stand, whole, in each page.
# Usage: published_tables_test.sh TRAINSIM PAGE... -- SCENARIO...
# On a difference: splice the fresh tables in (tests/published/README.md, "this page").
set -u
[ $# -ge 3 ] || { echo "usage: $0 TRAINSIM PAGE... -- SCENARIO..."; exit 2; }
trainsim=$1
shift
pages=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  pages+=("$1")
  shift
done
[ $# -gt 0 ] || { echo "usage: $0 TRAINSIM PAGE... -- SCENARIO..."; exit 2; }
shift
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$trainsim" check "$@" --markdown >"$fresh" || { echo "trainsim check failed"; exit 1; }
rows=$(grep -c '^|' "$fresh")
[ "$rows" -gt 0 ] || { echo "trainsim check --markdown wrote no table"; exit 1; }
status=0
for page in "${pages[@]}"; do
  [ -r "$page" ] || { echo "$page: cannot read it"; status=1; continue; }
  # Lines of the fresh output that no line of the page equals (blank lines aside).
  missing=$(grep -v '^$' "$fresh" | grep -F -x -v -f "$page")
  if [ -n "$missing" ]; then
    echo "$page is stale: $(printf '%s\n' "$missing" | wc -l) generated line(s) differ, e.g."
    printf '%s\n' "$missing" | head -n 5 | cut -c1-200
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "Splice the fresh tables in:"
  echo "  S=\"tests/published/*.yaml scenarios/llama3-405b-16k.yaml scenarios/deepseek-v3-2048.yaml\""
  echo "  ./build/sim/trainsim check \$S --markdown > /tmp/tables.md"
  echo "  python3 tests/published/splice_tables.py /tmp/tables.md README.md tests/published/README.md"
  exit 1
fi
echo "results tables current in ${#pages[@]} page(s) ($rows table lines)"
