#!/usr/bin/env bash
# CLI exit codes and messages: 0 ok, 2 bad input (message on stderr, no output files), 1 internal.
set -u
bin=$1
src=$2
png=${3:-0}  # 1: built with --plot .png (Qt6)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
source "$(dirname "$0")/expect.sh"
expect 0 "trainsim" -- "$bin" --version
expect 0 "compare" -- "$bin" --help
expect 0 "OUTPUT BREAKDOWN" -- "$bin" run "$src/scenarios/default.yaml"
expect 0 '"step_time_s"' -- "$bin" run "$src/scenarios/default.yaml" --json
expect 0 "rank  3 | .  .  .  F0 B0" -- "$bin" schedule --pp 4 --microbatches 8 --schedule 1f1b
expect 0 "gpipe" -- "$bin" schedule --list
expect 2 "--trace: expected a file path, got nothing" -- "$bin" run "$src/scenarios/default.yaml" --trace ''
expect 2 "--trace-dir: expected a file path, got nothing" -- "$bin" compare "$src/scenarios/default.yaml" --trace-dir ''
expect 2 "--trace: expected a file path, got - (the standard output carries the report" -- "$bin" run "$src/scenarios/default.yaml" --trace -
# A scenario's own schedule: its pp 4 and 32 micro-batches (scenarios/default.yaml), -s for another,
# --set to change the layout; the flags that describe a pipeline without one are refused beside it.
expect 0 "1f1b: pp = 4, m = 32, vpp = 1" -- "$bin" schedule "$src/scenarios/default.yaml"
expect 0 "zb-h1: pp = 4, m = 32" -- "$bin" schedule "$src/scenarios/default.yaml" -s zb-h1
expect 0 "default.yaml: its pipeline under -s" -- "$bin" schedule "$src/scenarios/default.yaml" -s zb-h1
expect 0 "1f1b: pp = 8, m = 64" -- "$bin" schedule "$src/scenarios/default.yaml" --set parallelism.pp=8 --set parallelism.dp=1
expect 0 "step 3.887 s, bubble 0.0857" -- "$bin" schedule "$src/scenarios/default.yaml" --timeline
expect 2 "^--pp, --microbatches: with a scenario, the pipeline is the scenario's: change it with --set" -- "$bin" schedule "$src/scenarios/default.yaml" --pp 8 -m 4
expect 2 "--set edits a scenario's keys: give the scenario file first" -- "$bin" schedule --set parallelism.pp=2
"$bin" schedule --pp 4 -m 8 --export-csv "$tmp/s.csv" >/dev/null
expect 2 "^--pp: --csv .* is a whole schedule, its ranks, micro-batches and chunks its own: leave it out" -- "$bin" schedule --csv "$tmp/s.csv" --pp 8
expect 0 "cells: F forward, B backward" -- "$bin" schedule --pp 4 -m 8 -s zb-h1
expect 0 "8 model stages on 4 ranks: the stage first, 0F3 is stage 0's forward of micro-batch 3" -- "$bin" schedule --pp 4 -m 8 --vpp 2 -s interleaved-1f1b
# DualPipe's second pipeline: stages 4–7 run model stages 0–3 again, for micro-batches 4–7.
expect 0 "stages 4–7 are the second pipeline's copies of model stages 0–3 (stage s runs model stage s − 4), micro-batches 4–7" -- "$bin" schedule --pp 4 -m 8 -s dualpipe
expect 2 "parallelism.pp: expected an integer in \\[1, 1048576\\], got 0" -- "$bin" run "$src/scenarios/default.yaml" --set parallelism.pp=0 --trace "$tmp/bad.json"
[ -e "$tmp/bad.json" ] && { echo "FAIL: a failed run left a trace file"; fail=1; }
expect 2 "unknown schedule" -- "$bin" run "$src/scenarios/default.yaml" --schedule nope
# a schedule that does not take the scenario's chunks per rank names the key that sets them
expect 2 "it needs vpp = 2, got vpp = 1 (parallelism.vpp sets the chunks per rank: --set parallelism.vpp=2 runs zb-v)" -- "$bin" run "$src/scenarios/default.yaml" --schedule zb-v
expect 0 "for a row marked (vpp N), add --set parallelism.vpp=N" -- "$bin" compare "$src/scenarios/default.yaml"
# ZB-H2 with fewer micro-batches than its 2p − 1 warm-up (pp 8, m 8): said under the table.
expect 0 "note zb-h2: 8 micro-batches, fewer than the 15 it is designed for at pp 8" -- "$bin" compare "$src/scenarios/default.yaml" --set parallelism.pp=8 --set parallelism.dp=1 --set training.global_batch_size=8 --schedules zb-h1,zb-h2
# compare --json: "schedule" the registered name (as run --json), "label" the table's row name
expect 0 '"label": "zb-v (vpp 2)"' -- "$bin" compare "$src/scenarios/default.yaml" --json --schedules zb-v
expect 0 '"schedule": "zb-v"' -- "$bin" compare "$src/scenarios/default.yaml" --json --schedules zb-v
expect 0 '"retried": true' -- "$bin" compare "$src/scenarios/default.yaml" --json --schedules zb-v
# --schedule (run's singular) is --schedules on compare
expect 0 "^1f1b " -- "$bin" compare "$src/scenarios/default.yaml" --schedule 1f1b
expect 0 "step time" -- "$bin" run "$src/scenarios/default.yaml" --schedule zb-v --set parallelism.vpp=2
expect 2 "A subcommand is required" -- "$bin"
expect 2 "cluster.gpu_speed_spread: expected a number in \\[0, 0.2\\] or a percentage, 0–20%, got \"0.3\"" -- "$bin" run "$src/scenarios/default.yaml" --set cluster.gpu_speed_spread=0.3
expect 2 "unknown schedule" -- "$bin" compare "$src/scenarios/default.yaml" --schedules 1f1b,nope
expect 2 "does not exist" -- "$bin" run /no/such/file.yaml
expect 2 "required" -- "$bin" run
expect 0 "trace written" -- "$bin" compare "$src/scenarios/default.yaml" --trace-dir "$tmp/traces"
ls "$tmp/traces"/*.json >/dev/null || { echo "FAIL: compare wrote no traces"; fail=1; }
expect 0 "wrote" -- "$bin" schedule --pp 4 -m 8 --vpp 2 -s interleaved-1f1b --export-csv "$tmp/s.csv"
expect 0 "rank  3" -- "$bin" schedule --csv "$tmp/s.csv"
printf '0F0,0B0\n1B0,1F0\n' > "$tmp/bad.csv"
expect 2 "1B0 comes before 1F0" -- "$bin" schedule --csv "$tmp/bad.csv"
expect 0 "rank   3 |" -- "$bin" schedule --pp 4 -m 8 --timeline --width 60
expect 0 "bubble" -- "$bin" schedule --pp 4 -m 8 --timeline --backward-input 1ms --backward-weight 1ms
expect 2 "go together: give both" -- "$bin" schedule --pp 4 -m 8 --timeline --backward-input 1ms
expect 0 "zb-h1 splits the backward: input and weight gradients 1.000 ms each" -- "$bin" schedule --pp 4 -m 8 -s zb-h1 --timeline
expect 2 "--forward 1: \"1\" has no unit" -- "$bin" schedule --pp 4 -m 8 --timeline --forward 1
# A pass of no time draws nothing; a value out of range is named by its flag, not by the
# --set edit the command makes of it.
expect 2 "--forward 0ms: a pass takes time: give more than 0" -- "$bin" schedule --pp 4 -m 8 --timeline --forward 0ms
expect 2 "ScenarioError: --p2p 1e300s: costs.p2p: \"1e300s\" is too large" -- "$bin" schedule --pp 4 -m 8 --timeline --p2p 1e300s
expect 2 "--pp: must be 1 or more, got 0" -- "$bin" schedule --pp 0
expect 2 "--pp: expected a whole number ≥ 1, got 1e3" -- "$bin" schedule --pp 1e3
expect 2 "--max-mean-error: expected a percentage ≥ 0 (5 or 5% for 5 %), got -1" -- "$bin" check --max-mean-error -1 "$src/scenarios/llama3-405b-16k.yaml"
# A bound reads 5 and 5% alike (every other share of the CLI takes the sign).
expect 3 "exceeds --max-mean-error 1%" -- "$bin" check --max-mean-error 1% "$src/scenarios/llama3-405b-16k.yaml"
expect 0 "OUT OF MEMORY: stage 3" -- "$bin" memory "$src/scenarios/default.yaml" --schedule afab
expect 0 '"out_of_memory"' -- "$bin" memory "$src/scenarios/default.yaml" --json
expect 0 '"memory"' -- "$bin" run "$src/scenarios/default.yaml" --json
expect 2 "memory needs a model" -- "$bin" memory "$src/scenarios/paper-1f1b.yaml"
expect 2 "memory.bucket_size" -- "$bin" run "$src/scenarios/default.yaml" --set memory.bucket_size=0MB
expect 0 "zb-auto" -- "$bin" schedule --pp 4 -m 8 -s zb-auto -o memory_limit=5
expect 2 "expected KEY=VALUE" -- "$bin" schedule --pp 4 -m 8 -s zb-auto -o memory_limit
expect 2 "needs memory_limit >= 1" -- "$bin" schedule --pp 4 -m 8 -s zb-auto -o memory_limit=0
expect 0 "OVERLAP_F_B" -- sh -c "\"$bin\" schedule --pp 2 -m 4 --vpp 2 -s dualpipe-v --export-csv \"$tmp/d.csv\" >/dev/null && cat \"$tmp/d.csv\""
expect 3 "exceeds --max-mean-memory-error 1%" -- "$bin" check "$src/tests/published/mlperf-v50-llama31-405b-h100-512gpu.yaml" --max-mean-memory-error 1
expect 3 "needs a case with measured.peak_memory" -- "$bin" check "$src/tests/published/mpt-1b-h100-8gpu-s2048.yaml" --max-mean-memory-error 5
expect 0 "129 layouts: 126 fit (6 tight), 3 out of memory (3 of them ruled out before simulating)" -- "$bin" search "$src/scenarios/default.yaml"
expect 0 "10 layouts: 9 fit (2 tight), 1 out of memory" -- "$bin" search "$src/scenarios/default.yaml" --zero 0 --sp off --recompute none
expect 0 "rank,dp,tp,pp" -- "$bin" search "$src/scenarios/default.yaml" --tp 2 --csv
expect 0 "kept free" -- "$bin" search "$src/scenarios/default.yaml" --headroom 10% -j 1
expect 0 "1 case · mean |error|" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml"
expect 0 "| case | GPUs |" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --markdown
expect 0 '"mean_abs_error"' -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --json
# Runs on two GPU presets (H100, H800): the summary per preset follows the overall one.
expect 0 "by GPU" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" "$src/scenarios/deepseek-v3-2048.yaml"
expect 3 "exceeds --max-error 0.01%" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --max-error 0.01
# Two runs of one series (measured.series): the layout ranking under the errors, its bound.
expect 0 "1 of 1 pairs ordered right (100.0%)" -- "$bin" check "$src/tests/published/flagperf-llama2-70b-h800-tp4pp8.yaml" "$src/tests/published/flagperf-llama2-70b-h800-tp8pp4.yaml" --min-ordered-pairs 100
expect 3 "needs a pair to order" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --min-ordered-pairs 50
# The same pair is a setting change (tp 4 → 8, pp 8 → 4): measured +23.3 % (791.37 → 641.93
# tokens/s/GPU: 1.2328), predicted +19.3 % (1.1925), off by 4.03 points; its bound.
h800="$src/tests/published/flagperf-llama2-70b-h800-tp4pp8.yaml $src/tests/published/flagperf-llama2-70b-h800-tp8pp4.yaml"
# shellcheck disable=SC2086 # two files
expect 0 "parallelism.tp 4 → 8, parallelism.pp 8 → 4): measured +23.3%, predicted +19.3%" -- "$bin" check $h800 --max-mean-change-error 4.1
# shellcheck disable=SC2086
expect 0 '"measured_cost_ratio"' -- "$bin" check $h800 --json
# shellcheck disable=SC2086
expect 3 "off the measured ones by a mean 4.03 points, past --max-mean-change-error 4" -- "$bin" check $h800 --max-mean-change-error 4
expect 3 "needs a setting change" -- "$bin" check "$src/scenarios/llama3-405b-16k.yaml" --max-mean-change-error 50
# --set applies to every scenario checked: its prediction is `run --set`'s, and it moves.
mpt=$src/tests/published/mpt-13b-h100-64gpu-s2048.yaml
even=$("$bin" run "$mpt" --set cluster.gpu_speed_spread=0 | sed -n 's/^throughput *\([0-9,]*\) tokens.*/\1/p')
paced=$("$bin" run "$mpt" | sed -n 's/^throughput *\([0-9,]*\) tokens.*/\1/p')
[ -n "$even" ] && [ "$even" != "$paced" ] || { echo "FAIL: the spread did not move MPT-13B's throughput ($even, $paced)"; fail=1; }
expect 0 " $even tokens/s" -- "$bin" check "$mpt" --set cluster.gpu_speed_spread=0
expect 0 " $paced tokens/s" -- "$bin" check "$mpt"
expect 2 "--set excludes --validation-inc" -- "$bin" check "$mpt" --set cluster.gpu_speed_spread=0 --validation-inc
expect 2 "cluster.nope: unknown key" -- "$bin" check "$mpt" --set cluster.nope=1
# --set takes one value: the files after it are still the scenarios.
expect 0 "2 cases · mean" -- "$bin" check --set cluster.gpu_speed_spread=0 "$mpt" "$src/tests/published/mpt-7b-h100-8gpu-s2048.yaml"
expect 0 "dp 4 · tp 1 · pp 2" -- "$bin" compare --set parallelism.pp=2 --set parallelism.dp=4 "$src/scenarios/default.yaml" "$src/scenarios/default.yaml"
# A pair ordered wrong: tp 8 · pp 4 given a measured 900 tokens/s/GPU (published: 641.93), faster
# than tp 4 · pp 8's 791, while predicted slower: 0 of 1, below the bound.
sed 's/tokens_per_s_per_gpu: 641.93$/tokens_per_s_per_gpu: 900/' \
  "$src/tests/published/flagperf-llama2-70b-h800-tp8pp4.yaml" > "$tmp/tp8pp4-faster.yaml"
