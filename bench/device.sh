# Helpers for a lent GPU machine without PostgreSQL (the workplace's
# device tool).  Source it after the pg-on-gpu script, in the repository
# root; every function writes its logs under $OUT and appends one line per
# step to $OUT/summary:
#   source .device/pg-on-gpu .device/pg15.tar.xz; source bench/device.sh
#   build            make, make install (nvcc from /usr/local/cuda)
#   unit             test/core_test --require-gpu
#   regress          restart with run-all's settings (device gpu, fsync off),
#                    make installcheck and installcheck-gpu
#   fuzz A B N       fuzzer seeds A..B in N processes on contrib_regression
#                    (the leak check, which polls the whole service, off
#                    when N > 1)
#   sfsetup          restart with tpch/main.sh's settings (tpch/server_settings.sh),
#                    load TPC-H SF ${SF:-10} (with foreign keys) into ${DB:-tpch}
#                    (no restart after it: on a restarted server a GPU plan ran
#                    0.90x native where it ran 1.23-1.26x right after the load)
#   med "7 10" TAG   tpch/run.py, ${WORKERS:-8} workers (SF, DB as sfsetup), ${WARMUP:-1} warm-up + ${RUNS:-6} runs per
#                    mode in both orders (ROUNDS=N: N rounds of off, on, on,
#                    off, a session each); SETS="--set NAME=VALUE" adds settings;
#                    TOGGLE=NAME compares a setting off and on in place of
#                    the GPU join (TOGGLE=gpuhash.shared_inner_pages: two
#                    planner rules on one load); TIMEOUT=S cuts a statement at S seconds (default 600: Q18
#                    at SF 10 takes over a minute a run, 6 to 14 runs); each
#                    mode's runs reach med.TAG.log as they end; the plans and
#                    outputs in med.TAG.tar.xz
#   ea "5 7" TAG     one EXPLAIN ANALYZE per query, GPU join off and on, the
#                    query file as written (Q11's fraction is SF 1's; run.py
#                    rewrites it for other scale factors), in ea.TAG.tar.xz;
#                    EA_SETS="SET name = value;" is added to the on runs
#                    only, as run.py's --set
#   alt "4 6" N TAG  N sessions per query, off and on in turn, serial by
#                    default: each session's 3 run times and the CPU and
#                    NUMA node its backend ended on, into alt.TAG.log
#   pin 13           new backends run on CPU 13 only ("all" undoes it)
#   restartab "5" T  EXPLAIN (ANALYZE, BUFFERS) off and on before and after a
#                    CHECKPOINT and restart, each after a warm-up pass
#   facts            the machine's CPU and NUMA layout and GPU topology
#                    into $OUT/facts.txt (serial runs of one plan spread
#                    0.71-1.48 between sessions)
#   hugeab "5 7"     a fresh load with huge_pages = on (9000 x 2 MB reserved),
#                    med of the queries; then a fresh load without, med again
#                    (both plans gained alike)
#   qperf "5" TAG    perf record -a of 3 runs a mode, by dso and symbol,
#                    with perf stat's page faults (perf from .device/perf.tar.xz;
#                    the device has no perf: run perfpack on the build machine)
#   streams "3,5" T  8 concurrent streams: the service on one GPU, on all,
#                    then PostgreSQL's joins, with GPU and CPU use sampled
#   strom "3,5" TAG  PG-Strom 6.1 (.device/pgstrom.tar.xz and on-gpu.sh, from
#                    ../shared/pgstrom) on the loaded ${DB:-tpch}: the server
#                    restarted with pg_strom preloaded (not gpuhash), med with
#                    TOGGLE=pg_strom.enabled (off: PostgreSQL's own plans), then
#                    back to BENCH_OPTS; results compared as med compares them
#   calibrate        bench/calibrate.py (${CAL_ROWS:-1000000} rows, ${CAL_RUNS:-3}
#                    runs) on a server restarted with BENCH_OPTS: every cost
#                    constant, the page path's too, as postgresql.conf lines
#                    and $OUT/calibrate.json (about 1 min on an H200; before
#                    sfsetup, which must not be followed by a restart)
#   variations       bench/variations.py on the loaded ${DB:-tpch} (SF ${SF:-10}):
#                    TPC-H with and without foreign keys, 4 workers and serial
#                    (VARS=nofk-4,nofk-8 picks others; QUERIES=1-11 some queries),
#                    each plan without a GPU node checked to be PostgreSQL's,
#                    each with one timed off and on (${WARMUP:-1} warm-up, ${RUNS:-3} runs, the
#                    ratios against 0.95) within ${BUDGET:-180} s; drops the foreign keys
#                    for good; the table in $OUT/variations${TAG}.md and the summary
#   ssbsetup         the Star Schema Benchmark at SF ${SSB_SF:-10} (ssb/load.sh, with
#                    foreign keys, lineorder made by a process a CPU) into ${SSB_DB:-ssb},
#                    on the server as it runs
#   ssbcheck TAG     ssb/check.py on it, ${WORKERS:-8} workers: plans off and on
#                    checked, results compared, and with RUNS > 1 the medians
#                    of RUNS runs a mode after ${WARMUP:-1} warm-up and their ratios;
#                    SSB_SETS="--set NAME=VALUE ..." for the GPU mode (the GPU
#                    aggregates steered on: gpuhash.page_cpu_cost=-1,
#                    gpuhash.match_row_cost=10, gpuhash.page_match_cost=10)
#   calvar           build, calibrate, SF 1 sfsetup and variations (timings
#                    within ${BUDGET:-120} s) in one go, about 6 min: issue 54's run
#   dimbuild "14 19" TAG  the joined GpuPreAgg's dimension build (issue 53):
#                    EXPLAIN ANALYZE of each query with gpuhash.gpu_aggregate_join
#                    on, steered to the joined GpuPreAgg (ea's steering SETs) and
#                    at the defaults, ${WORKERS:-8} workers (shared dimension: from
#                    the inner plan's rows) and serial, the dimension from rows
#                    (gpuhash.dimension_pages off) and from pages (on); prints
#                    each plan's Dimension, Inner Rows, Dimension Bytes, Shipped
#                    Bytes and the build's times (Dimension Build, Inner Collect,
#                    Values, Ship, Service; from pages the inner walk) to the
#                    summary; the plans in dimbuild.TAG.tar.xz
#   pagecache 24GB   the page cache (gpuhash.page_cache_size) set by ALTER
#                    SYSTEM and a reload; pagecache 0 resets it
#   swaits "SQL" T [SETS]  EXPLAIN ANALYZE VERBOSE of SQL (GPU join on, the
#                    second of two runs) into swaits.T.txt, and each GPU
#                    node's Probe Wait and Service Waits (where its requests
#                    to the service waited) to the summary
#   qmed "SQL" T [SETS]  SQL's median of 5 runs after a warm-up (GPU join on)
#   pack             everything under $OUT but the summary into one
#                    out.tar.xz: end a command with it
#   hugeopts         13 500 huge pages of 2 MB reserved, and huge_pages = on
#                    and min_dynamic_shared_memory = 8GB added to BENCH_OPTS
#                    (the SF 10 runs of bench/RESULTS.md since session 48)
#   LIB=N instlib    install .device/N.so.xz, a library built elsewhere
#                    (make GPU_ARCHS=90, stripped, xz) with the tree's control
#                    and SQL files: two libraries A/B without building here
#   suites "a b" T   installcheck of gpuhash_a gpuhash_b (run-all's settings,
#                    the page cache reset first: the expected outputs have
#                    none), the diffs into suites.T.diffs
#   eav 10 T [SETS]  one EXPLAIN ANALYZE, GPU join on, with SETS; its
#                    aggregate, GPU node and build-time lines to the summary
#   qm 10 T [SETS]   qmed of a query file (its comments and ';' dropped)
#   plans22 T        EXPLAIN (FORMAT JSON) of the 22 with the GPU join on,
#                    into plans.T/: which plans a library moved
# The device returns about 8 files of $OUT, hence the archives.
# The machine goes back after 30 s idle: chain the steps in one command.
export CUDA_HOME=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH HAVE_NVCC=yes
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

