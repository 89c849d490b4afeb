# Sourced by the gpu_*.sh scripts (`source "$(dirname "$0")/gpu_common.sh" "$@"`): takes OUT
# (the first argument), logs everything to OUT/log.txt, samples clocks and power every 250 ms
# into OUT/smi.csv until gpu_end, and defines step (a timestamped section header).
set -u
OUT=${1:?usage: $(basename "$0") OUT}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=timestamp,name,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,utilization.gpu \
  --format=csv -lms 250 > "$OUT/smi.csv" 2>&1 &
smi_pid=$!
step() { echo; echo "=== $* ($(date +%T))"; }
gpu_end() { step end; kill "$smi_pid" 2>/dev/null || true; }
