#!/usr/bin/env bash
# A lent GPU's call for the compute slowdown beside communication (cost/constants.h,
# kOverlapComputeSlowdown): overlap_probe.py's real steps and kernels alone and beside 8-32
# resident stand-in CTAs. Writes under OUT: log.txt, smi.csv, overlap.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step overlap probe
timeout 400 python3 calibrate/reference/overlap_probe.py --out "$OUT" "${@:2}" || echo "FAILED: overlap probe"
gpu_end
