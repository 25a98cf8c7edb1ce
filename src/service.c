/*-------------------------------------------------------------------------
 *
 * service.c
 *	  The gpuhash GPU service: a background worker that creates the CUDA
 *	  context once, page-locks a staging area in shared memory once, owns
 *	  every join table's device memory, and serves backends' requests.
 *
 * Why: a CUDA context costs hundreds of milliseconds per process and
 * pinning memory is slow; a service pays both once for the cluster, and
 * keys and ranges cross PCIe from pinned memory.
 *
 * Protocol.  Shared memory holds SVC_SLOTS request slots, each owning a
 * fixed chunk of the staging area.  A backend claims a free slot (atomic
 * FREE -> CLAIMED), writes its request and data, marks it SUBMITTED, sets
 * the service's latch and sleeps on its own latch (cancel and
 * statement_timeout are honoured: a waiting backend that errors out marks
 * the slot ABANDONED and the service discards the result).  The service
 * answers DONE and sets the backend's latch.  A build is BEGIN (rows),
 * APPEND (key chunks), FINISH (options); its key-grouped row order comes
 * back by ROWIDS chunks; probes go one chunk at a time, answered in place.
 * Freeing never waits: table ids go through a lock-free queue, so error
 * cleanup can free tables.  Tables of backends that exit are freed by a
 * sweep; a service that exits takes its tables with it and the next one
 * starts a new generation, so stale table ids fail cleanly.
 *
 * The service runs the GPU when it has one and the host twin otherwise, so
 * the request path is exercised everywhere.  It touches no PostgreSQL data:
 * a CUDA failure is a status code returned to the requester, never an
 * ERROR or a crash of the service.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service.h"

#include <signal.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#define SVC_SLOTS 64
#define SVC_FREE_QUEUE 1024
#define SVC_MAX_GPUS 8

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_CLAIMED,
	SLOT_SUBMITTED,
	SLOT_DONE,
	SLOT_ABANDONED
} SlotState;

typedef enum RequestType
{
	REQ_BUILD_BEGIN,
	REQ_BUILD_APPEND,
	REQ_BUILD_FINISH,
	REQ_ROWIDS,
	REQ_PROBE
} RequestType;

typedef struct SvcSlot
{
	pg_atomic_uint32 state;
	RequestType type;
	int			owner_pid;
	int			owner_procno;
	uint32		table_id;
	int			table_owner;	/* BEGIN: whose exit frees the table */
	uint64		n;				/* rows (BEGIN) or items in the chunk */
	uint64		pos;			/* first row of an APPEND / ROWIDS chunk */
	gh_build_options opt;
	gh_status	status;
	char		err[256];
	gh_table_info info;
} SvcSlot;

typedef struct SvcShared
{
	pg_atomic_uint32 ready;
	pg_atomic_uint32 generation;
	int			pid;
	int			procno;
	int			gpus;
	bool		pinned;
	gh_gpu_info gpu[SVC_MAX_GPUS];
	int			driver_version;
	int			runtime_version;
	uint64		staging_bytes;
	uint64		chunk_bytes;
	pg_atomic_uint64 requests;
	int			tables_alive;
	uint64		device_bytes;
	pg_atomic_uint32 free_queue[SVC_FREE_QUEUE];	/* table ids, 0 = empty */
	SvcSlot		slots[SVC_SLOTS];
} SvcShared;

int			gpuhash_staging_memory_mb = 256;
bool		gpuhash_use_service = true;

static SvcShared *svc = NULL;
static char *staging = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PGDLLEXPORT void gpuhash_service_main(Datum arg);

static Size
staging_size(void)
{
	return (Size) gpuhash_staging_memory_mb * 1024 * 1024;
}

static void
svc_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(SvcShared)));
	/* staging, plus a page to align it for page-locking */
	RequestAddinShmemSpace(staging_size() + 4096);
}

static void
svc_shmem_startup(void)
{
	bool		found;
	char	   *raw;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	svc = ShmemInitStruct("gpuhash service", sizeof(SvcShared), &found);
	if (!found)
	{
		memset(svc, 0, sizeof(SvcShared));
		pg_atomic_init_u32(&svc->ready, 0);
		pg_atomic_init_u32(&svc->generation, 0);
		pg_atomic_init_u64(&svc->requests, 0);
		for (int i = 0; i < SVC_FREE_QUEUE; i++)
			pg_atomic_init_u32(&svc->free_queue[i], 0);
		for (int i = 0; i < SVC_SLOTS; i++)
			pg_atomic_init_u32(&svc->slots[i].state, SLOT_FREE);
		svc->staging_bytes = staging_size();
		/* whole cache lines per slot */
		svc->chunk_bytes = (staging_size() / SVC_SLOTS) & ~(uint64) 127;
	}
	raw = ShmemInitStruct("gpuhash staging", staging_size() + 4096, &found);
	staging = (char *) TYPEALIGN(4096, raw);
	LWLockRelease(AddinShmemInitLock);
}

