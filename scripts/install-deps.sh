#!/usr/bin/env bash
# Installs what building and testing gpuhash need and this Debian machine lacks:
# postgresql-15, postgresql-server-dev-15, make, gcc, g++, python3; with --chart
# also a package to draw the TPC-H chart (python3-matplotlib, else gnuplot-nox).
# Judged by the files the packages provide, so a PostgreSQL unpacked without
# dpkg (as on the GPU machine) counts as installed.  Runs apt-get as root or
# through sudo, and only when something is missing.
set -euo pipefail

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

missing=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
[ -f /usr/lib/postgresql/15/lib/pgxs/src/makefiles/pgxs.mk ] || missing+=(postgresql-server-dev-15)
for c in make gcc g++ python3; do
	command -v "$c" >/dev/null || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	apt_install "${missing[@]}"
fi

if [ "${1:-}" = --chart ] && ! python3 -c 'import matplotlib' 2>/dev/null &&
	! command -v gnuplot >/dev/null; then
	echo "install-deps: installing python3-matplotlib for the chart"
	apt_install python3-matplotlib || apt_install gnuplot-nox ||
		echo "install-deps: no chart package could be installed; the chart will be skipped" >&2
fi
exit 0
