#!/usr/bin/env bash
# One burst of Hard-agent training on a machine with a GPU and many cores.
#
#   bash ddz/train/device_burst.sh [SECONDS] [DDZ TRAIN OPTIONS...]    (from any folder)
#
# Trains for SECONDS (default 360) with one actor process per core but two, the learner on the
# GPU (--device cuda; cpu when torch sees no GPU), and writes under $OUT (default ./burst_out;
# relative paths are taken from the folder it is started in):
#   $OUT/runs/<run>/checkpoint.pt   torch checkpoint with optimizer state (resume with --resume)
#   $OUT/runs/<run>/hard.npz        the NumPy model the Hard agent loads
#   $OUT/runs/<run>/events.*        TensorBoard logs (scalars.jsonl if tensorboard is missing)
#   $OUT/hard.npz                   copy of the latest NumPy model
#   $OUT/train.log                  the training output
# RESUME=path/to/run_dir continues that run (its folder is copied into $OUT/runs first).
# INIT=path/to/model.npz starts from exported weights instead (fresh optimizer; the checkpoint
# with optimizer state is 33 MB, too big to bring back from some machines).
# ACTORS, ACTOR_BATCH (256), BATCH_SIZE (4096) and THREADS (2) change the sizes; options after
# SECONDS go to `ddz train` last, so they win over the script's (e.g. --checkpoint-interval 5).
#
# Needs python with numpy and torch (CUDA build). The project is used from the source tree
# (PYTHONPATH), so nothing has to be installed; if numpy/torch are missing it tries pip.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"  # the repository root: holds ddz and ddz_env
SECONDS_BUDGET="${1:-360}"
shift $(( $# > 0 ? 1 : 0 ))
OUT="${OUT:-$PWD/burst_out}"
PY="${PYTHON:-python3}"
mkdir -p "$OUT/runs"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

probe() {  # the learner's device, torch's version, whether CUDA is there
    "$PY" -c 'import numpy, torch; c = torch.cuda.is_available(); print("cuda" if c else "cpu", torch.__version__, c)' 2>/dev/null
}
INFO="$(probe)" || { "$PY" -m pip install -q numpy torch && INFO="$(probe)"; }
read -r DEVICE TORCH_VERSION CUDA <<<"$INFO"
"$PY" -c "import tensorboard" 2>/dev/null || "$PY" -m pip install -q tensorboard 2>/dev/null || true

CORES="$(nproc)"
ACTORS="${ACTORS:-$(( CORES > 4 ? CORES - 2 : 1 ))}"
EXTRA=()
if [[ -n "${RESUME:-}" ]]; then
    cp -r "$RESUME" "$OUT/runs/"
    EXTRA=(--resume "$OUT/runs/$(basename "$RESUME")")
elif [[ -n "${INIT:-}" ]]; then
    EXTRA=(--init-from "$INIT")
fi
echo "burst: ${SECONDS_BUDGET}s, ${ACTORS} actors, learner on ${DEVICE}" | tee "$OUT/train.log"
echo "torch ${TORCH_VERSION} cuda ${CUDA}" | tee -a "$OUT/train.log"
"$PY" -m ddz.train.dmc --exp-name burst --device "$DEVICE" --actors "$ACTORS" \
    --actor-batch "${ACTOR_BATCH:-256}" --batch-size "${BATCH_SIZE:-4096}" --learning-rate 5e-4 \
    --threads "${THREADS:-2}" --total-seconds "$SECONDS_BUDGET" --runs-dir "$OUT/runs" \
    --checkpoint-interval 60 --log-interval 10 --eval-interval 0 --export "$OUT/hard.npz" \
    ${EXTRA[@]+"${EXTRA[@]}"} "$@" 2>&1 | tee -a "$OUT/train.log"
