#!/usr/bin/env bash
# Runs every gpuhash test on a fresh Debian 12 machine (as root, or a user
# with sudo): installs what is missing, builds, and runs
#   1. the hash-core unit tests (GPU and host twin; host twin only without a GPU),
#   2. the pg_regress suite on a scratch cluster with the GPU service (on the
#      GPU when one is usable, otherwise on the host twin inside the service;
#      same SQL, same expected files), then the service's multi-session checks,
#   3. the GPU-only regression tests (only where a GPU is usable; said so otherwise),
#      and with two GPUs or more, the multi-GPU checks (test/multi_gpu_check.sh),
#   4. a LOAD 'gpuhash' check without shared_preload_libraries,
#   5. a small TPC-H comparison (scale factor 0.01), GPU join off vs forced on,
#      a correctness run (test/tpch_test_runs.sh forced),
#   6. a plan check at scale factor 0.1 with default costs (tpch/run.py --plans),
#      then under variations (test/plan_variations.sh: TPC-H serial and without
#      foreign keys, the Star Schema Benchmark),
#   7. the main job's promises (test/main_job_check.sh): a bad option fails
#      before anything is built, a run replaces the last one's files and says
#      what ran, the test runs leave the main job's report alone,
#   8. where Citus is installed (citus.so in pg_config --pkglibdir; it is never
#      built here): TPC-H scale factor 0.01 on a scratch Citus cluster, GPU join
#      off vs on, and the WARNING of the wrong load order 'gpuhash,citus'.
# Before all that it proves the package check (test/install_deps_check.sh),
# and that no file of src/ writes another's part of the node's state nor
# calls in a circle (scripts/state_owners.py).
# The TPC-H steps write to their own directories under the scratch
# directory, never to tpch/out/, the main job's.
# Exits non-zero on the first failure.  Uses nvcc at $CUDA_HOME/bin (default
# /usr/local/cuda) when there is one; without it (a fresh Debian has none)
# the host twin only is built and tested, and this says so.
# Environment: PG_CONFIG (which PostgreSQL 15), GPUHASH_TEST_PORT (scratch
# cluster port), TPCH_PGPORT, TPCH_PGDIR, TPCH_CITUSPORT, CUDA_HOME.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf '\n== run-all: %s\n' "$*"; }
die() { echo "run-all: $*" >&2; exit 1; }

sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "run me as root or install sudo"
	sudo=sudo
fi

# ---- packages, only the missing ones
# first prove the check that decides them, on fake roots
say "install-deps.sh --check on fake roots"
test/install_deps_check.sh || die "install-deps.sh judges packages wrongly"
scripts/install-deps.sh

# ---- the node's state by owner (ARCHITECTURE.md): no file writes another's
# part of GpuJoinState, no call circle between the files of src/
say "state owners and call circles (scripts/state_owners.py)"
python3 scripts/state_owners.py -v || die "a foreign assignment or a call circle in src/ (listed above)"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# the Makefile makes the same choice; HAVE_NVCC keeps make install (under sudo) on it
if [ -x "$CUDA_HOME/bin/nvcc" ]; then HAVE_NVCC=yes; else HAVE_NVCC=no; fi
# PG_CONFIG picks another PostgreSQL 15 (a relocated copy, say); default Debian's
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PATH=$("$PG_CONFIG" --bindir):$CUDA_HOME/bin:$PATH
export CUDA_HOME PG_CONFIG HAVE_NVCC

# ---- build
if [ $HAVE_NVCC = yes ]; then
	say "building (nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
	built="with CUDA"
else
	say "building WITHOUT CUDA: no nvcc at $CUDA_HOME/bin: host twin only" \
		"(the GPU code is not compiled; install the CUDA toolkit or set CUDA_HOME for it)"
	built="no nvcc: host twin only"
fi
# compiler lines go to a log: warnings counted, a failure shows its end
buildlog=$(mktemp /tmp/gpuhash-build.XXXXXX)
start=$(date +%s)
if ! make -s -j"$(nproc)" all test/core_test >"$buildlog" 2>&1; then
	tail -n 40 "$buildlog" >&2
	die "the build failed (whole log: $buildlog)"
fi
echo "built in $(($(date +%s) - start)) s, $(grep -c 'warning:' "$buildlog" || true) compiler warning(s) (log: $buildlog)"

# ---- 1. hash core
gpus=$(test/core_test --count-gpus)
if [ "$gpus" -gt 0 ]; then
	device=gpu
	say "hash core unit tests: GPU ($gpus found) and host twin"
	test/core_test --require-gpu
