#!/usr/bin/env python3
"""Scenario files for the Ultra-Scale Playbook's measured runs (tests/published/README.md).

ultrascale-playbook-runs.csv holds every point of the Playbook's interactive benchmark plot
(Hugging Face, "The Ultra-Scale Playbook", 2025: assets/data/benchmarks/benchmarks_interactive.html,
read from its hover texts as mirrored in vinjn/nanotron-ultrascale-playbook@924e4d0b), with the
model shapes of huggingface/nanotron scripts/scaling_benchmarks.py@e24d2483.

  ultrascale_playbook.py suite DIR   the suite's cases: each model's fastest measured layout on
                                     1, 2, 4 and 8 nodes (the Playbook's heatmap cells)
  ultrascale_playbook.py sweep DIR   every measured layout (1,551 files), for analysis only
  ultrascale_playbook.py memory DIR [TRAINSIM]
                                     trainsim's memory peak over the plotted GPU memory (nanotron's
                                     max_memory_reserved, GiB) for sweep DIR's files: the median,
                                     10th and 90th percentiles, overall and by layout
  ultrascale_playbook.py fits DIR [TRAINSIM]
                                     writes a file for every layout of 256 sequences, crashed ones
                                     too (without a measured figure), into DIR and counts, for the
                                     runs that ran and those that crashed, how many trainsim puts
                                     out of memory, tight (past the allocator's usable share) or
                                     within it
  ultrascale_playbook.py repeats     the data's own consistency, no trainsim: the layouts measured
                                     twice (the same nodes, dp, tp, pp, micro-batch and accumulation,
                                     once at ZeRO-0 and once at ZeRO-1) and how far their two
                                     throughputs lie apart, by whether a pipeline crosses nodes
"""
import collections
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = ("The Ultra-Scale Playbook (Hugging Face, 2025), interactive benchmark plot "
          "assets/data/benchmarks/benchmarks_interactive.html (mirror vinjn/nanotron-ultrascale-playbook"
          "@924e4d0b), run {run}")
NAMES = {"1B": "1b", "3B": "3b", "8B": "8b", "80B": "80b"}


