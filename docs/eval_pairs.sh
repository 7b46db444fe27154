#!/usr/bin/env bash
# Play the same arena runs with a checkout, to compare two checkouts' results (JSON):
#
#   docs/eval_pairs.sh TREE OUT_DIR       (then: python docs/compare_eval.py OLD_OUT NEW_OUT:
#                                           every field but "seconds" and "provenance" equal)
#
# The pairs cover the rule bots, Hard and the Expert, four players, the rob auction with the
# open hand, the auction, the kicker rule and the wildcard game. PYTHON picks the interpreter
# (default: python).
set -euo pipefail
tree=$(cd "$1" && pwd); out=$2; python=${PYTHON:-python}
mkdir -p "$out"
run() {
    name=$1; shift
    (cd "$tree" && PYTHONPATH="$tree" "$python" -m ddz eval "$@" --seed 2026 --json --no-progress) \
        > "$out/$name.json"
}
run easy_normal easy normal --deals 200
run normal_hard normal hard --deals 100
run hard_easy hard easy --deals 100
run expert_normal expert normal --deals 10
run expert_hard expert hard --deals 6
run p4_easy_normal easy normal --players 4 --deals 60
run p4_normal_random normal random --players 4 --deals 40 --bidding
run rob_easy_normal easy normal --auction rob --deals 60
run rob_hard_normal hard normal --auction rob --open-hand --deals 40
run bid_normal_hard normal hard --bidding --deals 30
run any_normal_easy normal easy --kickers any --deals 60
run wild_easy_normal easy normal --wild --deals 40
run wild_hard_normal hard normal --wild --deals 20