expect 3 "0 of 1 pairs ordered right (0.0%), below --min-ordered-pairs 50%" -- "$bin" check "$src/tests/published/flagperf-llama2-70b-h800-tp4pp8.yaml" "$tmp/tp8pp4-faster.yaml" --min-ordered-pairs 50
expect 2 "give the series a name" -- "$bin" run "$src/scenarios/llama3-405b-16k.yaml" --set "measured.series=''"
expect 0 "attention.backward" -- "$bin" kernels "$src/scenarios/default.yaml"
expect 0 '"passes"' -- "$bin" kernels "$src/scenarios/default.yaml" --json
expect 2 "--stage 9 is out of range: this layout has stages 0 … 3" -- "$bin" kernels "$src/scenarios/default.yaml" --stage 9
expect 2 "kernels needs a model" -- "$bin" kernels "$src/scenarios/paper-1f1b.yaml"
expect 2 "check needs a measured: section" -- "$bin" check "$src/scenarios/default.yaml"
expect 0 "measured             400.0 TFLOP/s/GPU" -- "$bin" run "$src/scenarios/llama3-405b-16k.yaml"
expect 0 '"peak_memory_bytes"' -- "$bin" search "$src/scenarios/default.yaml" --tp 2 --json
expect 0 "OOM" -- "$bin" compare "$src/scenarios/default.yaml" --schedules afab,1f1b
# An explicit list: each schedule runs at a vpp it takes, or is a skipped row; none running is exit 2.
expect 0 "interleaved-1f1b (vpp 2)" -- "$bin" compare "$src/scenarios/default.yaml" --schedules 1f1b,interleaved-1f1b
expect 0 "skipped zb-h1: ScenarioError" -- "$bin" compare "$src/scenarios/paper-1f1b.yaml" --schedules 1f1b,zb-h1
expect 2 "no schedule can run this scenario" -- "$bin" compare "$src/scenarios/paper-1f1b.yaml" --schedules zb-h1
# Several scenarios (A/B): each under its own schedule, a header line each; with --schedules, each
# under each of them.
expect 0 "paper-1f1b · 1f1b .* 34.600 ms" -- "$bin" compare "$src/scenarios/default.yaml" "$src/scenarios/paper-1f1b.yaml"
grep -q "^  llama8b-h100x8-pp4 · 1f1b: 8 GPUs" "$tmp/out" || { echo "FAIL: compare A B has no header per scenario"; fail=1; }
# --vary: edits of one scenario, one row per combination; a layout that cannot run is a skipped
# row, a value its key's rule refuses (or a key given twice) is bad input
expect 0 "parallelism.zero=1, training.recompute=full · 1f1b " -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.zero=0,1 --vary training.recompute=none,full
expect 0 "skipped parallelism.pp=3 · 1f1b: ScenarioError: --vary parallelism.pp=3: parallelism.pp: dp × tp × pp = 2 × 1 × 3 = 6 must equal the GPU count" -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.pp=4,3
expect 2 "none of these variants can run" -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.pp=3
expect 2 "--vary parallelism.zero=7: parallelism.zero: expected an integer in \\[0, 3\\], got 7" -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.zero=1,7
expect 2 "training.recompute: expected one of none, selective, full, got \"ful\"" -- "$bin" compare "$src/scenarios/default.yaml" --vary training.recompute=none,ful
expect 2 "parallelism.zero is already varied by --vary parallelism.zero=1" -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.zero=1 --vary parallelism.zero=2
expect 2 "expected key.path=v1,v2" -- "$bin" compare "$src/scenarios/default.yaml" --vary parallelism.zero
expect 2 "--vary edits one scenario" -- "$bin" compare "$src/scenarios/default.yaml" "$src/scenarios/default.yaml" --vary parallelism.zero=1
expect 0 "paper-1f1b · gpipe" -- "$bin" compare "$src/scenarios/default.yaml" "$src/scenarios/paper-1f1b.yaml" --schedules 1f1b,gpipe
expect 2 "does not exist" -- "$bin" compare "$src/scenarios/default.yaml" /no/such.yaml
expect 2 "search needs a model" -- "$bin" search "$src/scenarios/paper-1f1b.yaml"
expect 2 "--tp must be 1 or more" -- "$bin" search "$src/scenarios/default.yaml" --tp 0
expect 2 "unknown schedule" -- "$bin" search "$src/scenarios/default.yaml" --schedules nope
expect 2 "--zero takes 0 to 3, got 5" -- "$bin" search "$src/scenarios/default.yaml" --zero 1,5
expect 2 "--sp takes off, on" -- "$bin" search "$src/scenarios/default.yaml" --sp maybe
expect 2 "--tp-overlap takes off, on" -- "$bin" search "$src/scenarios/default.yaml" --tp-overlap yes
expect 2 "--recompute takes none, selective, full or a number" -- "$bin" search "$src/scenarios/default.yaml" --recompute some
expect 2 "--recompute takes none, selective, full or a number" -- "$bin" search "$src/scenarios/default.yaml" --recompute 0
expect 2 "--etp takes tp (each expert split over the TP ranks) or 1" -- "$bin" search "$src/scenarios/mixtral-8x7b.yaml" --etp 2
expect 0 "4 layers" -- "$bin" search "$src/scenarios/default.yaml" --zero 1 --sp off --recompute 4 --pp 1
expect 2 "training.recompute_layers: only applies to recompute: full" -- "$bin" run "$src/scenarios/default.yaml" --set training.recompute_layers=2
expect 2 "--headroom takes a percent" -- "$bin" search "$src/scenarios/default.yaml" --headroom 95%
expect 2 "--headroom takes a percent" -- "$bin" search "$src/scenarios/default.yaml" --headroom ten
# A --set path found neither beside the scenario nor from here names both places.
expect 2 "calibration: no such file in the scenario's folder (.*scenarios/nonexist.json) nor in the current folder (nonexist.json)" -- "$bin" run "$src/scenarios/default.yaml" --set calibration=nonexist.json
# No training section: what it needs, micro_batch_size not among it (it defaults to 1).
printf 'model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {dp: 8}\n' >"$tmp/notrain.yaml"
expect 2 "training: required: {seq_len, global_batch_size} (micro_batch_size defaults to 1)" -- "$bin" run "$tmp/notrain.yaml"
# A percent, as check's bounds: 0.1 is 0.1 %, and says so, in case a share was meant.
expect 0 "keeps 0.1 % of device memory free (a percent" -- "$bin" search "$src/scenarios/default.yaml" --headroom 0.1 -j 1
expect 2 "jobs" -- "$bin" search "$src/scenarios/default.yaml" --jobs -1
expect 2 "excludes" -- "$bin" search "$src/scenarios/default.yaml" --json --csv
expect 2 "--plot writes SVG or PNG" -- "$bin" search "$src/scenarios/default.yaml" --plot "$tmp/p.gif"
[ -e "$tmp/p.gif" ] && { echo "FAIL: a refused --plot left a file"; fail=1; }
# Under mpirun (a build with MPI): the layouts split over the processes, rank 0 prints exactly
# what one process prints; other commands and bad input say why in one message, exit 2.
mpi_search_checks() {
  local run_mpi=(mpirun --oversubscribe -np 3 -x "ASAN_OPTIONS=detect_leaks=0")  # Open MPI's own leaks
  [ "$(id -u)" = 0 ] && run_mpi+=(--allow-run-as-root)
  # Open MPI wants an ssh or rsh on the PATH even for one node; a bare container has neither.
  command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm_rsh_agent=
  if ! timeout 60 "${run_mpi[@]}" true >"$tmp/probe" 2>&1; then
    echo "note: mpirun cannot start processes here; MPI search not checked:"; cat "$tmp/probe"
    return
  fi
  local args=(search "$src/scenarios/default.yaml" --zero 0,1 --recompute none,full --json)
  "$bin" "${args[@]}" >"$tmp/one.json" 2>/dev/null
  expect 0 "split over 3 MPI processes" -- timeout 300 "${run_mpi[@]}" "$bin" "${args[@]}"
  cmp -s "$tmp/one.json" "$tmp/out" || { echo "FAIL: mpirun search differs from one process"; fail=1; }
  expect 2 "only \`trainsim search\` splits" -- timeout 120 "${run_mpi[@]}" "$bin" run "$src/scenarios/default.yaml"
  expect 2 "parallelism.pp: expected an integer" -- timeout 120 "${run_mpi[@]}" "$bin" search "$src/scenarios/default.yaml" --set parallelism.pp=0
  [ "$(grep -c "parallelism.pp: expected" "$tmp/err")" = 1 ] || { echo "FAIL: more than rank 0 printed the error"; fail=1; }
}
if "$bin" search --help | grep -q "under mpirun" && command -v mpirun >/dev/null; then
  mpi_search_checks