build() {
	make -j16 all test/core_test >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; return 1; }
	make install >>$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; return 1; }
	chmod -R a+rX . ; chmod a+rx "$PWD" /root 2>/dev/null
	el "built"
}

unit() {
	test/core_test --require-gpu >$OUT/core_test.log 2>&1; echo "core_test rc=$?" | tee -a $OUT/summary
	tail -3 $OUT/core_test.log
}

waitsvc() {
	for _ in $(seq 1 300); do grep -q "gpuhash GPU service ready" /tmp/pg.$PGPORT.log && return 0; sleep 0.1; done
	echo "service not ready"; tail -20 /tmp/pg.$PGPORT.log
}

# restart_with OPTS: restart the server with these options, wait for the service
restart_with() {
	: >/tmp/pg.$PGPORT.log
	PG_OPTS="$1" pgrestart
	waitsvc
}

regress() {
	restart_with "-c shared_preload_libraries=gpuhash -c gpuhash.device=gpu -c fsync=off"
	make installcheck >$OUT/installcheck.log 2>&1; echo "installcheck rc=$?" | tee -a $OUT/summary
	grep -E "tests passed|failed|FAILED" $OUT/installcheck.log | tail -5
	[ -f regression.diffs ] && cp regression.diffs $OUT/installcheck.diffs
	make installcheck-gpu >$OUT/installcheck-gpu.log 2>&1; echo "installcheck-gpu rc=$?" | tee -a $OUT/summary
	grep -E "tests passed|failed|FAILED" $OUT/installcheck-gpu.log | tail -5
	[ -f regression.diffs ] && cp regression.diffs $OUT/installcheck-gpu.diffs
	el "regress done"
}