def nanotron_split(r):
    """Layers per stage as nanotron assigns its pipeline blocks (src/nanotron/models/base.py
    build_model): cumulative block cost against total·(rank+1)/pp, a decoder layer costing
    4·heads·d_qk·h + 3·ffn·h and the LM head vocab·h (llama.py get_block_compute_costs); None
    where the head would not land on the last stage or a middle stage would hold nothing."""
    pp, L = int(r["pp"]), int(r["layers"])
    h, heads, f, v = (int(r[k]) for k in ("hidden", "heads", "ffn", "vocab"))
    costs = [4 * heads * (h // heads) * h + 3 * f * h] * L + [v * h]
    total = sum(costs)
    rank, cum, per, head_rank = 0, 0, [0] * pp, None
    for i, c in enumerate(costs):
        cum += c
        if i < L:
            per[rank] += 1
        else:
            head_rank = rank
        if cum > total * (rank + 1) / pp:
            rank += 1
    if head_rank != pp - 1 or 0 in per[1:-1]:
        return None
    return per


def usable(r, statuses=("ok",)):
    if r["status"] not in statuses or not r["grad_accum"] or not r["micro_batch_size"]:
        return False
    dp, mb, ga = int(r["dp"]), int(r["micro_batch_size"]), int(r["grad_accum"])
    return dp * mb * ga == 256 and not (r["zero_stage"] == "1" and dp == 1)


def scenario(r, name, header):
    tp, pp = int(r["tp"]), int(r["pp"])
    split = ""
    if pp > 1:
        per = nanotron_split(r)
        if per is None:
            return None
        split = "\n  pipeline_split: {layers: [" + ", ".join(map(str, per)) + "]}"
    series = f"ultrascale-playbook-{NAMES[r['model']]}"
    # nanotron (trainer.py, helpers.py at e24d2483): with fp32 gradient accumulation, ZeRO-0 runs
    # under PyTorch DDP (dp > 1), whose hook adds each bucket into the fp32 buffer and
    # all-reduces it during the last backward, its buckets copies of the gradients; ZeRO-1 runs
    # without DDP and all-reduces the whole fp32 buffer once after the last backward.
    zero1 = r["zero_stage"] == "1"
    dp_sync = ("  overlap_grad_reduce: false\n  zero1_reduce: all-reduce" if zero1
               else "  overlap_grad_reduce: true")
    memory = "" if zero1 else "memory:\n  dp_buckets: copy\n"
    return f"""{header}name: {name}
model:
  layers: {r['layers']}
  hidden: {r['hidden']}
  ffn_hidden: {r['ffn']}
  heads: {r['heads']}
  kv_heads: {r['kv_heads']}
  vocab: {r['vocab']}
  mlp: swiglu
  norm: rmsnorm
  position_embedding: rope
  tied_embeddings: {str(r['tied_embeddings'] == 'True').lower()}
training:
  seq_len: 4096
  micro_batch_size: {r['micro_batch_size']}
  global_batch_size: 256
  precision: bf16
  optimizer: adamw
  recompute: none
  attention: flash2
  fp32_grad_accumulation: true
  runtime: eager
  eager_ops: swiglu,qkv_layout,gate_up_split
  unfused_loss: nanotron
cluster:
  gpu: h100-sxm
  gpus_per_node: 8
  nodes: {r['nodes']}
  network: efa-playbook
parallelism:
  dp: {r['dp']}
  tp: {tp}
  pp: {pp}
  zero: {r['zero_stage']}
  sequence_parallel: {str(tp > 1).lower()}
{dp_sync}{split}
{memory}schedule: 1f1b
measured:
  tokens_per_s_per_gpu: {r['tok_s_per_gpu']}
  source: "{SOURCE.format(run=r['run_id'])}: {r['tok_s_per_gpu']} tokens/s per GPU"
  series: {series}
"""


HEADER = """# The Ultra-Scale Playbook's {model} model (Llama-style: {layers} layers, hidden {hidden}, {heads} heads
# without grouped-query attention, FFN {ffn}, vocabulary {vocab}, {tied} embeddings) on {gpus} x H100 80GB
# ({nodes} node{s} of 8): dp {dp} · tp {tp} · pp {pp}, micro-batch {mb} x {ga} accumulation steps, ZeRO-{zero},
# 256 sequences of 4,096 tokens a step. The fastest of the Playbook's measured layouts of this model
# on {nodes} node{s} (its heatmap's cell). Measured: {tok} tokens/s per GPU (GPU memory {mem} GiB reserved).
# Source: run {run} of the Playbook's interactive benchmark plot; every setting and the stack:
# tests/published/README.md, "The Ultra-Scale Playbook". Written by ultrascale_playbook.py.
"""


def percentile(values, p):
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def memory(sweep_dir, trainsim):
    """Predicted peak over measured memory for each sweep file that trainsim reads."""
    rows = {r["run_id"]: r for r in csv.DictReader(open(os.path.join(HERE, "ultrascale-playbook-runs.csv")))}

    def peak(name):
        out = subprocess.run([trainsim, "memory", "--json", os.path.join(sweep_dir, name)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            return None
        return name[:-5], max(s["peak"]["bytes"] for s in json.loads(out.stdout)["stages"])

    names = sorted(f for f in os.listdir(sweep_dir) if f.endswith(".yaml"))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        peaks = [p for p in pool.map(peak, names) if p]
    groups = collections.defaultdict(list)
    over = 0
    for run, bytes_ in peaks:
        r = rows[run]
        measured = float(r["gpu_mem_GB"] or 0) * 1024**3  # nanotron logs GiB (helpers.py)
        if measured <= 0:
            continue
        ratio = bytes_ / measured
        layout = "tp {} · pp {} · dp {} · ZeRO-{}".format(
            ">1" if int(r["tp"]) > 1 else "1", ">1" if int(r["pp"]) > 1 else "1",
            ">1" if int(r["dp"]) > 1 else "1", r["zero_stage"])
        for key in ("all runs", layout) + (("over 60 GiB",) if measured > 60 * 1024**3 else ()):
            groups[key].append(ratio)
        over += bytes_ > 80 * 1024**3
    print(f"{len(peaks)} runs read; {over} predicted over 80 GiB")
    print("predicted peak / measured reserved: median (10th–90th percentile), runs")
    for key in sorted(groups, key=lambda k: (k != "all runs", k != "over 60 GiB", k)):
        v = groups[key]
        print(f"  {key:32} {statistics.median(v):.3f} ({percentile(v, .1):.3f}–{percentile(v, .9):.3f}), {len(v)}")


def fits(out, trainsim):
    """trainsim's memory verdict on every layout of 256 sequences, by what the sweep saw."""
    rows = [r for r in csv.DictReader(open(os.path.join(HERE, "ultrascale-playbook-runs.csv")))
            if usable(r, ("ok", "crashed_or_oom"))]
    os.makedirs(out, exist_ok=True)
    files = []
    for r in rows:
        text = scenario(r, r["run_id"], "")
        if text is None:
            continue
        if r["status"] != "ok":  # no measured figure: the scenario without its section
            text = text[:text.index("measured:\n")]
        path = os.path.join(out, r["run_id"] + ".yaml")
        with open(path, "w") as f:
            f.write(text)
        files.append((r, path))

    def verdict(item):
        r, path = item
        res = subprocess.run([trainsim, "memory", "--json", path], capture_output=True, text=True)
        if res.returncode != 0:
            return r["status"], "error"
        d = json.loads(res.stdout)
        return r["status"], ("out of memory" if d["out_of_memory"] else
                             "tight" if d["tight"] else "within")

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        counts = collections.Counter(pool.map(verdict, files))
    for status, label in (("ok", "ran"), ("crashed_or_oom", "crashed or out of memory")):
        n = sum(v for (s, _), v in counts.items() if s == status)
        parts = ", ".join(f"{counts[(status, k)]} {k}" for k in
                          ("out of memory", "tight", "within", "error") if counts[(status, k)])
        print(f"{n} layouts {label}: {parts}")


def repeats():
    """Layouts the campaign measured twice, the slower throughput's shortfall by group.

    ZeRO-1 against ZeRO-0 changes a step by one all-gather of the updated parameters (and, in
    nanotron, one all-reduce of the whole gradient buffer instead of DDP's buckets): a few
    percent, not a factor. Where the two runs of a layout lie further apart than that, at least
    one of them measured something other than the layout."""
    groups = collections.defaultdict(list)
    for r in csv.DictReader(open(os.path.join(HERE, "ultrascale-playbook-runs.csv"))):
        if r["status"] == "ok" and r["tok_s_per_gpu"]:
            key = tuple(r[k] for k in ("model", "nodes", "dp", "tp", "pp", "micro_batch_size", "grad_accum"))
            groups[key].append(float(r["tok_s_per_gpu"]))
    by = collections.defaultdict(list)
    for (model, nodes, dp, tp, pp, mb, ga), v in groups.items():
        if len(v) < 2:
            continue
        where = ("pipeline across nodes" if int(pp) > 1 and int(nodes) > 1 else
                 "pipeline in one node" if int(pp) > 1 else
                 "no pipeline, across nodes" if int(nodes) > 1 else "no pipeline, one node")
        by[where].append(max(v) / min(v))
    print("layouts measured twice: faster / slower throughput, median (90th percentile), over 1.5x, over 2x, largest")
    for where in ("no pipeline, one node", "pipeline in one node", "no pipeline, across nodes",
                  "pipeline across nodes"):
        v = by[where]
        print(f"  {where:26} {len(v):4} layouts  {statistics.median(v):5.2f} ({percentile(v, .9):5.2f})"
              f"  {sum(x > 1.5 for x in v):3}  {sum(x > 2 for x in v):3}  {max(v):5.1f}")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "repeats":
        repeats()
        return
    if len(sys.argv) < 3 or sys.argv[1] not in ("suite", "sweep", "memory", "fits"):
        sys.exit(__doc__)
    mode, out = sys.argv[1], sys.argv[2]
    if mode in ("memory", "fits"):
        (memory if mode == "memory" else fits)(
            out, sys.argv[3] if len(sys.argv) > 3 else "build/sim/trainsim")
        return
    rows = [r for r in csv.DictReader(open(os.path.join(HERE, "ultrascale-playbook-runs.csv")))
            if usable(r)]
    os.makedirs(out, exist_ok=True)
    if mode == "sweep":
        picked = rows
    else:
        best = {}
        for r in rows:
            key = (r["model"], int(r["nodes"]))
            if key[1] <= 8 and (key not in best or int(r["tok_s_per_gpu"]) > int(best[key]["tok_s_per_gpu"])):
                best[key] = r
        picked = [best[k] for k in sorted(best)]
    n = 0
    for r in picked:
        gpus = 8 * int(r["nodes"])
        name = (f"ultrascale-playbook-{NAMES[r['model']]}-h100-{gpus}gpu" if mode == "suite"
                else r["run_id"])
        header = HEADER.format(
            model=r["model"], layers=r["layers"], hidden=r["hidden"], heads=r["heads"],
            ffn=r["ffn"], vocab=r["vocab"], tied="tied" if r["tied_embeddings"] == "True" else "untied",
            gpus=gpus, nodes=r["nodes"], s="" if r["nodes"] == "1" else "s", dp=r["dp"], tp=r["tp"],
            pp=r["pp"], mb=r["micro_batch_size"], ga=r["grad_accum"], zero=r["zero_stage"],
            tok=f"{int(r['tok_s_per_gpu']):,}", mem=r["gpu_mem_GB"], run=r["run_id"]) if mode == "suite" else ""
        text = scenario(r, name, header)
        if text is None:
            continue
        with open(os.path.join(out, name + ".yaml"), "w") as f:
            f.write(text)
        n += 1
    print(f"{n} scenario files in {out}")


if __name__ == "__main__":
    main()