void
gpuhash_service_register(void)
{
	BackgroundWorker worker;

	DefineCustomIntVariable("gpuhash.staging_memory",
							"Shared memory the GPU service page-locks for transfers.",
							NULL,
							&gpuhash_staging_memory_mb,
							256, 16, 64 * 1024,
							PGC_POSTMASTER, GUC_UNIT_MB,
							NULL, NULL, NULL);

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = svc_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = svc_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuhash GPU service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuhash GPU service");
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuhash");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuhash_service_main");
	RegisterBackgroundWorker(&worker);
}

bool
gpuhash_service_ready(void)
{
	return svc != NULL && gpuhash_use_service && pg_atomic_read_u32(&svc->ready) != 0;
}

int
gpuhash_service_gpu_count(void)
{
	return svc ? svc->gpus : 0;
}

void
gpuhash_service_status(GhServiceStatus *st)
{
	memset(st, 0, sizeof(*st));
	if (svc == NULL)
		return;
	st->running = pg_atomic_read_u32(&svc->ready) != 0;
	st->pid = svc->pid;
	st->gpus = svc->gpus;
	st->pinned = svc->pinned;
	st->staging_bytes = svc->staging_bytes;
	for (int i = 0; i < SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&svc->slots[i].state) != SLOT_FREE)
			st->staging_in_use += svc->chunk_bytes;
	st->tables_alive = svc->tables_alive;
	st->device_bytes = svc->device_bytes;
	st->requests_served = pg_atomic_read_u64(&svc->requests);
}

/* =====================================================================
 * Backend side
 * ===================================================================== */

static char *
chunk_of(SvcSlot *s)
{
	return staging + (Size) (s - svc->slots) * svc->chunk_bytes;
}

static SvcSlot *
claim_slot(void)
{
	for (;;)
	{
		for (int i = 0; i < SVC_SLOTS; i++)
		{
			uint32		expected = SLOT_FREE;
			SvcSlot    *s = &svc->slots[i];

			if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_CLAIMED))
			{
				s->owner_pid = MyProcPid;
				s->owner_procno = MyProc->pgprocno;
				return s;
			}
		}
		/* every slot busy: wait for one, interruptibly */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

static void
release_slot(SvcSlot *s)
{
	pg_atomic_write_u32(&s->state, SLOT_FREE);
}

static gh_status
service_gone(void)
{
	gh_set_last_error("the gpuhash GPU service exited; its join tables are gone");
	return GH_ERR_CUDA;
}

/*
 * Hands the claimed slot to the service and sleeps until it answers.  A
 * cancel or timeout while waiting abandons the request; the service then
 * discards whatever it produced.
 */
static gh_status
submit(SvcSlot *s, uint32 generation)
{
	if (!gpuhash_service_ready() || pg_atomic_read_u32(&svc->generation) != generation)
	{
		release_slot(s);
		return service_gone();
	}
	pg_write_barrier();
	pg_atomic_write_u32(&s->state, SLOT_SUBMITTED);
	SetLatch(&GetPGProcByNumber(svc->procno)->procLatch);

	PG_TRY();
	{
		for (;;)
		{
			if (pg_atomic_read_u32(&s->state) == SLOT_DONE)
				break;
			if (pg_atomic_read_u32(&svc->ready) == 0 ||
				pg_atomic_read_u32(&svc->generation) != generation)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100,
							 PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		uint32		expected = SLOT_SUBMITTED;

		if (!pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_ABANDONED) &&
			expected == SLOT_DONE)
		{
			/* answered meanwhile: a table being built is freed through the queue */
			if (s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND ||
				s->type == REQ_BUILD_FINISH)
			{
				GhRemoteTable t = {0};

				t.id = s->table_id;
				t.generation = generation;
				gpuhash_svc_free(&t);
			}
			release_slot(s);
		}
		/* abandoned: the service drops the table being built itself */
		PG_RE_THROW();
	}
	PG_END_TRY();

	if (pg_atomic_read_u32(&s->state) != SLOT_DONE)
		return service_gone();	/* the service died: it reset every slot */
	pg_read_barrier();
	if (s->status != GH_OK)
		gh_set_last_error(s->err);
	return s->status;
}

