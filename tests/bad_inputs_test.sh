#!/usr/bin/env bash
# Every reproducer from the bad-input campaign (tests/data/bad-inputs/README.md) ends in a typed
# error naming the place and exit 2, or, for the valid layouts among them, a result and exit 0:
# never a signal, a hang (each command runs under `timeout`), exit 1 or silent garbage.
# Usage: bad_inputs_test.sh TRAINSIM TRAINSIM_CALIBRATE|none SOURCE_DIR
set -u
bin=$1
calib=$2
src=$3
d=$src/tests/data/bad-inputs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
source "$(dirname "$0")/expect.sh"
t() { timeout 120 "$@"; }  # a hang fails as exit 124
run() { t "$bin" run "$@" --json; }

# Integers truncated or wrapped: refused with the key, its line and the allowed range.
expect 2 "01-sigfpe-model-heads-2p32.yaml:5: model.heads: expected an integer in \[1, 65536\], got 4294967296" -- run "$d/01-sigfpe-model-heads-2p32.yaml"
expect 2 "model.heads: expected an integer in \[1, 65536\], got 4294967296" -- run "$src/scenarios/default.yaml" --set model.heads=4294967296
expect 2 "02-segv-csv-stage-intmax.csv:1: cell 2: \"2147483647F0\": stage 2147483647 is past the limit of 99999" -- t "$bin" schedule --csv "$d/02-segv-csv-stage-intmax.csv"
expect 2 ":1: cell 1: .*micro-batch 99999999999999999999 is past the limit of 65535" -- t "$bin" schedule --csv "$d/12-exit1-csv-number-out-of-range.csv"
expect 2 ":6: parallelism.vpp: expected an integer in \[1, 1048576\], got 1073741824" -- run "$d/14-exit1-pp-times-vpp-overflow.yaml"
expect 2 ":6: model.heads: expected an integer in \[1, 65536\], got 4294967297" -- run "$d/19-silent-int-truncation-heads.yaml"
expect 2 ":4: training.microbatches: expected an integer in \[1, 65536\], got 1073741824" -- run "$d/24-int-overflow-microbatches.yaml"
expect 2 ":3: model.hidden: expected an integer in \[1, 1048576\], got 8388608" -- run "$d/25-exit1-int64-param-overflow.yaml"
expect 2 ":3: parallelism.vpp: expected an integer in \[1, 1048576\], got 1073741824" -- run "$d/29-sigfpe-interleaved-pp-vpp-overflow.yaml"

# Times past int64 nanoseconds: quantities are bounded where they are read; what still
# overflows after arithmetic (a profile's extrapolation) is a RangeError.
expect 2 ":7: costs.forward: \"1e10s\" is too large: at most 1e6s" -- run "$d/03-exit1-duration-over-9.2e9s.yaml"
expect 2 ":8: costs.forward: \"1e9s\" is too large: at most 1e6s" -- run "$d/04-exit1-time-sum-overflow.yaml"
expect 2 ":11: cluster.gpu.peak_flops: \"1FLOPS\" is too small: at least 1MFLOPS" -- run "$d/05-exit1-peak-flops-1-flops.yaml"
# A sample time past an hour is refused where it is read; two within it (1 ns for 1 byte, an
# hour for 2) still fit a line of an hour a byte, which prices a gigabyte's all-reduce in
# centuries: refused, naming the profile and its samples.
cat > "$tmp/extrapolate.json" <<'J'
{"format": "trainsim-calibration", "version": 1,
 "collectives": [{"op": "all_reduce", "group_size": 2, "bytes": 1, "time_s": 1e300},
                 {"op": "all_reduce", "group_size": 2, "bytes": 2, "time_s": 1e-300}]}