# seeds FROM..TO over PROCS processes against contrib_regression
fuzz() {
	local from=$1 to=$2 procs=$3 n=$(( ($2 - $1 + 1 + $3 - 1) / $3 )) i pids=()
	for i in $(seq 0 $((procs - 1))); do
		local a=$((from + i * n)) b=$((from + i * n + n - 1))
		[ $b -gt $to ] && b=$to
		[ $a -gt $to ] && break
		python3 test/fuzz/fuzz.py --seeds-from $a --seeds-to $b --queries 50 --timeout 20 \
			--leak-check $([ $procs -gt 1 ] && echo off || echo auto) --dbname contrib_regression >$OUT/fuzz.$a.log 2>&1 &
		pids+=($!)
	done
	local rc=0
	for p in "${pids[@]}"; do wait $p || rc=1; done
	echo "fuzz $from-$to rc=$rc" | tee -a $OUT/summary
	tail -qn 1 $OUT/fuzz.*.log
	(cd $OUT && tar -cJf fuzz.$from.tar.xz fuzz.*.log && rm -f fuzz.*.log)
	el "fuzz done"
}

# tpch/main.sh's server settings for 8 workers on this machine
. tpch/server_settings.sh
BENCH_OPTS="-c shared_preload_libraries=gpuhash -c gpuhash.device=gpu $(tpch_server_settings 8 | paste -sd' ')"

sfsetup() {
	restart_with "$BENCH_OPTS"
	make -s -C tpch >/dev/null
	psql -X -qc "drop database if exists ${DB:-tpch}" -c "create database ${DB:-tpch}" postgres
	tpch/load.sh -s ${SF:-10} -d ${DB:-tpch} -j 16 >$OUT/load.${DB:-tpch}.log 2>&1; echo "load SF ${SF:-10} rc=$?" | tee -a $OUT/summary
	tail -10 $OUT/load.${DB:-tpch}.log
	psql -X -qc "create extension if not exists gpuhash" ${DB:-tpch}
	el "loaded"
}

# prewarm: TPC-H's tables into shared buffers (pg_prewarm, no ring), the
# indexes first and the largest table last, so that both modes run against
# a settled server, not one just restarted: the page path reads a page
# from shared buffers for about a third of the CPU it takes to copy the
# page in from the kernel
prewarm() {
	psql -X -qc "create extension if not exists pg_prewarm" ${DB:-tpch} || return 1
	psql -X -tA ${DB:-tpch} <<'SQL' | tee -a $OUT/summary
SELECT 'prewarmed ' || sum(pg_prewarm(c.oid::regclass))::text || ' blocks, '
       || pg_size_pretty(sum(pg_relation_size(c.oid))) || ' in '
       || count(*) || ' relations'
FROM (SELECT c.oid, c.relkind, pg_relation_size(c.oid) AS sz
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')
      ORDER BY c.relkind = 'r', pg_relation_size(c.oid)) c;
SQL
	el "prewarm"
}

# contig LABEL: lineitem's buffers, and the share whose next block sits in
# the next buffer (a load or prewarm leaves them in order, a parallel
# scan's workers interleave them; the page path ran 1.5x slower on
# interleaved buffers, RESULTS.md)
contig() {
	psql -X -qAt ${DB:-tpch} -c "create extension if not exists pg_buffercache" -c "
SELECT '$1: lineitem buffers ' || count(*) || ', next block in next buffer ' ||
       round(100.0 * count(*) FILTER (WHERE bufferid = prev + 1) / greatest(count(*), 1), 1) || '%'
FROM (SELECT bufferid, lag(bufferid) OVER (ORDER BY relblocknumber) AS prev
      FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('lineitem') AND relforknumber = 0
        AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) s" 2>/dev/null | tee -a $OUT/summary
}

# med "10 7" TAG: warm-up + 6 runs per mode, both orders
med() {
	python3 tpch/run.py --sf ${SF:-10} --workers ${WORKERS:-8} --device gpu --skip-load --db ${DB:-tpch} --queries "$(echo $1 | tr ' ' ,)" \
		--runs ${RUNS:-6} --warmup ${WARMUP:-1} --order both --rounds ${ROUNDS:-1} --timeout ${TIMEOUT:-600} ${SETS:-} \
		--toggle ${TOGGLE:-enable_gpuhashjoin} \
		--save-dir $OUT/med.$2 --report $OUT/med.$2.md \
		>$OUT/med.$2.log 2>&1
	echo "med $1 $2 rc=$?" | tee -a $OUT/summary
	grep -E "^\| *Q|geomean|geometric" $OUT/med.$2.md | head -30
	# the device returns a few files only: the plans and outputs as one
	tar -C $OUT -cJf $OUT/med.$2.tar.xz med.$2 && rm -rf $OUT/med.$2
	el "med $2"
}