gh_status
gpuhash_svc_build(const gh_build_options *opt, const uint64 *keys, uint64 n,
				  int owner_pid, GhRemoteTable *t)
{
	uint32		gen = pg_atomic_read_u32(&svc->generation);
	uint64		per = svc->chunk_bytes / sizeof(uint64);
	SvcSlot    *s = claim_slot();
	gh_status	st;

	memset(t, 0, sizeof(*t));
	t->generation = gen;
	s->type = REQ_BUILD_BEGIN;
	s->n = n;
	s->table_owner = owner_pid ? owner_pid : MyProcPid;
	st = submit(s, gen);
	if (st != GH_OK)
	{
		if (pg_atomic_read_u32(&s->state) == SLOT_DONE)
			release_slot(s);
		return st;
	}
	t->id = s->table_id;
	t->n_rows = n;
	for (uint64 pos = 0; pos < n && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, n - pos);

		memcpy(chunk_of(s), keys + pos, cnt * sizeof(uint64));
		s->type = REQ_BUILD_APPEND;
		s->table_id = t->id;
		s->pos = pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = submit(s, gen);
	}
	if (st == GH_OK)
	{
		s->type = REQ_BUILD_FINISH;
		s->table_id = t->id;
		s->opt = *opt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = submit(s, gen);
		t->info = s->info;
	}
	if (pg_atomic_read_u32(&s->state) == SLOT_DONE)
		release_slot(s);
	if (st != GH_OK)
		gpuhash_svc_free(t);
	return st;
}

gh_status
gpuhash_svc_rowids(GhRemoteTable *t, uint32 *rowids)
{
	uint64		per = svc->chunk_bytes / sizeof(uint32);
	SvcSlot    *s = claim_slot();
	gh_status	st = GH_OK;

	for (uint64 pos = 0; pos < t->n_rows && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, t->n_rows - pos);

		s->type = REQ_ROWIDS;
		s->table_id = t->id;
		s->pos = pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = submit(s, t->generation);
		if (st == GH_OK)
			memcpy(rowids + pos, chunk_of(s), cnt * sizeof(uint32));
	}
	if (pg_atomic_read_u32(&s->state) == SLOT_DONE ||
		pg_atomic_read_u32(&s->state) == SLOT_CLAIMED)
		release_slot(s);
	return st;
}

gh_status
gpuhash_svc_probe(GhRemoteTable *t, const uint64 *keys, uint64 n, gh_range *ranges)
{
	uint64		per = svc->chunk_bytes / Max(sizeof(uint64), sizeof(gh_range));
	SvcSlot    *s = claim_slot();
	gh_status	st = GH_OK;

	for (uint64 pos = 0; pos < n && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, n - pos);

		memcpy(chunk_of(s), keys + pos, cnt * sizeof(uint64));
		s->type = REQ_PROBE;
		s->table_id = t->id;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = submit(s, t->generation);
		if (st == GH_OK)
		{
			memcpy(ranges + pos, chunk_of(s), cnt * sizeof(gh_range));
			t->info = s->info;
		}
	}
	if (pg_atomic_read_u32(&s->state) == SLOT_DONE ||
		pg_atomic_read_u32(&s->state) == SLOT_CLAIMED)
		release_slot(s);
	return st;
}

void
gpuhash_svc_free(GhRemoteTable *t)
{
	if (svc == NULL || t->id == 0 || pg_atomic_read_u32(&svc->generation) != t->generation)
		return;					/* gone with its service already */
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint32		expected = 0;

		if (pg_atomic_compare_exchange_u32(&svc->free_queue[i], &expected, t->id))
		{
			if (pg_atomic_read_u32(&svc->ready))
				SetLatch(&GetPGProcByNumber(svc->procno)->procLatch);
			break;
		}
	}
	/* a full queue: the owner-exit sweep frees it at the latest */
	t->id = 0;
}

/* =====================================================================
 * Service side
 * ===================================================================== */

typedef struct SvcTable
{
	uint32		id;
	int			owner_pid;
	gh_table   *table;
	uint64	   *keys;			/* while being built */
	uint64		n_rows;
	uint64		filled;
} SvcTable;

static SvcTable *tables = NULL;
static int	n_tables = 0;
static int	cap_tables = 0;
static uint32 next_id = 1;
static volatile sig_atomic_t got_sigterm = false;

static void
svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static SvcTable *
find_table(uint32 id)
{
	for (int i = 0; i < n_tables; i++)
		if (tables[i].id == id)
			return &tables[i];
	return NULL;
}

