#!/usr/bin/env bash
# A broken FindCUDAToolkit module (tests/cmake/broken_find_cuda) must turn trainsim-calibrate off,
# not stop the configuration of the rest. Usage: cuda_guard_test.sh SOURCE_DIR WORK_DIR
set -u
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
out=$(cmake -S "$src" -B "$work" -G Ninja -DTRAINSIM_BUILD_TESTS=OFF -DTRAINSIM_BUILD_GUI=OFF \
  "-DCMAKE_MODULE_PATH=$src/tests/cmake/broken_find_cuda" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: configure stopped (exit $rc) on a broken FindCUDAToolkit:"; echo "$out"; exit 1
fi
if ! grep -q "trainsim-calibrate: off (CMake's FindCUDAToolkit failed" <<<"$out"; then
  echo "FAIL: configure did not say why trainsim-calibrate is off:"; echo "$out"; exit 1
fi
echo "ok: configure succeeds and says trainsim-calibrate is off"