# m3 "1-12" TAG: each query three runs a mode, no warm-up, native first
# (the medians of all 22 in about 560 s, split over two calls)
m3() {
	python3 tpch/run.py --sf ${SF:-10} --workers ${WORKERS:-8} --device gpu --skip-load --db ${DB:-tpch} --queries "$1" \
		--runs 3 --warmup 0 --order off-first --timeout ${TIMEOUT:-150} \
		--save-dir $OUT/m3.$2 --report $OUT/m3.$2.md >$OUT/m3.$2.log 2>&1
	echo "m3 $1 $2 rc=$?" | tee -a $OUT/summary
	grep -E "^\| *Q|geomean|geometric|total|Total" $OUT/m3.$2.md | head -40 | tee -a $OUT/summary
	tar -C $OUT -cJf $OUT/m3.$2.tar.xz m3.$2 && rm -rf $OUT/m3.$2
	el "m3 $2" | tee -a $OUT/summary
}

# ea "5 7" TAG: EXPLAIN ANALYZE off and on
ea() {
	local q f
	for q in $1; do
		f=tpch/queries/q$(printf %02d $q).sql
		for m in off on; do
			{ echo "SET max_parallel_workers_per_gather=${WORKERS:-8}; SET enable_gpuhashjoin=$m; SET gpuhash.device=gpu;";
			  [ $m = on ] && echo "${EA_SETS:-}";
			  echo "EXPLAIN (ANALYZE, VERBOSE off, BUFFERS ${EA_BUFFERS:-off})"; cat $f; } |
				psql -X -q ${DB:-tpch} >$OUT/ea.$2.q$q.$m.txt 2>&1
			echo "ea Q$q $m: $(grep -m1 'Execution Time' $OUT/ea.$2.q$q.$m.txt)"
		done
	done
	(cd $OUT && tar -cJf ea.$2.tar.xz ea.$2.q*.txt && rm -f ea.$2.q*.txt)
	el "ea $2"
}

# alt "4 6" N TAG: N sessions per query, GPU join off and on in turn, each a
# warm-up and 3 timed runs, with the CPU and NUMA node the backend ended on:
# does a session's placement explain the spread of one plan's serial runs?
alt() {
	local q m i f cpu
	for q in $1; do
		f=tpch/queries/q$(printf %02d $q).sql
		for i in $(seq 1 $2); do
			for m in off on; do
				{ echo "SET max_parallel_workers_per_gather=${WORKERS:-0}; SET enable_gpuhashjoin=$m; SET gpuhash.device=gpu;"
				  echo "\\o /dev/null"; cat $f; echo "\\timing on"; cat $f; cat $f; cat $f; echo "\\timing off"; echo "\\o"
				  echo "\\pset tuples_only on"
				  echo "SELECT 'cpu ' || split_part(pg_read_file('/proc/self/stat'), ' ', 39);"; } |
					psql -X -q ${DB:-tpch} >$OUT/alt.tmp 2>&1
				cpu=$(grep -o "cpu [0-9]*" $OUT/alt.tmp | awk '{print $2}')
				echo "alt Q$q $i $m $(grep -o '^Time: [0-9.]*' $OUT/alt.tmp | awk '{printf "%s ", $2}')cpu $cpu node $(basename $(ls -d /sys/devices/system/cpu/cpu$cpu/node* 2>/dev/null) 2>/dev/null)" |
					tee -a $OUT/alt.$3.log
			done
		done
	done
	rm -f $OUT/alt.tmp
	el "alt $3"
}

# restartab "5 7" TAG: each query's EXPLAIN (ANALYZE, BUFFERS), GPU join
# off and on, on the server as it is (after a warm-up pass), then again
# after a CHECKPOINT and restart (after a warm-up pass): whether a restart
# slows the GPU plans (a GPU plan at SF 10 ran 0.90x native on a restarted
# server of another machine, 1.23-1.26x on servers timed right after the load)
restartab() {
	EA_BUFFERS=on ea "$1" $2.warm0 >/dev/null
	EA_BUFFERS=on ea "$1" $2.before
	psql -X -qc "checkpoint" postgres
	restart_with "$BENCH_OPTS"
	EA_BUFFERS=on ea "$1" $2.warm1 >/dev/null
	EA_BUFFERS=on ea "$1" $2.after
}

# hugeab "5 7": the queries on a load made under huge pages, then on one
# made without them, one machine (a restart alone would also empty shared
# buffers)
hugeab() {
	local opts="$BENCH_OPTS"
	sysctl -w vm.nr_hugepages=9000 >/dev/null || return 1
	BENCH_OPTS="$opts -c huge_pages=on" sfsetup
	echo "huge pages: $(grep -E 'HugePages_(Total|Free)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')" | tee -a $OUT/summary
	RUNS=${RUNS:-2} med "$1" huge
	BENCH_OPTS="$opts -c huge_pages=off" sfsetup
	RUNS=${RUNS:-2} med "$1" p4k
	BENCH_OPTS="$opts"
}

