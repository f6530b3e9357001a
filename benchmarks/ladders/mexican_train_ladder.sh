#!/usr/bin/env bash
# The Mexican Train ladder published in docs/evaluation.md (default rules, double-12); results go to $OUT (default ladder_results/).
set -e
case "$#:${1:-}" in  # no options: any argument (even --help) used to start the whole ladder
  0:) ;;
  1:-h|1:--help) echo "usage: OUT=DIR benchmarks/ladders/mexican_train_ladder.sh  (no options; the Mexican Train ladder of docs/evaluation.md, results in \$OUT, default ladder_results/)"; exit 0 ;;
  *) echo "mexican_train_ladder.sh: takes no arguments, got: $*; set OUT=DIR for the results folder (--help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
OUT=${OUT:-ladder_results}; mkdir -p "$OUT"
run() { name=$1; shift; .venv/bin/python -m train.evaluate "$@" --rounds 2000 --max-pip 12 --seed 0 --workers 2 --no-progress --json $OUT/$name.json > $OUT/$name.txt 2>&1; }
run p4_greedy_vs_random --agents greedy random random random --players 4
run p4_planner_vs_greedy --agents planner greedy greedy greedy --players 4
run p4_mixed --agents planner greedy random random --players 4
run p2_greedy_vs_random --agents greedy random --players 2
run p2_planner_vs_greedy --agents planner greedy --players 2
run p2_planner_vs_random --agents planner random --players 2
