#!/usr/bin/env bash
# trainsim-gui's headless mode: --screenshot writes a PNG (and SVG) of the window, bad input
# exits 2 with the library's message. Usage: gui_cli_test.sh TRAINSIM_GUI SOURCE_DIR
gui=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/expect.sh"
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp"
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/a.png" "$src/scenarios/default.yaml"
head -c 8 "$tmp/a.png" | od -An -c | grep -q "P   N   G" || { echo "FAIL: a.png is not a PNG"; fail=1; }
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/b.svg" --compare 1f1b,zb-h1 "$src/scenarios/default.yaml"
grep -q "<svg" "$tmp/b.svg" || { echo "FAIL: b.svg is not SVG"; fail=1; }
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/s.png" --search "$src/scenarios/default.yaml"
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/t.png" --set parallelism.pp=2 --set parallelism.dp=4 "$src/scenarios/default.yaml"
expect 2 "--set parallelism.pp=3: parallelism.pp" -- "$gui" --screenshot "$tmp/t.png" --set parallelism.pp=3 "$src/scenarios/default.yaml"
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/m.png" --measured "$src/tests/data/kineto/nccl_data.json.gz" "$src/scenarios/default.yaml"
expect 2 "no GPU kernels" -- "$gui" --screenshot "$tmp/m.png" --measured "$src/tests/data/kineto/cpu_only_rank-34.json.gz" "$src/scenarios/default.yaml"
expect 2 "no such step" -- "$gui" --screenshot "$tmp/m.png" --measured "$src/tests/data/kineto/nccl_data.json.gz" --measured-step 9 "$src/scenarios/default.yaml"
expect 2 "no-such.yaml" -- "$gui" --screenshot "$tmp/c.png" "$tmp/no-such.yaml"
expect 0 "screenshot written" -- "$gui" --screenshot "$tmp/ab.png" "$src/scenarios/default.yaml" "$src/scenarios/paper-1f1b.yaml"  # A/B
expect 2 "no-such.yaml: no such scenario file" -- "$gui" --screenshot "$tmp/ab.png" "$src/scenarios/default.yaml" "$tmp/no-such.yaml"
expect 2 "nope" -- "$gui" --screenshot "$tmp/c.png" "$src/scenarios/paper-1f1b.yaml" --compare nope
expect 2 "needs a scenario" -- "$gui" --screenshot "$tmp/c.png"
expect 2 "size" -- "$gui" --screenshot "$tmp/c.png" --size 10x10 "$src/scenarios/default.yaml"
# Past the raster painter's reach (it crashed at 50000x50000): refused, not drawn.
expect 2 "W ≤ 16384" -- "$gui" --screenshot "$tmp/c.png" --size 100000x100000 "$src/scenarios/default.yaml"
expect 2 "name a .png file" -- "$gui" --screenshot "$tmp/c.txt" "$src/scenarios/default.yaml"
# No display and no platform chosen: a plain message instead of Qt's abort; help still works.
expect 2 "no display" -- env -u QT_QPA_PLATFORM -u DISPLAY -u WAYLAND_DISPLAY "$gui" "$src/scenarios/default.yaml"
expect 0 "screenshot" -- env -u QT_QPA_PLATFORM -u DISPLAY -u WAYLAND_DISPLAY "$gui" --help
exit $fail