# placement "14 5" TAG: the queries on one load with the table's buffers
# interleaved (a restart, then the warm-up's parallel workers read them in)
# and in block order (a restart, then prewarm); HUGE=1 with huge pages
# (9000 x 2 MB reserved first)
placement() {
	local opts="$BENCH_OPTS"
	if [ -n "${HUGE:-}" ]; then
		sysctl -w vm.nr_hugepages=9000 >/dev/null || return 1
		BENCH_OPTS="$opts -c huge_pages=on"
	fi
	restart_with "$BENCH_OPTS"
	RUNS=${RUNS:-2} med "$1" $2.interleaved
	contig $2.interleaved
	restart_with "$BENCH_OPTS"
	prewarm
	contig $2.in-order
	RUNS=${RUNS:-2} med "$1" $2.in-order
	[ -n "${HUGE:-}" ] && echo "huge pages: $(grep -E 'HugePages_(Total|Free)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')" | tee -a $OUT/summary
	BENCH_OPTS="$opts"
	restart_with "$BENCH_OPTS"
}

# strom "3,5" TAG: PG-Strom's plans against PostgreSQL's on the loaded database
# (PREWARM=1: its freshly started server prewarmed first)
strom() {
	local base
	base=$(tpch_server_settings ${WORKERS:-8} | paste -sd' ')
	PGSTROM_BASE_OPTS="$base" source .device/on-gpu.sh .device/pgstrom.tar.xz ${DB:-tpch} \
		>$OUT/strom.start.log 2>&1 || { tail -20 $OUT/strom.start.log; return 1; }
	[ -n "${PREWARM:-}" ] && prewarm
	TOGGLE=pg_strom.enabled med "$1" strom.$2
	pgstrom_off >/dev/null 2>&1
	restart_with "$BENCH_OPTS"
	el "strom $2"
}

# lo: lineitem JOIN orders count(*), the median of 5 after a warm-up:
# native, the page path, the tuple path (issue 53's 6x)
lo() {
	local q="SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey" m set t
	for m in off on tuples; do
		set="SET enable_gpuhashjoin = $([ $m = off ] && echo off || echo on);"
		[ $m = tuples ] && set="$set SET gpuhash.page_scan = off;"
		t=$({ echo "SET max_parallel_workers_per_gather = ${WORKERS:-8}; SET gpuhash.device = gpu; $set"; echo "\\o /dev/null"
		      echo "$q;"; echo "\\timing on"; for i in 1 2 3 4 5; do echo "$q;"; done; } |
			psql -X -q ${DB:-tpch} 2>&1 | grep -o "^Time: [0-9.]*" | awk '{print $2}' | sort -n | sed -n 3p)
		echo "lo $m median of 5: $t ms" | tee -a $OUT/summary
	done
}

# stromw "3,5" TAG: PG-Strom beside gpuhash on one server state: PG-Strom's
# server prewarmed after its start (a start empties shared buffers), then
# ours, each timed alike (med): a ratio moves with the server's state
stromw() {
	PREWARM=1 strom "$1" $2 || return 1
	prewarm
	med "$1" ours.$2
	el "stromw $2"
}

# perfbin: the perf of .device/perf.tar.xz (perfpack), unpacked once, in $P
perfbin() {
	P="/tmp/perfb/lib/ld-linux-x86-64.so.2 --library-path /tmp/perfb/lib /tmp/perfb/perf"
	[ -x /tmp/perfb/perf ] || tar -C /tmp -xJf .device/perf.tar.xz
}

# perfsql Q MODE FILE: TPC-H query Q three times with the GPU join MODE into
# FILE, its output dropped, and run once as the warm-up
perfsql() {
	{ echo "SET max_parallel_workers_per_gather=${WORKERS:-8}; SET enable_gpuhashjoin=$2; \\o /dev/null";
	  for i in 1 2 3; do cat tpch/queries/q$(printf %02d $1).sql; done; } >$3
	psql -X -q -f $3 ${DB:-tpch} >/dev/null 2>&1
}

# qon "5 7" TAG: where the CPU goes with the GPU join on (perf record -g of
# 3 runs after a warm-up, all CPUs), the top symbols to the summary
qon() {
	local P q f
	perfbin || return 1
	for q in $1; do
		f=/tmp/qon.$q.sql
		perfsql $q on $f
		$P record -a -g -F 999 -o /tmp/qon.data -- psql -X -q -f $f ${DB:-tpch} >/dev/null 2>&1
		$P report -i /tmp/qon.data --no-children --sort dso,sym --stdio -g none --percent-limit 0.3 >$OUT/qon.$2.q$q.sym.txt 2>&1
		echo "qon Q$q: $(grep -m1 'Event count' $OUT/qon.$2.q$q.sym.txt)" | tee -a $OUT/summary
		grep -v "^#" $OUT/qon.$2.q$q.sym.txt | grep -v "^$" | head -25 | tee -a $OUT/summary
	done
	el "qon $2"
}

# perfpack: on the build machine (Debian 12, linux-perf installed), this
# machine's perf with its shared libraries and loader into .device/perf.tar.xz,
# for qperf to run on a device that has none
perfpack() {
	local d=$(mktemp -d)
	mkdir -p $d/perfb/lib && cp "$(command -v perf)" $d/perfb/perf || return 1
	ldd $d/perfb/perf | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' |
		xargs -r -I{} cp -L {} $d/perfb/lib/
	mkdir -p .device && tar -C $d -cJf .device/perf.tar.xz perfb && rm -rf $d
}

