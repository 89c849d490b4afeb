#!/usr/bin/env bash
# A broken FindCUDAToolkit module (tests/cmake/broken_find_cuda) must leave trainsim-calibrate with
# its importers only,
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
if ! grep -q "trainsim-calibrate: importers only (CMake's FindCUDAToolkit failed" <<<"$out"; then
  echo "FAIL: configure did not say why trainsim-calibrate measures nothing:"; echo "$out"; exit 1
fi
echo "ok: configure succeeds and says trainsim-calibrate has its importers only"
