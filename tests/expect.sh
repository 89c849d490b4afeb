# Shared by the CLI test scripts: `expect CODE PATTERN -- command…` runs the command, checks
# its exit code and that PATTERN (grep basic regex) is in its stdout or stderr. Needs $tmp (a
# scratch folder) and sets fail=1 on a mismatch.
expect() {
  local code=$1 pattern=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$code" ] || ! grep -q -- "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL: $* -> exit $got (want $code), output:"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok: $* -> $code"
  fi
}