# qperf "5" TAG: where the CPU goes in each mode, 3 runs after a warm-up
qperf() {
	local P q m f
	perfbin || return 1
	for q in $1; do
		for m in on off; do
			f=/tmp/qperf.$q.$m.sql
			perfsql $q $m $f
			$P stat -a -e page-faults -o $OUT/qperf.$2.q$q.$m.stat -- psql -X -q -f $f ${DB:-tpch} >/dev/null 2>&1
			$P record -a -F 1999 -o /tmp/qperf.data -- psql -X -q -f $f ${DB:-tpch} >/dev/null 2>&1
			$P report -i /tmp/qperf.data --sort dso,sym --stdio --percent-limit 0.15 >$OUT/qperf.$2.q$q.$m.sym.txt 2>&1
			$P report -i /tmp/qperf.data --sort dso --stdio >$OUT/qperf.$2.q$q.$m.dso.txt 2>&1
			echo "qperf Q$q $m: $(grep -Eo '[0-9,]+ +page-faults' $OUT/qperf.$2.q$q.$m.stat), $(grep -m1 'Event count' $OUT/qperf.$2.q$q.$m.dso.txt)" | tee -a $OUT/summary
			grep -v "^#" $OUT/qperf.$2.q$q.$m.sym.txt | grep -v "^$" | head -12
		done
	done
	el "qperf $2"
}

# pin CPUS: the postmaster, and so every backend it starts from now on,
# runs on CPUS only (taskset list, e.g. "13" or "0-7"); "all" undoes it.
# With alt: is a session's speed its vCPU's?
pin() {
	local c=$1
	[ "$c" = all ] && c=0-$(($(nproc) - 1))
	taskset -a -p -c "$c" "$(head -1 $PGDATA/postmaster.pid)" >/dev/null &&
		echo "postmaster pinned to $c" | tee -a $OUT/summary
}

facts() {
	{ lscpu; echo; command -v numactl >/dev/null && numactl -H || echo "numactl: not installed";
	  echo; grep -H . /sys/devices/system/node/node*/cpulist 2>/dev/null; echo;
	  nvidia-smi topo -m 2>/dev/null; echo;
	  grep -H . /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled \
		/proc/sys/vm/nr_hugepages 2>/dev/null; } >$OUT/facts.txt 2>&1
	grep -E "^(Model name|Socket|Core|Thread|NUMA node)" $OUT/facts.txt | tee -a $OUT/summary
}

# streams "3,5,10,12,14" TAG: ${STREAMS:-8} concurrent streams
# (bench/tpch_streams.py, 4 workers a Gather, a median of 3 runs), the
# service on one GPU (gpuhash.gpus = 0), then on all, then PostgreSQL's
# joins; GPU utilisation (nvidia-smi, every 0.5 s) and the CPUs' busy
# share (vmstat, every 1 s) sampled through each (issue 15's throughput
# target: what a second GPU can add depends on how busy the first is)
streams() {
	local qs=${1:-3,5,10,12,14} tag=$2 mode set label
	for mode in gpu0 gpuall native; do
		case $mode in
		gpu0) set="gpuhash.gpus=0" label="one GPU" ;;
		gpuall) set="gpuhash.gpus=all" label="all GPUs" ;;
		native) set="gpuhash.gpus=all" label="native" ;;
		esac
		restart_with "$BENCH_OPTS -c $set"
		nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 >$OUT/smi.$tag.$mode.log 2>&1 &
		local smi=$!
		vmstat -n 1 >$OUT/vmstat.$tag.$mode.log 2>&1 &
		local vms=$!
		python3 bench/tpch_streams.py --db ${DB:-tpch} --streams ${STREAMS:-8} --queries $qs \
			--set max_parallel_workers_per_gather=4 --set gpuhash.device=gpu --runs 3 --label "$label" \
			$([ $mode = gpu0 ] && echo --check-native) $([ $mode = native ] && echo --set enable_gpuhashjoin=off) \
			>>$OUT/streams.$tag.log 2>&1
		echo "streams $mode rc=$?" >>$OUT/summary
		kill $smi $vms 2>/dev/null; wait $smi $vms 2>/dev/null
		echo "$label: $(tail -1 $OUT/streams.$tag.log) GPU busy % by GPU: $(awk -F', ' '{ s[$1] += $2; n[$1]++ } END { for (g in s) printf "%s: %.1f ", g, s[g] / n[g] }' $OUT/smi.$tag.$mode.log)CPU busy % (samples under 60% idle): $(awk 'NR > 3 && $15 < 60 { s += $13 + $14; n++ } END { if (n) printf "%.1f", s / n }' $OUT/vmstat.$tag.$mode.log)" |
			tee -a $OUT/summary
	done
	el "streams $tag"
}

