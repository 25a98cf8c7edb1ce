#!/usr/bin/env bash
# Proves that scripts/install-deps.sh --check judges a machine by the files the
# build really uses.  Each case builds a fake root under a temp dir (empty
# files standing in for binaries and headers) and asserts the exact packages
# named, one a line, and the exit status (0: nothing missing, 1: something).
# The case that matters most is Debian's postgresql-15 alone: it brings
# pg_config and pgxs.mk (through postgresql-client-15) but no postgres.h.
# Needs nothing beyond bash and coreutils; installs nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
deps=$here/scripts/install-deps.sh
tmp=$(mktemp -d /tmp/gpuhash-deps-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0

# make_root DIR PART...: lay out the files each Debian package would bring
make_root() {
	local r=$1 part
	shift
	mkdir -p "$r"
	for part in "$@"; do
		case $part in
		server) put_exec "$r/usr/lib/postgresql/15/bin/postgres" ;;
		client)
			put_exec "$r/usr/lib/postgresql/15/bin/pg_config"
			put_file "$r/usr/lib/postgresql/15/lib/pgxs/src/makefiles/pgxs.mk"
			;;
		headers) put_file "$r/usr/include/postgresql/15/server/postgres.h" ;;
		libc) put_file "$r/usr/include/stdio.h" ;;
		nvcc) put_exec "$r/usr/local/cuda/bin/nvcc" ;;
		*) put_exec "$r/usr/bin/$part" ;;
		esac
	done
}
put_file() { mkdir -p "$(dirname "$1")"; : >"$1"; }
put_exec() { put_file "$1"; chmod +x "$1"; }

# expect NAME WANT_STATUS WANT_PACKAGES WANT_NVCC_NOTE PART...
#   WANT_PACKAGES: the packages named, space-separated, in the script's order
#   WANT_NVCC_NOTE: yes when the "no nvcc" note must be on stderr, no when not
expect() {
	local name=$1 want_status=$2 want_pkgs=$3 want_note=$4 status=0 got note=no
	shift 4
	local r=$tmp/$name
	make_root "$r" "$@"
	CUDA_HOME=/usr/local/cuda "$deps" --check --root "$r" >"$r.out" 2>"$r.err" || status=$?
	got=$(tr '\n' ' ' <"$r.out" | sed 's/ $//')
	grep -q "no nvcc" "$r.err" && note=yes
	if [ "$status" = "$want_status" ] && [ "$got" = "$want_pkgs" ] && [ "$note" = "$want_note" ]; then
		echo "install-deps check: ok    $name: exit $status, missing [${got}], nvcc note $note"
	else
		echo "install-deps check: FAIL  $name: exit $status (want $want_status)," \
			"missing [${got}] (want [${want_pkgs}]), nvcc note $note (want $want_note)"
		sed 's/^/    stderr: /' "$r.err"
		failures=$((failures + 1))
	fi
}

tools=(libc make gcc g++ python3)
# Debian 12 with postgresql-15 installed (it pulls in postgresql-client-15)
expect postgresql-15-only 1 "postgresql-server-dev-15" yes server client "${tools[@]}"
expect complete 0 "" yes server client headers "${tools[@]}"
expect complete-with-nvcc 0 "" no server client headers nvcc "${tools[@]}"
expect no-g++ 1 "g++" yes server client headers libc make gcc python3
# gcc without libc6-dev (only recommended by gcc): no stdio.h to compile with
expect gcc-without-libc-headers 1 "libc6-dev" yes server client headers make gcc g++ python3
expect headers-but-no-pgxs 1 "postgresql-client-15" yes server headers "${tools[@]}"
expect empty 1 "postgresql-15 postgresql-client-15 postgresql-server-dev-15 libc6-dev make gcc g++ python3" yes

[ $failures = 0 ] || { echo "install-deps check: $failures case(s) failed" >&2; exit 1; }
echo "install-deps check: all cases passed"