else
	device=host
	say "hash core unit tests: host twin (no GPU here; the GPU half runs on a GPU machine)"
	test/core_test
fi

# ---- 2. regression suite on a scratch cluster
say "installing the extension into the system's PostgreSQL 15 ($("$PG_CONFIG" --pkglibdir))"
$sudo env PATH="$PATH" CUDA_HOME="$CUDA_HOME" HAVE_NVCC=$HAVE_NVCC make -s install >>"$buildlog" 2>&1 ||
	{ tail -n 20 "$buildlog" >&2; die "make install failed (log: $buildlog)"; }
pgdir=$(mktemp -d /tmp/gpuhash-test.XXXXXX)
port=${GPUHASH_TEST_PORT:-55434}
cleanup() {
	scripts/pg-scratch.sh stop "$pgdir" >/dev/null 2>&1 || true
	[ ! -d "$pgdir/citus" ] || scripts/citus-scratch.sh stop "$pgdir/citus" >/dev/null 2>&1 || true
	rm -rf "$pgdir"
}
trap cleanup EXIT
scripts/pg-scratch.sh start "$pgdir" "$port" -c shared_preload_libraries=gpuhash \
	-c gpuhash.device=$device -c fsync=off
export PGHOST=$pgdir PGPORT=$port PGUSER=postgres
# the GPU service starts with the server; the suite runs through it
for _ in $(seq 1 300); do
	grep -q "gpuhash GPU service ready" "$pgdir/server.log" && break
	sleep 0.1
done
grep "gpuhash GPU service ready" "$pgdir/server.log" || die "the gpuhash GPU service did not start"
say "pg_regress on gpuhash.device = $device"
if ! make installcheck; then
	[ -f regression.diffs ] && cat regression.diffs
	die "regression tests failed on $device"
fi

say "GPU service: concurrent sessions, killed backend, timeouts and cancels, memory, service restart after SIGTERM"
test/service_check.sh || die "GPU service checks failed"

say "old snapshots: \"snapshot too old\" as PostgreSQL raises it, GPU join off, by tuples, by pages"
test/old_snapshot_check.sh "$device" || die "the old-snapshot check failed"

# random join queries, GPU join off vs forced on, on this device: a fixed
# seed set, 400 queries (test/fuzz/README.md; longer runs take other seeds).
# One session, in the database that has gpuhash_info(): after each query the
# GPU service must hold nothing for it.
say "differential fuzzer: seeds 1-8, GPU join off vs forced on, device $device"
python3 test/fuzz/fuzz.py --seeds-from 1 --seeds-to 8 --queries 50 --timeout 20 --dbname contrib_regression ||
	die "the fuzzer found a difference (a FAILED query reruns alone with --minimize for a repro)"

# ---- 3. GPU-only tests
if [ "$device" = gpu ]; then
	say "GPU-only regression tests"
	if ! make installcheck-gpu; then
		[ -f regression.diffs ] && cat regression.diffs
		die "GPU-only regression tests failed"
	fi
else
	say "GPU-only regression tests NOT run: no GPU here (they run on the GPU machine; see bench/RESULTS.md)"
fi
if [ "$gpus" -ge 2 ] && [ "$device" = gpu ]; then
	say "several GPUs ($gpus): spread, copies, a chain across GPUs, a partitioned table, GPU failures"
	test/multi_gpu_check.sh || die "multi-GPU checks failed"
else
	say "multi-GPU checks NOT run: $gpus GPU(s) here (they need two; see bench/RESULTS.md)"
fi

# ---- 4. LOAD without shared_preload_libraries
say "LOAD 'gpuhash' without preloading"
scripts/pg-scratch.sh stop "$pgdir"
scripts/pg-scratch.sh start "$pgdir" "$port" -c gpuhash.device=$device -c fsync=off >/dev/null
out=$(psql -X -v ON_ERROR_STOP=1 -At -f test/load_check.sql postgres) || die "LOAD check failed: $out"
echo "$out"
echo "$out" | grep -q "Custom Scan (GpuHashJoin)" || die "LOAD check: no GpuHashJoin in the plan"
echo "$out" | grep -qx "load check: same" || die "LOAD check: results differ"
scripts/pg-scratch.sh stop "$pgdir"

