#!/usr/bin/env bash
# Installs what building and testing gpuhash need and this Debian machine lacks:
# postgresql-15, postgresql-server-dev-15, make, gcc, g++, python3; with --chart
# also a package to draw the TPC-H chart (python3-matplotlib, else gnuplot-nox).
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
#   - each tool on PATH.
# nvcc is not a package here: Debian's main archive has none.  Without it the
# build makes the host twin only (see the Makefile), and this script says so.
# Runs apt-get as root or through sudo, and only when something is missing.
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
apt_install() {
	if [ $apt_updated = 0 ]; then
		$sudo apt-get update -qq
		apt_updated=1
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
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
	echo "install-deps: installing python3-matplotlib for the chart"
	apt_install python3-matplotlib || apt_install gnuplot-nox ||
		echo "install-deps: no chart package could be installed; the chart will be skipped" >&2
fi
exit 0
