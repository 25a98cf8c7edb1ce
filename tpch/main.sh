#!/usr/bin/env bash
# The one command for a fresh Debian 12 machine (run as root or as a sudo-capable
# user): installs missing packages, builds and installs the gpuhash extension,
# builds the TPC-H generator, starts a scratch PostgreSQL cluster, loads the
# data and compares every query with the GPU hash join off and on.
#
#   tpch/main.sh [--keep-cluster] [--skip-build] [--citus] [--out DIR] [run.py options]
#
#   --keep-cluster  leave the cluster's data directory for a later --skip-load run
#   --skip-build    do not build or install the extension
#   --citus         a Citus cluster instead (scripts/citus-scratch.sh: a coordinator
#                   and two workers, 'citus,gpuhash'), the tables distributed as
#                   tpch/citus.sql says; needs Citus installed (citus-scratch.sh build)
#   --out DIR       where the report, chart, log and details go (default
#                   $TPCH_OUT, else tpch/out); the tests give their own
#   run.py options  --sf, --queries, --workers, --device, --toggle, --runs, ...
#                   (see tpch/run.py --help)
#
# The options are checked (run.py --check-args) before anything is built or
# started.  The extension is built quietly (make -s; its log is build.log in
# the output directory) and installed into the system's PostgreSQL 15
# (make install: gpuhash.so into pg_config --pkglibdir).  Report, chart,
# run.log and per-query details go to the output directory, replacing the
# last run's; the last line names them only when this run wrote them. The
# exit status is the runner's: non-zero when a result differs or a query fails.
# Environment: TPCH_PGDIR (cluster directory, default /var/tmp/gpuhash-tpch-pg),
# TPCH_PGPORT (default 55440), PG_CONFIG (which PostgreSQL 15); with --citus
# TPCH_CITUSDIR (default /var/tmp/gpuhash-tpch-citus) and TPCH_CITUSPORT (the
# coordinator's, default 55610; the workers take the next two).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${TPCH_OUT:-$here/out}
pgdir=${TPCH_PGDIR:-/var/tmp/gpuhash-tpch-pg}
pgport=${TPCH_PGPORT:-55440}

say() { echo "== main.sh: $*"; }
die() { echo "main.sh: $*" >&2; exit 1; }

