#!/usr/bin/env bash
# Create the TPC-H tables and fill them, in parallel, from tpchgen or from a
# directory of official dbgen .tbl files; then add primary keys, ANALYZE, and
# the foreign keys.
#
#   tpch/load.sh [-s SF] [-d DB] [-j JOBS] [-t TBL_DIR] [-S SEED] [-x SQL_FILE] [-F]
#
#   -s SF       scale factor for the generator (default 1)
#   -d DB       database, created if missing (default $PGDATABASE or tpch)
#   -j JOBS     parallel COPY streams (default: number of CPUs)
#   -t TBL_DIR  load TABLE.tbl, TABLE.tbl.N (dbgen -C) or TABLE.tbl.gz files
#               from TBL_DIR instead of generating
#   -S SEED     generator seed
#   -x SQL_FILE run SQL_FILE after creating the tables and before loading them
#               (tpch/citus.sql distributes them over a Citus cluster);
#               no foreign keys then: Citus refuses some of them
#   -F          leave out the foreign keys (foreign_keys.sql), the schema of
#               bench/history/journal-2026.md before §24
#
# Connection settings come from the usual PG* environment variables.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sf=1
db=${PGDATABASE:-tpch}
jobs=$(nproc 2>/dev/null || echo 2)
tbl_dir=
seed=
extra_sql=
foreign_keys=1
gen=${TPCHGEN:-$here/build/tpchgen}

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }

while getopts "s:d:j:t:S:x:Fh" opt; do
	case $opt in
	s) sf=$OPTARG ;;
	d) db=$OPTARG ;;
	j) jobs=$OPTARG ;;
	t) tbl_dir=$OPTARG ;;
	S) seed=$OPTARG ;;
	x) extra_sql=$OPTARG; foreign_keys= ;;
	F) foreign_keys= ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "load.sh: bad -j '$jobs'" >&2; exit 2; }

tables="lineitem orders partsupp part customer supplier nation region"
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }
t_start=$(now)

# Database.
if [ -z "$(psql_q -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	psql_q -d postgres -c "CREATE DATABASE \"$db\""
fi
psql_q -d "$db" -f "$here/schema.sql"
# before the COPY: rows of a distributed table go straight to its shards
[ -z "$extra_sql" ] || psql_q -d "$db" -f "$extra_sql"

if [ -z "$tbl_dir" ] && [ ! -x "$gen" ]; then
	make -s -C "$here" >&2
fi

# Bulk-load sessions skip waiting for WAL flushes; a crash would only lose the load.
export PGOPTIONS="${PGOPTIONS:-} -c synchronous_commit=off"
export db gen sf seed here

# One COPY stream: "TABLE CHUNK CHUNKS" (generator) or "TABLE FILE CHUNK CHUNKS" (.tbl).
load_one() {
	set -o pipefail
	local t0 table=$1 src
	t0=$(date +%s.%N)
	if [ $# -eq 3 ]; then
		src="tpchgen $2/$3"
		"$gen" -q -s "$sf" ${seed:+-S "$seed"} -T "$table" -C "$3" -c "$2" |
			psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY $table FROM STDIN"
	else
		local file=$2 reader
		src="$(basename "$file") $3/$4"
		case $file in
		*.gz) reader=(gzip -dc "$file") ;;
		*) if [ "$4" -gt 1 ]; then reader=(split -n "l/$3/$4" "$file"); else reader=(cat "$file"); fi ;;
		esac
		# dbgen ends every line with the delimiter; COPY wants it removed.
		"${reader[@]}" | sed 's/|$//' |
			psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY $table FROM STDIN WITH (DELIMITER '|')"
	fi || { echo "load.sh: loading $table ($src) failed" >&2; return 255; }
	awk -v t="$table" -v s="$src" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "  %-8s %-22s %6.1f s\n", t, s, b - a }'
}
export -f load_one

# Chunks per table: about 100 MB of COPY text each (rough bytes per SF unit).
declare -A mb_per_sf=([lineitem]=770 [orders]=170 [partsupp]=120 [part]=25 [customer]=27 [supplier]=2 [nation]=1 [region]=1)

job_list() {
	local t n f files
	for t in $tables; do
		if [ -z "$tbl_dir" ]; then
			n=$(echo "$sf ${mb_per_sf[$t]}" | awk '{ n = int($1 * $2 / 100 + 0.999); print (n < 1 ? 1 : n) }')
			for ((i = 1; i <= n; i++)); do echo "$t $i $n"; done
		else
			files=$(ls "$tbl_dir/$t.tbl" "$tbl_dir/$t.tbl".[0-9]* "$tbl_dir/$t.tbl.gz" 2>/dev/null || true)
			[ -n "$files" ] || { echo "load.sh: no $t.tbl* files in $tbl_dir" >&2; return 1; }
			for f in $files; do
				# A single large plain file is split into line-aligned pieces.
				n=1
				case $f in *.gz) ;; *)
					n=$(( $(stat -c %s "$f") / 100000000 + 1 )) ;;
				esac
				for ((i = 1; i <= n; i++)); do echo "$t $f $i $n"; done
			done
		fi
	done
}

list=$(job_list)
echo "load.sh: loading database $db ($(if [ -n "$tbl_dir" ]; then echo "files from $tbl_dir"; else echo "SF $sf"; fi)," \
	"$(echo "$list" | wc -l) COPY streams, $jobs at a time)"
echo "$list" | xargs -P "$jobs" -L 1 bash -c 'load_one "$@"' _ ||
	{ echo "load.sh: load failed" >&2; exit 1; }
t_copy=$(now)

# Keys and statistics, one table per job, biggest tables first.
echo "load.sh: adding primary keys, VACUUM ANALYZE"
finish_table() {
	local t=$1
	{
		echo "SET maintenance_work_mem = '1GB';"
		grep -i "ALTER TABLE $t " "$here/keys.sql" || true
		echo "VACUUM ANALYZE $t;"
	} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" ||
		{ echo "load.sh: keys/analyze of $t failed" >&2; return 255; }
}
export -f finish_table
echo "$tables" | tr ' ' '\n' | xargs -P "$jobs" -I{} bash -c 'finish_table {}' ||
	{ echo "load.sh: adding keys failed" >&2; exit 1; }

# Foreign keys, once every primary key exists: one job per referencing table,
# since each ALTER TABLE locks its table against the others on it. Each check
# reads the table once; the generator's rows, and dbgen's, always pass.
if [ -n "$foreign_keys" ]; then
	echo "load.sh: adding foreign keys"
	add_foreign_keys() {
		{ grep -i "^ALTER TABLE $1 " "$here/foreign_keys.sql" || true; } |
			psql -X -q -v ON_ERROR_STOP=1 -d "$db" ||
			{ echo "load.sh: foreign keys of $1 failed" >&2; return 255; }
	}
	export -f add_foreign_keys
	echo "$tables" | tr ' ' '\n' | xargs -P "$jobs" -I{} bash -c 'add_foreign_keys {}' ||
		{ echo "load.sh: adding foreign keys failed" >&2; exit 1; }
fi
t_end=$(now)

echo "load.sh: row counts"
for t in $tables; do
	printf '  %-8s %12s\n' "$t" "$(psql_q -d "$db" -tAc "SELECT count(*) FROM $t")"
done
awk -v a="$t_start" -v b="$t_copy" -v c="$t_end" 'BEGIN {
	printf "load.sh: done in %.1f s (copy %.1f s, keys, analyze and foreign keys %.1f s)\n", c - a, b - a, c - b }'
