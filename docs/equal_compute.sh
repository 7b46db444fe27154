#!/usr/bin/env bash
# Equal compute: DouZero's own trainer and `ddz train`, the same wall-clock time each on the same
# machine (one after the other, nothing else running; or side by side, each on its own half of
# the cores), then both in the arena against RLCard's rule agent, Normal and each other.
#
#   bash docs/equal_compute.sh [SECONDS_EACH] [OUT] [DEALS]
#
# SECONDS_EACH: training time of each trainer (default 3600); OUT: the folder of both runs and
# the results (default equal_compute); DEALS: deals of each arena run (default 10000; seats
# swapped, so twice as many games). ACTORS: self-play actor processes of each trainer (default:
# the cores less one, the learner's); DEVICE: cpu (default) or cuda, the learner of both
# (DouZero's actors then run on the GPU too, ddz's on the CPU); PYTHON: the interpreter
# (default python); SIDE_BY_SIDE=1: both trainers at once, each pinned (taskset) to its own half
# of the cores, with ACTORS defaulting to that half less one (at least one); ARENA_ONLY=1: no
# training, the arena and the summary again on the files a run left in OUT; DOUZERO_OPTIONS, DDZ_TRAIN_OPTIONS: more options for either trainer (the
# comparison runs both on their defaults: leave them empty). Needs the train and bench extras
# (torch, DouZero, GitPython).
#
# Writes OUT/douzero/douzero/ROLE_weights_FRAMES.ckpt (DouZero's, played by douzero:DIR),
# OUT/hard.npz (ddz's), the arena results OUT/*.json and OUT/summary.txt (the frames each trainer
# reached, then WP and ADP of each pairing).
set -euo pipefail
seconds=${1:-3600}; out=${2:-equal_compute}; deals=${3:-10000}
python=${PYTHON:-python}
cores=$(nproc)
side_by_side=${SIDE_BY_SIDE:-0}
if [ "$side_by_side" = 1 ]; then
    half=$(( cores / 2 > 0 ? cores / 2 : 1 ))
    actors=${ACTORS:-$(( half > 1 ? half - 1 : 1 ))}
    douzero_cpus="0-$(( half - 1 ))"
    ddz_cpus="$(( cores > 1 ? half : 0 ))-$(( cores > 1 ? 2 * half - 1 : 0 ))"
    pin_douzero=(taskset -c "$douzero_cpus")
    pin_ddz=(taskset -c "$ddz_cpus")
else
    actors=${ACTORS:-$(( cores > 1 ? cores - 1 : 1 ))}
    pin_douzero=()
    pin_ddz=()
fi
device=${DEVICE:-cpu}
mkdir -p "$out"

# 1. DouZero's trainer, its own defaults (ADP objective, batch 32 x unroll 100, RMSprop 1e-4)
train_douzero() {
    "${pin_douzero[@]}" "$python" -m ddz.bench.equal_compute --seconds "$seconds" \
        --savedir "$out/douzero" --device "$device" -- --num_actors "$actors" \
        ${DOUZERO_OPTIONS:-} > "$out/douzero.log" 2>&1
}
douzero_dir="$out/douzero/douzero"

# 2. ddz's trainer (Hard's network, Deep Monte Carlo), its own defaults, the same time
train_ddz() {
    "${pin_ddz[@]}" "$python" -m ddz train --total-seconds "$seconds" --actors "$actors" \
        --device "$device" --runs-dir "$out/runs" --exp-name equal --export "$out/hard.npz" \
        --eval-interval 0 --quiet ${DDZ_TRAIN_OPTIONS:-} > "$out/ddz.log" 2>&1
}
if [ "${ARENA_ONLY:-0}" = 1 ]; then
    :
elif [ "$side_by_side" = 1 ]; then
    train_douzero & douzero_pid=$!
    train_ddz & ddz_pid=$!
    wait "$douzero_pid"
    wait "$ddz_pid"
else
    train_douzero
    train_ddz
fi

# 3. the arena (DouZero's protocol: no auction, each deal played with either side landlord)
eval_run() {
    name=$1; shift
    "$python" -m ddz eval "$@" --deals "$deals" --seed 2026 --workers 0 --json --no-progress \
        > "$out/$name.json"
}
eval_run douzero_vs_rlcard "douzero:$douzero_dir" rlcard
eval_run ddz_vs_rlcard "hard:$out/hard.npz" rlcard
eval_run douzero_vs_normal "douzero:$douzero_dir" normal
eval_run ddz_vs_normal "hard:$out/hard.npz" normal
eval_run douzero_vs_ddz "douzero:$douzero_dir" "hard:$out/hard.npz"

# 4. the summary: frames reached, then each pairing's WP and ADP for its first agent
"$python" - "$out" "$douzero_dir" > "$out/summary.txt" <<'EOF'
import json, pathlib, re, sys
import numpy as np
out, douzero_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
frames = max(int(m[1]) for p in douzero_dir.iterdir() if (m := re.match(r"landlord_weights_(\d+)\.ckpt$", p.name)))
with np.load(out / "hard.npz") as model:
    meta = json.loads(str(model["meta"]))
print(f"frames trained: DouZero {frames:,}; ddz {meta['frames']:,}")
for name in ("douzero_vs_rlcard", "ddz_vs_rlcard", "douzero_vs_normal", "ddz_vs_normal", "douzero_vs_ddz"):
    r = json.loads((out / f"{name}.json").read_text())
    o = r["overall"]
    print(f"{name}: WP {o['wp']:.3f} ± {o['wp_ci']:.3f}  ADP {o['adp']:+.3f} ± {o['adp_ci']:.3f}  ({r['games']} games)")
EOF
cat "$out/summary.txt"