J
cp "$src/scenarios/default.yaml" "$tmp/extrapolate.yaml"
echo "calibration: extrapolate.json" >>"$tmp/extrapolate.yaml"
expect 2 "extrapolate.json: collectives.0..time_s: 1e.300 s: past any measurement" -- run "$tmp/extrapolate.yaml"
cat > "$tmp/extrapolate.json" <<'J'
{"format": "trainsim-calibration", "version": 1,
 "collectives": [{"op": "all_reduce", "group_size": 2, "bytes": 1, "time_s": 1e-9},
                 {"op": "all_reduce", "group_size": 2, "bytes": 2, "time_s": 3600}]}
J
expect 2 "extrapolate.json: all_reduce×2 intra_node: the α–β line through its 2 sample.s. .1–2 bytes. gives .* s" -- run "$tmp/extrapolate.yaml"

# Library exceptions (yaml-cpp, nlohmann, the file system) become located input errors.
expect 2 ":8: a key must be a plain name, got \[a, b\]" -- run "$d/06-exit1-yaml-non-scalar-key.yaml"
expect 2 ":1: not UTF-8 text (byte 9 of the file)" -- run "$d/07-exit1-non-utf8-name.yaml"
cat > "$tmp/cfg.json" <<'J'
{"hidden_size": 256, "num_hidden_layers": 4, "intermediate_size": 688, "num_attention_heads": 8,
 "vocab_size": 1000, "tie_word_embeddings": "yes"}
J
printf 'model: {hf_config: cfg.json}\ntraining: {seq_len: 512, global_batch_size: 8}\ncluster: {gpu: h100-sxm, gpus_per_node: 1}\n' >"$tmp/hf.yaml"
expect 2 "hf.yaml:1: model.hf_config: .*cfg.json: \"tie_word_embeddings\" must be true or false, got \"yes\"" -- run "$tmp/hf.yaml"
cat > "$tmp/typed.json" <<'J'
{"format": "trainsim-calibration", "version": 1,
 "gemm": [{"m": 4096, "n": 4096, "k": 4096, "time_s": 1e-4, "spread_s": "x"}]}
J
cp "$src/scenarios/default.yaml" "$tmp/typed.yaml"
echo "calibration: typed.json" >>"$tmp/typed.yaml"
expect 2 "typed.json: gemm\[0\].spread_s: expected a number >= 0, got \"x\"" -- run "$tmp/typed.yaml"
expect 2 ":6: calibration: \".*\" is a directory, expected a JSON profile file" -- run "$d/11-exit1-calibration-is-directory.yaml"
expect 2 "13-exit1-csv-no-actions.csv: no actions" -- t "$bin" schedule --csv "$d/13-exit1-csv-no-actions.csv"

# Unbounded memory or time.
expect 2 ":4: training.microbatches: expected an integer in \[1, 65536\], got 1000000000" -- run "$d/15-exit1-bad-alloc-microbatches-1e9.yaml"
expect 2 "scenario /dev/zero: is a character device, expected a file" -- t "$bin" run /dev/zero
expect 2 "/dev/zero: is a character device, expected a file" -- t "$bin" schedule --csv /dev/zero
mkfifo "$tmp/fifo.yaml"
expect 2 "fifo.yaml: is a FIFO, expected a file" -- t "$bin" run "$tmp/fifo.yaml"
expect 2 "past the limit of 4194304 (2^22)" -- t "$bin" schedule --pp 20000 -m 20000
expect 2 "past the limit of 4194304 (2^22)" -- t "$bin" schedule --pp 1 -m 65536 --vpp 128 -s interleaved-1f1b
expect 2 "\-\-width: Value 1000000000 not in range 10 to 1000" -- t "$bin" schedule --pp 4 -m 8 --timeline --width 1000000000
expect 2 "\-\-width: Value -5 not in range 10 to 1000" -- t "$bin" schedule --pp 4 -m 8 --timeline --width -5
expect 0 "a grid of 300 ranks × 1798 steps is too large to print" -- t "$bin" schedule --pp 300 -m 600
# 17: pp 65,536 is past the 16,384-stage limit (scenarios/README.md); pp 16,384 runs, in linear
# time (validation, zb-auto's estimator, lowering and the memory report are O(actions)).
expect 2 ":3: parallelism.pp: pp × vpp = 65536 × 1 stages exceed the limit of 16384" -- run "$d/17-slow-pp-65536.yaml"
expect 0 '"step_time_s"' -- run "$d/17-slow-pp-65536.yaml" --set parallelism.pp=16384

