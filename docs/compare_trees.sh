#!/usr/bin/env bash
# Time two checkouts of the project side by side on this machine, in one run, alternating:
#
#   docs/compare_trees.sh OLD_TREE NEW_TREE OUT_DIR [ROUNDS]
#
# Each round runs, for the old tree then the new one (each imported through PYTHONPATH with the
# same interpreter), `ddz bench --wild` (the engine, the wildcard game's rows too), `ddz bench env`
# and `ddz bench expert`, writing
# their JSON to OUT_DIR/{old,new}-{engine,env,expert}-ROUND.json. Compare the trees' rows with
# each other: the machine's load changes between rounds, the alternation spreads it evenly.
# BENCHES="engine" (a subset of "engine env expert") runs only those.
set -euo pipefail
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd); out=$3; rounds=${4:-2}
python=${PYTHON:-python}
benches=${BENCHES:-engine env expert}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
    for side in old new; do
        tree=$old; [ "$side" = new ] && tree=$new
        run() { (cd "$out" && PYTHONPATH="$tree" "$python" -m ddz bench "$@" --json); }
        for bench in $benches; do
            case $bench in
                engine) run --no-peers --wild --seconds 3 --rounds 3 > "$out/$side-engine-$round.json" ;;
                env) run env --no-peers --seconds 3 --rounds 3 > "$out/$side-env-$round.json" ;;
                expert) run expert --deals 4 --seed 1 > "$out/$side-expert-$round.json" ;;
                *) echo "compare_trees.sh: unknown bench $bench (engine, env, expert)" >&2; exit 2 ;;
            esac
        done
    done
done
