#!/usr/bin/env bash
# The README's worked examples stay true: for each line of a README code block that runs
# `$ trainsim ARGS` (whole, with no "…" and no continuation), each output line shown under it
# (up to the next `$` line or the block's end) must be a line the command prints now.
set -u
bin=$1
src=$2
fail=0
checked=0
cd "$src" || exit 1
cmd="" expected=()
flush() {
  [ -z "$cmd" ] && return
  local out
  out=$("$bin" $cmd 2>/dev/null)
  for line in "${expected[@]}"; do
    if ! grep -qxF -- "$line" <<<"$out"; then
      echo "FAIL: README: \`trainsim $cmd\` no longer prints:"
      echo "  $line"
      fail=1
    fi
  done
  checked=$((checked + 1))
  cmd="" expected=()
}
in_block=0
while IFS= read -r line; do
  if [[ $line == '```'* ]]; then
    flush
    in_block=$((1 - in_block))
    continue
  fi
  [ $in_block -eq 1 ] || continue
  if [[ $line == '$ '* ]]; then
    flush
    if [[ $line == '$ trainsim '* && $line != *'…'* && $line != *'\' && $line != *'#'* ]]; then
      cmd=${line#'$ trainsim '}
    fi
  elif [ -n "$cmd" ] && [ -n "$line" ]; then
    expected+=("$line")
  fi
done <README.md
flush
[ $checked -gt 0 ] || { echo "FAIL: no README example found to check"; fail=1; }
echo "checked $checked README example(s)"
exit $fail