# calibrate: the cost constants on this server (bench/calibrate.py), the
# server restarted with the benchmark's settings (shared_buffers holds the
# calib_* tables), in the postgres database
calibrate() {
	restart_with "$BENCH_OPTS"
	PYTHONUNBUFFERED=1 python3 bench/calibrate.py --db postgres --rows ${CAL_ROWS:-1000000} \
		--runs ${CAL_RUNS:-3} --json $OUT/calibrate.json >$OUT/calibrate.log 2>&1
	echo "calibrate rc=$?" | tee -a $OUT/summary
	# the table and settings, or where it stopped
	grep -q "^one cost unit" $OUT/calibrate.log || tail -5 $OUT/calibrate.log
	sed -n '/^one cost unit/,$p' $OUT/calibrate.log
	el "calibrate"
}

# variations: TPC-H under issue 54's variations on the loaded database
variations() {
	PYTHONUNBUFFERED=1 python3 bench/variations.py --sf ${SF:-10} --db ${DB:-tpch} --device ${DEVICE:-gpu} \
		--runs ${RUNS:-3} --warmup ${WARMUP:-1} --budget ${BUDGET:-180} ${VARS:+--variations $VARS} \
		${QUERIES:+--queries $QUERIES} --out $OUT/var${TAG:-} >$OUT/variations${TAG:-}.log 2>&1
	echo "variations rc=$?" | tee -a $OUT/summary
	cp $OUT/var${TAG:-}/variations.md $OUT/variations${TAG:-}.md 2>/dev/null
	cp $OUT/var${TAG:-}/variations.json $OUT/variations${TAG:-}.json 2>/dev/null
	tar -C $OUT -cJf $OUT/variations${TAG:-}.tar.xz var${TAG:-} && rm -rf $OUT/var${TAG:-}
	if [ -f $OUT/variations${TAG:-}.md ]; then
		tee -a $OUT/summary <$OUT/variations${TAG:-}.md
	else
		tail -20 $OUT/variations${TAG:-}.log
	fi
	el "variations"
}

ssbsetup() {
	ssb/load.sh -s ${SSB_SF:-10} -d ${SSB_DB:-ssb} >$OUT/load.${SSB_DB:-ssb}.log 2>&1
	echo "ssb load SF ${SSB_SF:-10} rc=$?: $(tail -1 $OUT/load.${SSB_DB:-ssb}.log)" | tee -a $OUT/summary
	psql -X -qc "create extension if not exists gpuhash" ${SSB_DB:-ssb}
	el "ssb loaded"
}

ssbcheck() {
	PYTHONUNBUFFERED=1 python3 ssb/check.py --db ${SSB_DB:-ssb} --workers ${WORKERS:-8} --device gpu \
		--plans $OUT/ssb.$1 --results --runs ${RUNS:-3} --warmup ${WARMUP:-1} ${SSB_SETS:-} \
		>$OUT/ssb.$1.log 2>&1
	echo "ssbcheck $1 (${WORKERS:-8} workers) rc=$?" | tee -a $OUT/summary
	tee -a $OUT/summary <$OUT/ssb.$1.log
	tar -C $OUT -cJf $OUT/ssb.$1.tar.xz ssb.$1 && rm -rf $OUT/ssb.$1
	el "ssbcheck $1"
}

# calvar: issue 54's device run, about 6 min: build, calibrate, an SF 1
# load, the variations; everything but the summary packed at the end
calvar() {
	build || return 1
	calibrate
	SF=1 DB=tpch1 sfsetup
	SF=1 DB=tpch1 BUDGET=${BUDGET:-120} variations
	pack
}

# The device drops files past its count (med.d.tar.xz was lost so): one archive.
# dimbuild "14 19" TAG: the joined GpuPreAgg's dimension build, by parts
dimbuild() {
	local q f w how dp sets t
	for q in $1; do
		f=tpch/queries/q$(printf %02d $q).sql
		for w in ${WORKERS:-8} 0; do
			for how in steered defaults; do
				for dp in off on; do
					sets="SET gpuhash.gpu_aggregate_join = on; SET gpuhash.dimension_pages = $dp;"
					[ $how = steered ] && sets="$sets SET gpuhash.page_cpu_cost = -1; SET gpuhash.match_row_cost = 10; SET gpuhash.page_match_cost = 10;"
					t=$OUT/dimbuild.$2.q$q.w$w.$how.pages_$dp.txt
					{ echo "SET max_parallel_workers_per_gather=$w; SET gpuhash.device=gpu; $sets"
					  echo "EXPLAIN (ANALYZE, VERBOSE off)"; cat $f; } | psql -X -q ${DB:-tpch} >$t 2>&1
					echo "dimbuild Q$q workers $w $how dimension_pages=$dp: $(grep -m1 -o 'Execution Time: .*' $t)" | tee -a $OUT/summary
					grep -E "GpuPreAgg|Dimension|Inner (Rows|Pages|Walk|Collect|Conditions|Requests)|GPU Join:|GPU Time" $t |
						sed 's/^ */    /' | tee -a $OUT/summary
				done
			done
		done
	done
	(cd $OUT && tar -cJf dimbuild.$2.tar.xz dimbuild.$2.q*.txt && rm -f dimbuild.$2.q*.txt)
	el "dimbuild $2"
}

