#!/usr/bin/env bash
# The TPC-H parts of test/run-all.sh, each writing to its own output
# directory, never to tpch/out/ (the main job's report stays as it was):
#
#   test/tpch_test_runs.sh forced OUT DEVICE [main.sh options]
#       scale factor 0.01, every query, GPU join off vs forced on: a
#       correctness run, whose report and chart say that their times are
#       not a benchmark
#   test/tpch_test_runs.sh plans OUT DEVICE [main.sh options]
#       scale factor 0.1, default costs, 4 workers, plans only: no GPU plan
#       reads serially what PostgreSQL's reads in parallel (OUT/plans)
#
# Extra options go last, so they override (test/main_job_check.sh runs both
# at --sf 0.01 --queries 1,3).  Needs the extension installed (--skip-build)
# and the caller's lock on the system PostgreSQL; the cluster is
# $TPCH_PGDIR on $TPCH_PGPORT, as for tpch/main.sh.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:?forced or plans}
out=${2:?output directory}
device=${3:?device}
shift 3

case $what in
forced)
	# correctness, not timing: GPU joins wherever the join type allows
	exec "$root/tpch/main.sh" --skip-build --out "$out" --correctness-run \
		--sf 0.01 --queries all --runs 1 --warmup 0 --device "$device" \
		--set gpuhash.setup_cost=0 --set gpuhash.min_gain=0 --set enable_hashjoin=off \
		--set enable_mergejoin=off --set parallel_setup_cost=0 --set parallel_tuple_cost=0 \
		--set min_parallel_table_scan_size=0 "$@"
	;;
plans)
	exec "$root/tpch/main.sh" --skip-build --out "$out" --sf 0.1 --workers 4 \
		--device "$device" --plans "$out/plans" "$@"
	;;
*)
	echo "tpch_test_runs.sh: forced or plans, not '$what'" >&2
	exit 2
	;;
esac