static void
drop_table(SvcTable *t)
{
	gh_free(t->table);
	free(t->keys);
	*t = tables[--n_tables];
}

static void
publish_stats(void)
{
	uint64		bytes = 0;

	for (int i = 0; i < n_tables; i++)
		if (tables[i].table)
		{
			gh_table_info info;

			gh_table_get_info(tables[i].table, &info);
			bytes += info.device_bytes;
		}
	svc->tables_alive = n_tables;
	svc->device_bytes = bytes;
}

static gh_status
fail(SvcSlot *s, gh_status st, const char *msg)
{
	strlcpy(s->err, msg, sizeof(s->err));
	return st;
}

static gh_status
serve(SvcSlot *s)
{
	SvcTable   *t = NULL;
	char	   *chunk = chunk_of(s);

	if (s->type != REQ_BUILD_BEGIN)
	{
		t = find_table(s->table_id);
		if (t == NULL)
			return fail(s, GH_ERR_INVALID, "unknown join table (freed, or of an earlier service)");
	}
	switch (s->type)
	{
		case REQ_BUILD_BEGIN:
			{
				uint64	   *keys = malloc(Max(s->n, 1) * sizeof(uint64));

				if (keys == NULL)
					return fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
				if (n_tables == cap_tables)
				{
					int			cap = cap_tables ? 2 * cap_tables : 64;
					SvcTable   *nt = realloc(tables, sizeof(SvcTable) * cap);

					if (nt == NULL)
					{
						free(keys);
						return fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory");
					}
					tables = nt;
					cap_tables = cap;
				}
				t = &tables[n_tables++];
				memset(t, 0, sizeof(*t));
				t->id = next_id++;
				if (next_id == 0)
					next_id = 1;
				t->owner_pid = s->table_owner;
				t->keys = keys;
				t->n_rows = s->n;
				s->table_id = t->id;
				return GH_OK;
			}
		case REQ_BUILD_APPEND:
			if (t->keys == NULL || s->pos + s->n > t->n_rows ||
				s->n * sizeof(uint64) > svc->chunk_bytes)
				return fail(s, GH_ERR_INVALID, "GPU service: bad key chunk");
			memcpy(t->keys + s->pos, chunk, s->n * sizeof(uint64));
			t->filled += s->n;
			return GH_OK;
		case REQ_BUILD_FINISH:
			{
				gh_status	st;

				if (t->keys == NULL || t->filled != t->n_rows)
					return fail(s, GH_ERR_INVALID, "GPU service: build finished before all keys came");
				st = gh_build(&s->opt, t->keys, NULL, 4, t->n_rows, &t->table);
				free(t->keys);
				t->keys = NULL;
				if (st != GH_OK)
					return fail(s, st, gh_last_error());
				gh_table_get_info(t->table, &s->info);
				return GH_OK;
			}
		case REQ_ROWIDS:
			{
				const uint32 *rows = t->table ? gh_sorted_rowids(t->table) : NULL;

				if (rows == NULL)
					return fail(s, GH_ERR_CUDA, gh_last_error());
				if (s->pos + s->n > t->n_rows || s->n * sizeof(uint32) > svc->chunk_bytes)
					return fail(s, GH_ERR_INVALID, "GPU service: bad rowid chunk");
				memcpy(chunk, rows + s->pos, s->n * sizeof(uint32));
				return GH_OK;
			}
		case REQ_PROBE:
			{
				gh_status	st;
				uint64		total;

				if (t->table == NULL || s->n * sizeof(uint64) > svc->chunk_bytes)
					return fail(s, GH_ERR_INVALID, "GPU service: bad probe");
				/* keys in, ranges out, in place: both 8 bytes per probe */
				st = gh_probe_ranges(t->table, (const uint64 *) chunk, s->n,
									 (gh_range *) chunk, &total);
				if (st != GH_OK)
					return fail(s, st, gh_last_error());
				gh_table_get_info(t->table, &s->info);
				return GH_OK;
			}
	}
	return fail(s, GH_ERR_INVALID, "GPU service: unknown request");
}

/* After an abandoned request: drop what it was building. */
static void
discard(SvcSlot *s)
{
	if (s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND || s->type == REQ_BUILD_FINISH)
	{
		SvcTable   *t = find_table(s->table_id);

		if (t)
			drop_table(t);
	}
	pg_atomic_write_u32(&s->state, SLOT_FREE);
}