# Silent garbage.
expect 2 ":7: cluster.gpu.memory: \"1e308TB\" is too large: at most 1EB" -- run "$d/18-garbage-inf-quantities.yaml"
expect 2 ":4: duplicate key \"pp\" (first on line 3)" -- run "$d/20-silent-duplicate-key.yaml"
expect 2 "could not write\|write failed: No space left on device" -- t "$bin" run "$src/scenarios/default.yaml" --trace /dev/full
[ -c /dev/full ] || { echo "FAIL: /dev/full is no longer a device"; fail=1; }
sed 's/^name: .*/name: ..\/..\/escaped/' "$src/scenarios/default.yaml" >"$tmp/escape.yaml"
mkdir -p "$tmp/a/b"
expect 0 "escaped.1f1b.json" -- t "$bin" compare "$tmp/escape.yaml" --schedules 1f1b --trace-dir "$tmp/a/b/tr"
[ -f "$tmp/a/b/tr/escaped.1f1b.json" ] || { echo "FAIL: the trace left --trace-dir"; fail=1; }
[ -e "$tmp/a/escaped.1f1b.json" ] && { echo "FAIL: the trace escaped --trace-dir"; fail=1; }
expect 2 "schedule CSV /dev/full: write failed" -- t "$bin" schedule --pp 4 -m 8 --export-csv /dev/full
expect 2 "is a directory, expected a file name" -- t "$bin" schedule --pp 4 -m 8 --export-csv "$tmp"

# --set mistakes name the --set, not the scenario file.
expect 2 "ScenarioError: --set a.b.c=1: a: unknown key \"a\"" -- run "$src/scenarios/default.yaml" --set a.b.c=1
expect 2 "ScenarioError: --set parallelism.=4: parallelism.: empty key in path" -- run "$src/scenarios/default.yaml" --set parallelism.=4
expect 2 "ScenarioError: --set slowdown=.*slowdown\[0\].compute: expected a number in \[0.01, 100\], got \".nan\"" -- run "$src/scenarios/default.yaml" --set 'slowdown=[{rank: 0, compute: .nan}]'

# Found by the fuzzers (tests/fuzz): a stray ',' sent yaml-cpp 0.7's LoadAll into an endless,
# allocating loop; a number past double in a profile escaped as a JSON exception; a result that
# is not an object was read out of bounds.
expect 2 "fuzz-stray-comma.yaml:5: invalid YAML: a character out of place" -- run "$d/fuzz-stray-comma.yaml"
cp "$src/scenarios/default.yaml" "$tmp/overflow.yaml"
echo "calibration: $d/fuzz-profile-number-overflow.json" >>"$tmp/overflow.yaml"
expect 2 "fuzz-profile-number-overflow.json: not JSON: .*number overflow" -- run "$tmp/overflow.yaml"

