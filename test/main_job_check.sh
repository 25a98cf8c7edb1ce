#!/usr/bin/env bash
# Proves what tpch/main.sh promises a user, cheaply (scale factor 0.01,
# queries 1 and 3):
#   1. a bad option fails before anything is installed, built or started,
#      and writes nothing;
#   2. the main job writes its report, chart, log and details, replacing the
#      last run's (a stale details file is gone), and labels what ran: no
#      "GPU ms" column where no GPU ran the join;
#   3. a run that stops before its report points at no report, older or new;
#   4. the test runs (test/tpch_test_runs.sh) after it leave its output as it
#      was, and their own report says it is a correctness run.
#   test/main_job_check.sh [DEVICE]     (DEVICE: host, the default, or gpu)
# The main job's output goes to a temp directory through TPCH_OUT, main.sh's
# default; tpch/out/ of the checkout is checked to be left alone too.
# Needs the extension installed and the caller's lock on the system
# PostgreSQL; the clusters are $TPCH_PGDIR on $TPCH_PGPORT.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
device=${1:-host}
tmp=$(mktemp -d /tmp/gpuhash-main-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"	# the clusters below it run as the postgres user
export TPCH_PGDIR=${TPCH_PGDIR:-$tmp/pg}
main=$root/tpch/main.sh
fail() { echo "main job check: FAIL: $*" >&2; exit 1; }
ok() { echo "main job check: ok    $*"; }
# what a directory holds, by content: name and checksum of each file
fingerprint() { [ ! -d "$1" ] || (cd "$1" && find . -type f -print0 | sort -z | xargs -0r sha256sum); }
repo_out_before=$(fingerprint "$root/tpch/out")
pg_before=$(ls -d "$TPCH_PGDIR" 2>/dev/null || true)

# ---- 1. bad options: refused first, nothing built, started or written
for bad in "--queries 23" "--sf abc" "--workers x" "--runs 0" "--set nonsense" "--device cpu"; do
	status=0
	# shellcheck disable=SC2086 # each case is several words
	TPCH_OUT=$tmp/bad "$main" $bad >"$tmp/bad.log" 2>&1 || status=$?
	[ $status != 0 ] || fail "main.sh $bad succeeded"
	grep -q "bad option" "$tmp/bad.log" || fail "main.sh $bad: no 'bad option' message: $(cat "$tmp/bad.log")"
	! grep -Eq "install-deps|building|starting a scratch|report:" "$tmp/bad.log" ||
		fail "main.sh $bad went on before refusing: $(cat "$tmp/bad.log")"
	[ ! -e "$tmp/bad" ] && [ "$(ls -d "$TPCH_PGDIR" 2>/dev/null || true)" = "$pg_before" ] ||
		fail "main.sh $bad wrote $tmp/bad or a cluster"
	ok "main.sh $bad: refused before anything ran ($(grep -E 'error|bad option' "$tmp/bad.log" | grep -v 'see above' | head -n 1))"
done

# ---- 2. the main job; a stale file of an earlier run must not survive it
out=$tmp/out
mkdir -p "$out/details"
echo stale >"$out/details/q05_on_plan.json"
echo stale >"$out/report.md"
TPCH_OUT=$out "$main" --skip-build --sf 0.01 --queries 1,3 --device "$device" >"$tmp/main.log" 2>&1 ||
	{ cat "$tmp/main.log"; fail "the main job failed"; }
[ -f "$out/report.md" ] && ! grep -qx stale "$out/report.md" || fail "main job: no new report.md"
[ ! -e "$out/details/q05_on_plan.json" ] || fail "main job: an earlier run's details file survived"
[ -f "$out/details/q01_on_plan.json" ] || fail "main job: no details of Q01"
tail -n 1 "$tmp/main.log" | grep -q "report: $out/report.md" || fail "main job: the last line names no report"
if [ "$device" != gpu ]; then
	! grep -q "| GPU ms |" "$out/report.md" || fail "main job without a GPU: a 'GPU ms' column"
	grep -q "^Nothing ran on a GPU" "$out/report.md" || fail "main job without a GPU: no closing line saying so"
fi
grep -q "geometric mean of ratios: .* over all" "$out/report.md" || fail "main job: no geometric mean over all queries"
grep -q "^total time of the" "$out/report.md" || fail "main job: no total time"
ok "main job: report, log and details of this run only; it says what ran: $(tail -n 1 "$out/report.md")"
main_out=$(fingerprint "$out")

# ---- 3. a run that stops before its report names none (and leaves no old one)
mkdir -p "$tmp/failed"
echo stale >"$tmp/failed/report.md"
status=0
TPCH_OUT=$tmp/failed "$main" --skip-build --skip-load --sf 0.01 --queries 1 >"$tmp/failed.log" 2>&1 || status=$?
[ $status != 0 ] || fail "main.sh --skip-load on an empty cluster succeeded"
! grep -q "report:" "$tmp/failed.log" || fail "a failed run points at a report: $(tail -n 2 "$tmp/failed.log")"
[ ! -e "$tmp/failed/report.md" ] || fail "a failed run left the older report.md in its output"
ok "a run that stops before its report: $(tail -n 1 "$tmp/failed.log")"

# ---- 4. the tests after the main job: their own output, the main job's untouched
TPCH_OUT=$out "$root/test/tpch_test_runs.sh" forced "$tmp/forced" "$device" --queries 1,3 >"$tmp/forced.log" 2>&1 ||
	{ cat "$tmp/forced.log"; fail "the forced test run failed"; }
TPCH_OUT=$out "$root/test/tpch_test_runs.sh" plans "$tmp/plans" "$device" --sf 0.01 --queries 1,3 >"$tmp/plans.log" 2>&1 ||
	{ cat "$tmp/plans.log"; fail "the plan check failed"; }
[ "$(fingerprint "$out")" = "$main_out" ] || fail "the test runs changed the main job's output in $out"
[ "$(fingerprint "$root/tpch/out")" = "$repo_out_before" ] || fail "something wrote into $root/tpch/out"
grep -q "correctness run: times are not a benchmark" "$tmp/forced/report.md" ||
	fail "the forced test run's report does not say it is a correctness run"
[ -d "$tmp/plans/plans" ] || fail "the plan check wrote no plans"
ok "test runs after the main job: its output unchanged; theirs: $(head -n 1 "$tmp/forced/report.md")"
echo "main job check: all passed"
