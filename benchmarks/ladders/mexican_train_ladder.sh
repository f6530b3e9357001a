#!/usr/bin/env bash
# The Mexican Train ladder published in docs/evaluation.md (default rules, double-12); results go to $OUT (default ladder_results/).
set -e
cd "$(dirname "$0")/../.."
OUT=${OUT:-ladder_results}; mkdir -p "$OUT"
run() { name=$1; shift; .venv/bin/python -m train.evaluate "$@" --rounds 2000 --max-pip 12 --seed 0 --workers 2 --no-progress --json $OUT/$name.json > $OUT/$name.txt 2>&1; }
run p4_greedy_vs_random --agents greedy random random random --players 4
run p4_planner_vs_greedy --agents planner greedy greedy greedy --players 4
run p4_mixed --agents planner greedy random random --players 4
run p2_greedy_vs_random --agents greedy random --players 2
run p2_planner_vs_greedy --agents planner greedy --players 2
run p2_planner_vs_random --agents planner random --players 2