static bool
owner_alive(int pid)
{
	return pid != 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* Frees queued tables, and everything of backends that are gone. */
static void
sweep(bool check_owners)
{
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint32		id = pg_atomic_exchange_u32(&svc->free_queue[i], 0);
		SvcTable   *t;

		if (id != 0 && (t = find_table(id)) != NULL)
			drop_table(t);
	}
	if (!check_owners)
		return;
	for (int i = n_tables - 1; i >= 0; i--)
		if (!owner_alive(tables[i].owner_pid))
			drop_table(&tables[i]);
	for (int i = 0; i < SVC_SLOTS; i++)
	{
		uint32		st = pg_atomic_read_u32(&svc->slots[i].state);

		if ((st == SLOT_CLAIMED || st == SLOT_DONE) && !owner_alive(svc->slots[i].owner_pid))
			pg_atomic_write_u32(&svc->slots[i].state, SLOT_FREE);
	}
}

static void
serve_pending(void)
{
	static int	start = 0;
	bool		any;

	do
	{
		any = false;
		for (int k = 0; k < SVC_SLOTS; k++)
		{
			SvcSlot    *s = &svc->slots[(start + k) % SVC_SLOTS];
			uint32		st = pg_atomic_read_u32(&s->state);
			uint32		expected = SLOT_SUBMITTED;

			if (st == SLOT_ABANDONED)
			{
				discard(s);
				continue;
			}
			if (st != SLOT_SUBMITTED)
				continue;
			any = true;
			pg_read_barrier();
			s->status = serve(s);
			pg_write_barrier();
			pg_atomic_fetch_add_u64(&svc->requests, 1);
			if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_DONE))
				SetLatch(&GetPGProcByNumber(s->owner_procno)->procLatch);
			else
				discard(s);		/* abandoned while served */
		}
		/* one pass visits every slot once: no requester waits on another's queue */
		start = (start + 1) % SVC_SLOTS;
		sweep(false);
	} while (any);
	publish_stats();
}

static void
service_exit(int code, Datum arg)
{
	pg_atomic_write_u32(&svc->ready, 0);
}

void
gpuhash_service_main(Datum arg)
{
	TimestampTz last_sweep = GetCurrentTimestamp();
	int			n;

	pqsignal(SIGTERM, svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	/* a new generation: whatever an earlier service held is gone */
	for (int i = 0; i < SVC_SLOTS; i++)
		pg_atomic_write_u32(&svc->slots[i].state, SLOT_FREE);
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
		pg_atomic_write_u32(&svc->free_queue[i], 0);
	svc->tables_alive = 0;
	svc->device_bytes = 0;

	/* the CUDA context is created here, once, never in the postmaster */
	n = Min(gh_gpu_count(), SVC_MAX_GPUS);
	svc->gpus = n;
	gh_cuda_versions(&svc->driver_version, &svc->runtime_version);
	for (int i = 0; i < n; i++)
		gh_gpu_get_info(i, &svc->gpu[i]);
	svc->pinned = n > 0 && gh_host_register(staging, svc->staging_bytes) == GH_OK;
	if (n > 0 && !svc->pinned)
		ereport(LOG, (errmsg("gpuhash GPU service: staging memory not page-locked: %s",
							 gh_last_error())));

	svc->pid = MyProcPid;
	svc->procno = MyProc->pgprocno;
	on_shmem_exit(service_exit, (Datum) 0);
	pg_atomic_fetch_add_u32(&svc->generation, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&svc->ready, 1);
	ereport(LOG, (errmsg("gpuhash GPU service ready: %d GPU(s)%s, %d MB staging%s", n,
						 n > 0 ? "" : " (host twin)", gpuhash_staging_memory_mb,
						 svc->pinned ? " page-locked" : "")));

	while (!got_sigterm)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		serve_pending();
		if (TimestampDifferenceExceeds(last_sweep, GetCurrentTimestamp(), 1000))
		{
			sweep(true);
			publish_stats();
			for (int i = 0; i < n; i++)
				gh_gpu_get_info(i, &svc->gpu[i]);
			last_sweep = GetCurrentTimestamp();
		}
	}
	/* status 1: the postmaster restarts the service unless it is shutting down */
	proc_exit(1);
}

/* GPU facts as the service saw them; false when not running. */
bool
gpuhash_service_gpu_info(int i, gh_gpu_info *info, int *driver, int *runtime)
{
	if (svc == NULL || pg_atomic_read_u32(&svc->ready) == 0 || i >= svc->gpus)
		return false;
	*info = svc->gpu[i];
	*driver = svc->driver_version;
	*runtime = svc->runtime_version;
	return true;
}
