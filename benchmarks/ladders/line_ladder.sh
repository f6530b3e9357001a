#!/bin/bash
# The line games ladder published in docs/evaluation.md (seed 0, --workers 2); results go to $OUT (default ladder_results/).
case "$#:${1:-}" in  # no options: any argument (even --help) used to start the whole ladder
  0:) ;;
  1:-h|1:--help) echo "usage: OUT=DIR benchmarks/ladders/line_ladder.sh  (no options; the line games ladder of docs/evaluation.md, results in \$OUT, default ladder_results/)"; exit 0 ;;
  *) echo "line_ladder.sh: takes no arguments, got: $*; set OUT=DIR for the results folder (--help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
OUT=${OUT:-ladder_results}; mkdir -p "$OUT"
run() { name=$1; shift; .venv/bin/python -m train.evaluate "$@" --seed 0 --workers 2 --no-progress --json $OUT/$name.json > $OUT/$name.txt 2>&1; tail -1 $OUT/$name.txt | cut -c1-200; }
run block4_greedy_random   --game block --agents greedy random random random --rounds 2000
run block4_planner_greedy  --game block --agents planner greedy greedy greedy --rounds 2000
run block4_mixed           --game block --agents planner greedy random random --rounds 2000
run block2_greedy_random   --game block --players 2 --agents greedy random --rounds 2000
run block2_planner_greedy  --game block --players 2 --agents planner greedy --rounds 2000
run draw2_greedy_random    --game draw --agents greedy random --rounds 2000
run draw2_planner_greedy   --game draw --agents planner greedy --rounds 2000
run draw2_planner_random   --game draw --agents planner random --rounds 2000
run draw3_greedy_random    --game draw --players 3 --agents greedy random random --rounds 2000
run draw3_planner_greedy   --game draw --players 3 --agents planner greedy greedy --rounds 2000
run cuban4t_greedy_random  --game cuban --agents greedy random greedy random --rounds 2000
run cuban4t_planner_greedy --game cuban --agents planner greedy planner greedy --rounds 2000
run cuban4t_planner_random --game cuban --agents planner random planner random --rounds 2000
run cuban4_greedy_random   --game cuban --no-teams --agents greedy random random random --rounds 2000
run cuban4_planner_greedy  --game cuban --no-teams --agents planner greedy greedy greedy --rounds 2000
# the search option (not part of the ladder): planner:search against greedy
run block4_search_greedy   --game block --agents planner:search greedy greedy greedy --rounds 2000
run block2_search_greedy   --game block --players 2 --agents planner:search greedy --rounds 2000
run draw2_search_greedy    --game draw --agents planner:search greedy --rounds 2000
run cuban4t_search_greedy  --game cuban --agents planner:search greedy planner:search greedy --rounds 2000
run cuban4_search_greedy   --game cuban --no-teams --agents planner:search greedy greedy greedy --rounds 2000
# whole games of the draw game to 100 points (greedy's lighter hands score fewer points against it)
run draw2_games_greedy_random --game draw --agents greedy random --episode game --target-score 100 --rounds 1000