fi
if [ "$png" = 1 ]; then  # built with Qt: a PNG file (its 8-byte signature), no Qt chatter
  expect 0 "plot written to" -- "$bin" search "$src/scenarios/default.yaml" --tp 1 --plot "$tmp/p.png"
  [ "$(head -c 8 "$tmp/p.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
    { echo "FAIL: --plot p.png is not a PNG"; fail=1; }
  grep -q "QStandardPaths\|qt\.qpa" "$tmp/err" && { echo "FAIL: Qt's remarks on stderr"; fail=1; }
else
  expect 2 "built without Qt6" -- "$bin" search "$src/scenarios/default.yaml" --plot "$tmp/p.png"
fi
expect 0 "plot written to" -- "$bin" search "$src/scenarios/default.yaml" --tp 1 --plot "$tmp/p.svg"
grep -q "</svg>" "$tmp/p.svg" || { echo "FAIL: --plot wrote no SVG"; fail=1; }
# trainsim diff: a real trace beside the default scenario; traces it cannot use, exit 2.
k="$src/tests/data/kineto"
expect 0 "largest differences" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz"
expect 0 '"communication_exposed"' -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --json
expect 0 "ProfilerStep#6" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --step 6
expect 2 "step: expected a step .12 or ProfilerStep#12. or a window .1.2s..1.9s., got nothing" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --step ""
expect 2 "no such step; the trace has ProfilerStep#4, ProfilerStep#5, ProfilerStep#6" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --step 9
expect 0 "window 0 ns..50.000 ms" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --step 0s..50ms
expect 2 "the window's end must come after its start" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" --step 5s..4s
expect 2 "no GPU kernels" -- "$bin" diff "$src/scenarios/default.yaml" "$k/cpu_only_rank-34.json.gz"
expect 2 "both are rank 0" -- "$bin" diff "$src/scenarios/default.yaml" "$k/nccl_data.json.gz" "$k/sampled_rank-0.json.gz"
# --kernels: each compute category's measured families and predicted kernels, --top of each.
ref="$src/calibrate/reference/mpt-125m-1gpu.yaml"
expect 0 "vectorized_elementwise_kernel<GeluBackwardCUDAKernelImpl>" -- "$bin" diff "$ref" "$k/h200-mpt125m.json.gz" --kernels
expect 0 "… 35 more" -- "$bin" diff "$ref" "$k/h200-mpt125m.json.gz" --kernels --top 3
"$bin" diff "$ref" "$k/h200-mpt125m.json.gz" | grep -q "kernels by category" &&
  { echo "FAIL: diff lists kernels without --kernels"; fail=1; }
expect 2 "--top" -- "$bin" diff "$ref" "$k/h200-mpt125m.json.gz" --kernels --top 0
expect 2 "--kernels" -- "$bin" diff "$ref" "$k/h200-mpt125m.json.gz" --top 3
head -c 5000 "$src/scenarios/default.yaml" > "$tmp/notrace.json"
expect 2 "not a readable trace" -- "$bin" diff "$src/scenarios/default.yaml" "$tmp/notrace.json"
# The arguments swapped: said as such, not "not UTF-8 text" of a trace read as a scenario.
expect 2 "takes the scenario first, then the traces" -- "$bin" diff "$k/nccl_data.json.gz" "$src/scenarios/default.yaml"
if [ $fail = 0 ]; then echo "cli: all checks passed"; fi
exit $fail