keep=0
build_ext=1
citus=0
workers=
have_toggle=0
plans=
run_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--keep-cluster) keep=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--out=*) out=${1#*=} ;;
	--skip-build) build_ext=0 ;;
	--citus) citus=1; run_args+=(--citus) ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*)
		case $1 in
		--workers) workers=${2:-} ;;
		--workers=*) workers=${1#*=} ;;
		--toggle | --toggle=*) have_toggle=1 ;;
		--plans) plans=${2:-} ;;
		--plans=*) plans=${1#*=} ;;
		esac
		run_args+=("$1")
		;;
	esac
	shift
done

case $out in /*) ;; *) out=$PWD/$out ;; esac
case ${workers:-2} in *[!0-9]* | '') die "bad option: --workers takes a number, not '$workers'" ;; esac
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3	# Debian's, which sees Debian's python3-matplotlib
run_args=(--db tpch --report "$out/report.md" --chart "$out/ratios.png" --save-dir "$out/details"
	"${run_args[@]}")
# every option, before anything is installed, built or started (where python3
# is still missing, right after the packages bring it)
checked=0
check_options() {
	"$py" "$here/run.py" --check-args "${run_args[@]}" ||
		die "bad option (see above): nothing built, started or written"
	checked=1
}
command -v "$py" >/dev/null && check_options

sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "run me as root or install sudo"
	sudo=sudo
fi

# ---- packages (only the missing ones)
if command -v dpkg-query >/dev/null; then
	"$root/scripts/install-deps.sh" --chart || die "installing the packages failed"
else
	echo "main.sh: not a Debian system; assuming PostgreSQL 15, gcc, make and python3 are present" >&2
fi
[ $checked = 1 ] || check_options
mkdir -p "$out"

# PG_CONFIG picks another PostgreSQL 15; default Debian's
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] && export PATH="$("$PG_CONFIG" --bindir):$PATH" PG_CONFIG
pkglibdir=$(pg_config --pkglibdir)

# ---- the extension
if [ $build_ext = 1 ]; then
	if [ -f "$root/Makefile" ]; then
		# the Makefile builds the host twin only when there is no nvcc; say which
		cuda_home=${CUDA_HOME:-/usr/local/cuda}
		if [ -x "$cuda_home/bin/nvcc" ]; then
			say "building the gpuhash extension (nvcc at $cuda_home/bin)"
		else
			say "building the gpuhash extension WITHOUT CUDA: no nvcc at $cuda_home/bin:" \
				"host twin only (--device auto then leaves joins to PostgreSQL; --device host uses the twin)"
		fi
		# compiler lines go to the log; warnings are counted, a failure shows its end
		log=$out/build.log
		start=$(date +%s)
		if ! make -s -C "$root" -j"$(nproc)" CUDA_HOME="$cuda_home" >"$log" 2>&1; then
			tail -n 40 "$log" >&2
			die "building the extension failed (whole log: $log)"
		fi
		say "built in $(($(date +%s) - start)) s, $(grep -c 'warning:' "$log" || true) compiler warning(s) (log: $log)"
		say "installing gpuhash into the system's PostgreSQL 15 ($pkglibdir, $(pg_config --sharedir)/extension)"
		$sudo env PATH="$PATH" make -s -C "$root" CUDA_HOME="$cuda_home" install >>"$log" 2>&1 ||
			{ tail -n 20 "$log" >&2; die "installing the extension failed (log: $log)"; }
	else
		say "no Makefile in $root yet: the extension is not built (skipping that step)"
	fi
fi
preload=()
if [ $citus = 1 ]; then
	# citus-scratch.sh preloads 'citus,gpuhash': both must be installed
	[ -f "$pkglibdir/citus.so" ] || die "--citus: Citus is not installed (no $pkglibdir/citus.so);" \
		"build a Citus v13.2 checkout with scripts/citus-scratch.sh build SRC_DIR"
	[ -f "$pkglibdir/gpuhash.so" ] || die "--citus: gpuhash is not installed (no $pkglibdir/gpuhash.so)"
elif [ -f "$pkglibdir/gpuhash.so" ]; then
	preload=(-c shared_preload_libraries=gpuhash)
elif [ $have_toggle = 0 ]; then
	[ -f "$root/Makefile" ] && [ $build_ext = 1 ] &&
		die "the build did not install $pkglibdir/gpuhash.so"
	say "gpuhash is not installed: comparing enable_hashjoin off/on instead (no GPU joins)"
	run_args=(--toggle enable_hashjoin "${run_args[@]}")
fi

# ---- the generator
say "building the TPC-H generator"
make -s -C "$here" || die "building tpch/build/tpchgen failed"

# ---- scratch cluster
. "$here/server_settings.sh"
servers=1
if [ $citus = 1 ]; then
	pgdir=${TPCH_CITUSDIR:-/var/tmp/gpuhash-tpch-citus}
	pgport=${TPCH_CITUSPORT:-55610}
	# three servers on this machine share the memory a single one would take
	servers=3
fi
server_settings=$(tpch_server_settings "${workers:-2}" $servers) || die "cannot work out the server settings"
mapfile -t settings <<<"$server_settings"
settings+=(${preload[@]+"${preload[@]}"})
shared_mb=$(sed -n 's/^shared_buffers=\([0-9]*\)MB$/\1/p' <<<"$server_settings")
scratch=$root/scripts/pg-scratch.sh
[ $citus = 0 ] || scratch=$root/scripts/citus-scratch.sh
stop_cluster() {
	"$scratch" stop "$pgdir" || true
	if [ $keep = 0 ]; then
		rm -rf "$pgdir"
	else
		say "cluster data kept in $pgdir; rerun with --keep-cluster --skip-load"
	fi
}
"$scratch" stop "$pgdir" 2>/dev/null || true
if [ $citus = 1 ]; then
	say "starting a scratch Citus cluster in $pgdir (coordinator port $pgport, workers $((pgport + 1))," \
		"$((pgport + 2)); shared_buffers ${shared_mb}MB each)"
	CITUS_DB=tpch "$scratch" start "$pgdir" "$pgport" "${settings[@]}" || die "cannot start the Citus cluster"
	export PGHOST=$pgdir/coord
else
	say "starting a scratch cluster in $pgdir (port $pgport, shared_buffers ${shared_mb}MB)"
	"$scratch" start "$pgdir" "$pgport" "${settings[@]}" || die "cannot start PostgreSQL"
	export PGHOST=$pgdir
fi
trap stop_cluster EXIT
trap 'exit 130' INT TERM
export PGPORT=$pgport PGUSER=postgres PGDATABASE=tpch

# ---- load and run: this run's files replace the last run's, so that
# nothing left from an earlier run is taken for this one's
rm -f "$out/report.md" "$out/ratios.png" "$out/run.log"
say "running: run.py ${run_args[*]}"
set +e
"$py" "$here/run.py" "${run_args[@]}" 2>&1 | tee "$out/run.log"
status=${PIPESTATUS[0]}
set -e
written=()
[ -n "$plans" ] && [ -d "$plans" ] && written+=("plans: $plans")
[ -f "$out/report.md" ] && written+=("report: $out/report.md")
[ -f "$out/ratios.png" ] && written+=("chart: $out/ratios.png")
written+=("log: $out/run.log")
[ -n "$plans" ] || [ -f "$out/report.md" ] || say "no report written: run.py stopped first (see the log)"
say "$(IFS=,; echo "${written[*]}" | sed 's/,/, /g') (exit status $status)"
exit "$status"