pack() {
	(cd $OUT && tar -cJf /tmp/out.tar.xz --exclude=./summary . &&
		find . -mindepth 1 -maxdepth 1 ! -name summary -exec rm -rf {} + &&
		mv /tmp/out.tar.xz out.tar.xz)
	el "packed"
}
pagecache() {
	if [ "$1" = 0 ]; then
		psql -X -qc "ALTER SYSTEM RESET gpuhash.page_cache_size" -c "SELECT pg_reload_conf()" postgres >/dev/null
	else
		psql -X -qc "ALTER SYSTEM SET gpuhash.page_cache_size = '$1'" -c "SELECT pg_reload_conf()" postgres >/dev/null
	fi
	sleep 1
	el "pagecache $1"
}
swaits() {
	local i
	for i in 1 2; do
		{ echo "SET max_parallel_workers_per_gather = ${WORKERS:-8}; SET gpuhash.device = gpu; ${3:-}"
		  echo "EXPLAIN (ANALYZE, VERBOSE) $1;"; } | psql -X -q ${DB:-tpch} >$OUT/swaits.$2.txt 2>&1
	done
	echo "swaits $2: $(grep -m1 'Execution Time' $OUT/swaits.$2.txt)" | tee -a $OUT/summary
	grep -E 'Custom Scan|Probe Wait Time|Service Waits' $OUT/swaits.$2.txt | sed 's/  */ /g' | tee -a $OUT/summary
}
qmed() {
	local t
	t=$({ echo "SET max_parallel_workers_per_gather = ${WORKERS:-8}; SET gpuhash.device = gpu; ${3:-}"; echo "\\o /dev/null"
	      echo "$1;"; echo "\\timing on"; for i in 1 2 3 4 5; do echo "$1;"; done; } |
		psql -X -q ${DB:-tpch} 2>&1 | grep -o "^Time: [0-9.]*" | awk '{print $2}' | sort -n | sed -n 3p)
	echo "qmed $2 median of 5: $t ms" | tee -a $OUT/summary
}

hugeopts() {
	echo 13500 > /proc/sys/vm/nr_hugepages
	BENCH_OPTS="$BENCH_OPTS -c huge_pages=on -c min_dynamic_shared_memory=8GB"
	nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader | tee -a $OUT/summary
}
instlib() {
	local lib=$(pg_config --pkglibdir) share=$(pg_config --sharedir)
	xz -dc .device/$LIB.so.xz > $lib/gpuhash.so && chmod 755 $lib/gpuhash.so || return 1
	cp gpuhash.control $share/extension/ && cp sql/gpuhash--*.sql $share/extension/
	echo "lib $LIB md5 $(md5sum $lib/gpuhash.so | cut -c1-8)" | tee -a $OUT/summary
}
suites() {
	local r="" s
	for s in $1; do r="$r gpuhash_$s"; done
	psql -X -qc "ALTER SYSTEM RESET gpuhash.page_cache_size" postgres 2>/dev/null
	restart_with "-c shared_preload_libraries=gpuhash -c gpuhash.device=gpu -c fsync=off"
	chmod -R a+rX . ; chmod a+rx "$PWD" /root 2>/dev/null
	rm -f regression.diffs
	make installcheck NO_INSTALL=1 REGRESS="$r" >$OUT/suites.$2.log 2>&1; echo "suites $2 rc=$?" | tee -a $OUT/summary
	grep -E "tests passed|failed|FAILED" $OUT/suites.$2.log | tail -8 | tee -a $OUT/summary
	[ -f regression.diffs ] && cp regression.diffs $OUT/suites.$2.diffs
	el "suites $2" | tee -a $OUT/summary
}
eav() {
	local f=tpch/queries/q$(printf %02d $1).sql t=$OUT/eav.$2.q$1.txt
	{ echo "SET max_parallel_workers_per_gather=${WORKERS:-8}; SET enable_gpuhashjoin=on; SET gpuhash.device=gpu; ${3:-}"
	  echo "EXPLAIN (ANALYZE, VERBOSE off)"; cat $f; } | psql -X -q ${DB:-tpch} >$t 2>&1
	echo "eav Q$1 $2: $(grep -m1 -o 'Execution Time: .*' $t)" | tee -a $OUT/summary
	grep -E "Aggregate|GpuPreAgg|Custom Scan|Dimension Build|Carried|Collect Time" $t |
		sed 's/^ */    /' | head -30 | tee -a $OUT/summary
}
qm() {
	qmed "$(grep -v '^--' tpch/queries/q$(printf %02d $1).sql | sed 's/;[[:space:]]*$//')" "$2" "${3:-}"
}
plans22() {
	local i d=$OUT/plans.$1
	mkdir -p $d
	for i in $(seq -w 1 22); do
		{ echo "SET max_parallel_workers_per_gather=${WORKERS:-8}; SET enable_gpuhashjoin=on; SET gpuhash.device=gpu;"
		  echo "EXPLAIN (FORMAT JSON)"; grep -v '^--' tpch/queries/q$i.sql; } | psql -X -qAt ${DB:-tpch} >$d/q$i.json 2>&1
	done
	el "plans22 $1" | tee -a $OUT/summary
}