# ---- 5. small TPC-H, off vs on
say "TPC-H scale factor 0.01, GPU join off vs forced on, device $device (a correctness run; output in $pgdir/tpch-forced)"
TPCH_PGDIR=${TPCH_PGDIR:-$pgdir/tpch} test/tpch_test_runs.sh forced "$pgdir/tpch-forced" "$device" ||
	die "TPC-H: a result differs or a query failed ($pgdir/tpch-forced/report.md is removed on exit: see the table above)"

# ---- 6. plan check: the planner's default costs never make a query serial
# where PostgreSQL's plan is parallel (issue 13); plans only, no query runs
say "TPC-H scale factor 0.1 plans, default costs, 4 workers: no serial subtree where native runs in parallel"
python3 test/plans_check.py || die "tpch/plans.py judges serial scans wrongly"
TPCH_PGDIR=${TPCH_PGDIR:-$pgdir/tpch} test/tpch_test_runs.sh plans "$pgdir/tpch-plans" "$device" ||
	die "plan check: a GPU plan reads serially what PostgreSQL's reads in parallel, or a plan without a GPU join is not PostgreSQL's own (see the table above)"

# ---- 6b. plans under variations no cost rule was fitted on (issue 54): TPC-H
# without foreign keys and serial, the Star Schema Benchmark (ssb/); a plan
# without a GPU join must be PostgreSQL's own, node by node with its costs
say "plan variations at SF 0.1: TPC-H serial and without foreign keys, SSB (4 workers, results too, and serial)"
PLANS_PGPORT=${TPCH_PGPORT:-55440} test/plan_variations.sh "$device" "$pgdir/plan-variations" ||
	die "plan variations: see $pgdir/plan-variations"

# ---- 7. what the main job promises a user, at scale factor 0.01
say "tpch/main.sh: bad options refused before building, each run's own files, honest labels; the tests leave its report alone"
TPCH_PGDIR=${TPCH_PGDIR:-$pgdir/tpch} test/main_job_check.sh "$device" || die "tpch/main.sh does not keep its promises"

# ---- 8. Citus, only where it is installed: CI has none and does not build it
if [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	citusdir=$pgdir/citus
	cport=${TPCH_CITUSPORT:-55610}
	say "Citus: TPC-H scale factor 0.01 on a coordinator and two workers ('citus,gpuhash'), GPU join off vs on, device $device"
	# forced GPU joins as in step 5; the shard tasks plan them only if the
	# settings reach the workers. The cluster is kept for the load-order check.
	TPCH_CITUSDIR=$citusdir TPCH_CITUSPORT=$cport tpch/main.sh --citus --skip-build --keep-cluster \
		--out "$pgdir/citus-out" --correctness-run \
		--sf 0.01 --queries all --runs 1 --warmup 0 --device "$device" \
		--set gpuhash.setup_cost=0 --set gpuhash.min_gain=0 --set enable_hashjoin=off --set enable_mergejoin=off ||
		die "Citus TPC-H: a result differs or a query failed (see the table above)"
	# column 7 of the report's table: shard tasks with a GPU join / tasks shown
	awk -F'|' '$2 ~ /Q[0-9]/ && $7 ~ /^ *[1-9][0-9]*\//' "$pgdir/citus-out/report.md" | grep -q . ||
		die "Citus TPC-H: no shard task planned a GPU join (do the settings reach the workers?)"

	say "Citus: the wrong load order 'gpuhash,citus' warns, and gpuhash_info() says join_hook missing"
	scripts/citus-scratch.sh stop "$citusdir"
	CITUS_DB=tpch scripts/citus-scratch.sh start "$citusdir" "$cport" -c shared_preload_libraries=gpuhash,citus >/dev/null
	out=$(PGHOST=$citusdir/coord PGPORT=$cport PGUSER=postgres PGDATABASE=tpch psql -X -v ON_ERROR_STOP=1 -At \
		-c "SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey" \
		-c "SELECT join_hook FROM gpuhash_info()" 2>&1) || die "Citus load-order check failed: $out"
	scripts/citus-scratch.sh stop "$citusdir"
	# the workers' backends warn too; Citus relays each of them
	echo "$out" | grep -m1 "WARNING:  gpuhash: its join hook is not called" ||
		die "Citus load-order check: no WARNING with 'gpuhash,citus'"
	echo "$out" | grep -m1 "^missing" || die "Citus load-order check: gpuhash_info() join_hook is not 'missing'"
else
	say "Citus step NOT run: Citus is not installed (no citus.so in $("$PG_CONFIG" --pkglibdir))"
fi

rm -f "$buildlog"
say "all tests passed (device: $device; build: $built)"