# Found by a fuzzing pass over every key and subcommand (session 51): an alias bomb walked
# expanded (nine lines took 39 s, these twelve would not end); a rank slowed twelve times
# overflowed a duration (exit 1); files named by a key refused without the key; a --set of a
# schedule option blamed on the file; "nan" passed a percentage gate; another GPU's profile.
expect 2 "32-hang-yaml-alias-expansion.yaml:2: a0: unknown key \"a0\"" -- run "$d/32-hang-yaml-alias-expansion.yaml"
expect 2 ":6: slowdown\[0\].ranks\[1\]: rank 0 is listed twice" -- run "$d/31-exit1-slowdown-repeated-rank.yaml"
expect 2 "--set slowdown=.*: slowdown\[1\].ranks\[0\]: rank 0 is already slowed by slowdown\[0\]" -- run "$d/31-exit1-slowdown-repeated-rank.yaml" --set 'slowdown=[{rank: 0, compute: 100}, {ranks: [0], compute: 100}]'
expect 2 "ScheduleError: --set schedule.name=foo: schedule: unknown schedule \"foo\"" -- run "$src/scenarios/default.yaml" --set schedule.name=foo
cp "$src/scenarios/default.yaml" "$tmp/csv.yaml"
echo "schedule: {csv: missing.csv}" >>"$tmp/csv.yaml"
sed -i '/^schedule: 1f1b$/d' "$tmp/csv.yaml"
expect 2 "csv.yaml:[0-9]*: schedule.csv: schedule CSV .*missing.csv: cannot open" -- run "$tmp/csv.yaml"
echo "not json" >"$tmp/garbage.json"
cp "$src/scenarios/default.yaml" "$tmp/garbage.yaml"
echo "calibration: garbage.json" >>"$tmp/garbage.yaml"
expect 2 "garbage.yaml:[0-9]*: calibration: .*garbage.json: not JSON" -- run "$tmp/garbage.yaml"
echo '{"format": "trainsim-calibration", "version": 1, "provenance": {"device": "NVIDIA H200"}}' >"$tmp/h200.json"
cp "$src/scenarios/default.yaml" "$tmp/h200.yaml"
echo "calibration: h200.json" >>"$tmp/h200.yaml"
expect 2 "calibration: .*h200.json was measured on \"NVIDIA H200\", the scenario's GPU is h100-sxm (cluster.gpu; H200 against H100)" -- run "$tmp/h200.yaml"
printf 'name: x\nslowdown: %s\n' "$(printf '[%.0s' $(seq 3000))" >"$tmp/deep.yaml"
expect 2 "deep.yaml:[0-9]*: invalid YAML: lists or maps nested too deep for the parser" -- run "$tmp/deep.yaml"
expect 2 "\-\-schedule: expected a schedule name, got nothing" -- run "$src/scenarios/default.yaml" --schedule ""
expect 2 "\-\-min-ordered-pairs: expected a percentage from 0 to 100, got nan" -- t "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --min-ordered-pairs nan
expect 2 "\-\-max-mean-change-error: expected a percentage" -- t "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --max-mean-change-error nan

# 30: a valid layout with 26,936 layers runs (it once reported a spurious deadlock).
expect 0 '"step_time_s"' -- run "$d/30-spurious-deadlock-26936-layers.yaml"

# nccl-tests imports: a failed measurement is refused with its line, not written as a profile
# that cannot be read back.
if [ "$calib" != none ]; then
  expect 2 "config.devices: expected a list of devices, got 5" -- t "$calib" import-nccl-tests "$d/10-exit1-nccl-json-devices-number.json" --out "$tmp/p.json"
  expect 2 "21-nccl-inf-time-unreadable-profile.log:18: time (us) is inf: expected a finite number" -- t "$calib" import-nccl-tests "$d/21-nccl-inf-time-unreadable-profile.log" --out "$tmp/p.json"
  expect 2 "22-nccl-nan-bw-profile-exit1.log:18: algbw is nan: expected a finite number" -- t "$calib" import-nccl-tests "$d/22-nccl-nan-bw-profile-exit1.log" --out "$tmp/p.json"
  expect 2 "results\[0\]: expected size and out_of_place.time" -- t "$calib" import-nccl-tests "$d/fuzz-nccl-results-not-object.json" --out "$tmp/p.json"
  [ -e "$tmp/p.json" ] && { echo "FAIL: a refused import wrote a profile"; fail=1; }
  expect 2 "nccl-tests log /dev/zero: is a character device, expected a file" -- t "$calib" import-nccl-tests /dev/zero --out "$tmp/p.json"
fi

exit $fail
