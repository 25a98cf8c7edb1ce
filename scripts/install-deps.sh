#!/usr/bin/env bash
# Installs what building and testing gpuhash need and this Debian machine lacks:
# postgresql-15, postgresql-server-dev-15, make, gcc, g++, libc6-dev, python3;
# with --chart also a package to draw the TPC-H chart (gnuplot-nox, unless
# python3-matplotlib or gnuplot is there already).
#
#   scripts/install-deps.sh [--chart] [--check] [--root DIR]
#
#   --check     install nothing: print what is missing, one package a line,
#               and exit 1 if anything is
#   --root DIR  judge the files under DIR instead of / (tests of this script)
#
# Judged by the files the build really uses, not by dpkg, so a PostgreSQL
# unpacked without dpkg (as on the GPU machine) counts as installed:
#   - the server binary;
#   - pg_config and PGXS (Debian ships both in postgresql-client-15);
#   - the server headers: postgres.h under pg_config --includedir-server
#     (only postgresql-server-dev-15 ships them, so pgxs.mk alone proves
#     nothing);
#   - the C library's headers (stdio.h: libc6-dev, which gcc only recommends);
#   - each tool on PATH.
# nvcc is not a package here: Debian's main archive has none.  Without it the
# build makes the host twin only (see the Makefile), and this script says so.
#
# apt-get runs as root or through sudo, only when something is missing, with
# --no-install-recommends (nothing recommended is needed; gcc's libc6-dev
# is named here instead).
# Its output goes to a log; a few lines of progress are shown, and the log's
# tail on failure.  Installing postgresql-15 makes Debian create and start a
# cluster 15/main on port 5432, which gpuhash does not use: where no 15/main
# exists yet, a drop-in /etc/postgresql-common/createcluster.d/gpuhash.conf
# (create_main_cluster = false) is written first, so none is created.
set -euo pipefail

chart=0
check=0
root=
while [ $# -gt 0 ]; do
	case $1 in
	--chart) chart=1 ;;
	--check) check=1 ;;
	--root) root=${2:?--root needs a directory}; shift ;;
	--root=*) root=${1#*=} ;;
	*) echo "install-deps: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
apt_updated=0
# progress: the plan (packages, download, disk), then one line as each stage
# starts and at each quarter of it; the whole output is in the log
apt_progress() {
	awk '
	function stage(name, pat) {
		if ($0 !~ pat) return 0
		n[name]++
		if (n[name] == 1 || (total && n[name] % q == 0) || n[name] == total)
			printf "install-deps: apt: %s %d/%s\n", name, n[name], total ? total : "?"
		fflush(); return 1
	}
	# "U upgraded, N newly installed, ...": both kinds are unpacked and set up
	/upgraded, .* newly installed/ {
		total = ($1 + 0) + ($3 + 0); q = int(total / 4); if (q < 1) q = 1
		printf "install-deps: apt: %d packages to install or upgrade\n", total; fflush(); next
	}
	/^(Need to get|After this operation)/ { print "install-deps: apt: " $0; fflush(); next }
	stage("downloading", "^Get:[0-9]") { next }
	stage("unpacking", "^Unpacking ") { next }
	stage("setting up", "^Setting up ") { next }
	'
}
apt_install() {
	local log status
	log=$(mktemp /tmp/gpuhash-apt.XXXXXX)
	if [ $apt_updated = 0 ]; then
		echo "install-deps: apt-get update"
		$sudo apt-get update -q >"$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
		apt_updated=1
	fi
	echo "install-deps: apt-get install --no-install-recommends $* (log $log)"
	set +e
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o Dpkg::Use-Pty=0 "$@" 2>&1 | tee -a "$log" | apt_progress
	status=${PIPESTATUS[0]}
	set -e
	if [ "$status" != 0 ]; then
		echo "install-deps: apt-get install failed (exit $status); the log's end:" >&2
		tail -n 20 "$log" >&2
		return 1
	fi
	rm -f "$log"
}

# Debian's postgresql-15 creates and starts a cluster 15/main on port 5432;
# the scratch clusters do not need it.  postgresql-common reads the
# include_dir createcluster.d, so a drop-in written before the install keeps
# it from being created.  A machine that already has 15/main keeps it.
no_main_cluster() {
	local d=/etc/postgresql-common/createcluster.d
	[ ! -d /etc/postgresql/15/main ] || return 0
	[ ! -f "$d/gpuhash.conf" ] || return 0
	echo "install-deps: no cluster 15/main: writing $d/gpuhash.conf (create_main_cluster = false)"
	$sudo mkdir -p "$d"
	printf '%s\n' "# written by gpuhash's scripts/install-deps.sh: no default cluster on port 5432" \
		"create_main_cluster = false" | $sudo tee "$d/gpuhash.conf" >/dev/null
}

# a tool counts when it is on PATH, or (under --root) in the root's usual bin dirs
have_tool() {
	if [ -z "$root" ]; then
		command -v "$1" >/dev/null
	else
		[ -x "$root/usr/bin/$1" ] || [ -x "$root/bin/$1" ]
	fi
}

pgbin=$root/usr/lib/postgresql/15/bin
server_includedir() {
	# pg_config knows where its headers go; under --root, Debian's layout
	if [ -z "$root" ] && [ -x "$pgbin/pg_config" ]; then
		"$pgbin/pg_config" --includedir-server
	else
		echo "$root/usr/include/postgresql/15/server"
	fi
}

missing=()
[ -x "$pgbin/postgres" ] || missing+=(postgresql-15)
if [ ! -x "$pgbin/pg_config" ] ||
	[ ! -f "$root/usr/lib/postgresql/15/lib/pgxs/src/makefiles/pgxs.mk" ]; then
	missing+=(postgresql-client-15)
fi
[ -f "$(server_includedir)/postgres.h" ] || missing+=(postgresql-server-dev-15)
[ -f "$root/usr/include/stdio.h" ] || missing+=(libc6-dev)
for c in make gcc g++ python3; do
	have_tool "$c" || missing+=("$c")
done

if [ $check = 1 ]; then
	[ ${#missing[@]} -gt 0 ] && printf '%s\n' "${missing[@]}"
	cuda=${CUDA_HOME:-/usr/local/cuda}
	[ -x "$root$cuda/bin/nvcc" ] || echo "install-deps: no nvcc at $cuda/bin: the host twin only will be built" >&2
	[ ${#missing[@]} -eq 0 ]
	exit
fi

if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	case " ${missing[*]} " in *" postgresql-15 "*) no_main_cluster ;; esac
	apt_install "${missing[@]}"
	# prove the install gave what was missing, rather than fail later in make
	[ -f "$(server_includedir)/postgres.h" ] ||
		{ echo "install-deps: postgres.h still missing under $(server_includedir)" >&2; exit 1; }
fi

# ask Debian's python3, the one tpch/main.sh runs the chart with: a python3
# earlier on PATH (pyenv, say) does not see python3-matplotlib
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if [ $chart = 1 ] && ! "$py" -c 'import matplotlib' 2>/dev/null &&
	! command -v gnuplot >/dev/null; then
	# gnuplot-nox: about 35 packages, 50 MB; python3-matplotlib's own
	# dependencies (fonttools -> scipy, sympy, boost headers; pil.imagetk ->
	# Tk) are about 95 packages, 545 MB, recommends or not
	echo "install-deps: installing gnuplot-nox for the chart"
	apt_install gnuplot-nox || apt_install python3-matplotlib ||
		echo "install-deps: no chart package could be installed; the chart will be skipped" >&2
fi
exit 0
