#!/usr/bin/env bash
# Plans under variations no cost rule was fitted on (issue 54), at small
# scale, plans only except where said:
#   TPC-H SF 0.1 with its foreign keys, serial (0 workers);
#   TPC-H SF 0.1 without foreign keys, 4 workers and serial;
#   the Star Schema Benchmark (ssb/) SF 0.1, 4 workers (each query also run
#   with the GPU join off and on, results compared) and serial.
# Each check is tpch/run.py --plans' (ssb/check.py for SSB): no subtree read
# serially where PostgreSQL's plan reads it in parallel, and a plan without a
# GPU join equal to PostgreSQL's own, node by node with its costs.  (TPC-H
# with foreign keys at 4 workers is run-all.sh's step 6.)
#
#   test/plan_variations.sh DEVICE OUTDIR
#
# DEVICE: gpuhash.device (host or gpu).  Starts and stops its own scratch
# cluster (port $PLANS_PGPORT, default 55441) with gpuhash installed and
# preloaded; the plans go to OUTDIR.  Exits non-zero on the first failure;
# with PLANS_KEEP_GOING=1 runs every check and exits non-zero at the end.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
device=${1:?usage: test/plan_variations.sh DEVICE OUTDIR}
out=${2:?usage: test/plan_variations.sh DEVICE OUTDIR}
port=${PLANS_PGPORT:-55441}
say() { printf '\n== plan_variations: %s\n' "$*"; }
die() { echo "plan_variations: $*" >&2; exit 1; }
failed=()
fail() {
	[ "${PLANS_KEEP_GOING:-0}" = 1 ] || die "$@"
	echo "plan_variations: FAILED: $*" >&2
	failed+=("$1")
}

mkdir -p "$out"
pgdir=$(mktemp -d /tmp/gpuhash-plans.XXXXXX)
cleanup() {
	"$root/scripts/pg-scratch.sh" stop "$pgdir" >/dev/null 2>&1 || true
	rm -rf "$pgdir"
}
trap cleanup EXIT
. "$root/tpch/server_settings.sh"
mapfile -t settings < <(tpch_server_settings 4)
"$root/scripts/pg-scratch.sh" start "$pgdir" "$port" "${settings[@]}" \
	-c shared_preload_libraries=gpuhash -c gpuhash.device="$device" >/dev/null
export PGHOST=$pgdir PGPORT=$port PGUSER=postgres
# partial GPU joins need the GPU service
for _ in $(seq 1 300); do
	grep -q "gpuhash GPU service ready" "$pgdir/server.log" && break
	sleep 0.1
done
grep -q "gpuhash GPU service ready" "$pgdir/server.log" || die "the gpuhash GPU service did not start"
make -s -C "$root/tpch" || die "building the TPC-H generator failed"

plans() {	# NAME run.py-options...
	local name=$1
	shift
	say "TPC-H SF 0.1, $name"
	python3 "$root/tpch/run.py" --db tpch --sf 0.1 --skip-load --device "$device" \
		--plans "$out/tpch-$name" "$@" || fail "TPC-H $name: see $out/tpch-$name"
}
"$root/tpch/load.sh" -s 0.1 -d tpch -j 2 >/dev/null
plans fk-serial --workers 0
# the same data without its foreign keys: PostgreSQL's estimates change, the statistics do not
psql -X -q -v ON_ERROR_STOP=1 -d tpch -At -c "
	SELECT format('ALTER TABLE %s DROP CONSTRAINT %I;', conrelid::regclass, conname)
	FROM pg_constraint WHERE contype = 'f'" | psql -X -q -v ON_ERROR_STOP=1 -d tpch
plans nofk-4workers --workers 4
plans nofk-serial --workers 0

say "SSB SF 0.1: load"
"$root/ssb/load.sh" -s 0.1 -d ssb
say "SSB SF 0.1, 4 workers, plans and results off vs on"
python3 "$root/ssb/check.py" --db ssb --workers 4 --device "$device" --plans "$out/ssb-4workers" \
	--results || fail "SSB 4 workers: see $out/ssb-4workers"
say "SSB SF 0.1, serial"
python3 "$root/ssb/check.py" --db ssb --workers 0 --device "$device" --plans "$out/ssb-serial" ||
	fail "SSB serial: see $out/ssb-serial"
[ ${#failed[@]} = 0 ] || die "${#failed[@]} checks failed: ${failed[*]}"
say "all plan variations passed"
