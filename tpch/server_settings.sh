# The benchmark server's settings for this machine, sourced by tpch/main.sh
# and bench/device.sh so that the GPU machine's runs use the same ones.
#
#   tpch_server_settings WORKERS [SERVERS]
#
# prints "-c name=value" arguments, one per line: shared_buffers a quarter of
# memory up to 16 GB, shared by SERVERS servers on the machine (a Citus
# cluster's three); WORKERS workers per Gather; a throw-away cluster's
# durability off, so loading is not bound by WAL flushes.
tpch_server_settings() {
	local w=$1 servers=${2:-1} mem_mb ncpu shared_mb maint_mb
	mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	ncpu=$(nproc)
	shared_mb=$((mem_mb / 4 > 16384 ? 16384 : mem_mb / 4))
	shared_mb=$((shared_mb / servers))
	maint_mb=$((mem_mb / 16 > 2048 ? 2048 : mem_mb / 16))
	printf -- '-c\n%s\n' \
		shared_buffers=${shared_mb}MB \
		effective_cache_size=$((mem_mb / 2))MB \
		work_mem=256MB \
		maintenance_work_mem=${maint_mb}MB \
		max_parallel_workers_per_gather=$w \
		max_worker_processes=$((w + 8 > ncpu ? w + 8 : ncpu)) \
		max_parallel_workers=$((w > ncpu ? w : ncpu)) \
		max_parallel_maintenance_workers=$((ncpu > 4 ? 4 : ncpu)) \
		jit=off \
		fsync=off synchronous_commit=off full_page_writes=off \
		wal_level=minimal max_wal_senders=0 max_wal_size=16GB checkpoint_timeout=1h
}
