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
 * Frees need no slot: table ids go through a lock-free queue, so error
 * cleanup can free tables.
 *
 * Nothing of a statement outlives it: a backend that gives up a request or
 * frees a table waits (boundedly, never throwing, so error cleanup and exit
 * can do it) until the service has dropped the request's slot and the
 * table.  The service cancels a host build whose requester gave up, and
 * acknowledges a free once the table is destroyed (after the last request
 * running on it).  A backend that exits inside a request (a parallel worker
 * terminated by its leader's error) gives it up from an exit callback.
 * Tables of backends that exit without that are freed by a sweep; a service
 * that exits takes its tables with it and the next one starts a new
 * generation, so stale table ids fail cleanly.
 *
 * The main thread takes submitted requests and hands them to a few worker
 * threads (gpuhash.service_threads): requests on distinct tables run at
 * once, each table on its own CUDA stream, so one large build does not hold
 * up other sessions; requests on one table take turns.  The service runs
 * the GPU when it has one and the host twin otherwise, so the request path
 * is exercised everywhere.  It touches no PostgreSQL data:
 * a CUDA failure is a status code returned to the requester, never an
 * ERROR or a crash of the service.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "port/pg_bitutils.h"
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

/*
 * A free queue entry: the table id in the low 32 bits, the requester's
 * pgprocno + 1 above it (whose latch the acknowledgement sets), and TAKEN
 * once the service holds it; 0 when empty.  The service empties an entry
 * when the table is gone: that is the requester's acknowledgement.
 */
#define FREE_TAKEN		(UINT64CONST(1) << 63)
#define FREE_ID(v)		((uint32) (v))
#define FREE_PROCNO(v)	((int) (((v) & ~FREE_TAKEN) >> 32) - 1)

/*
 * How long a backend waits for the service to drop what it gave up or
 * freed.  Normally milliseconds (a cancelled host build stops at its next
 * poll); the limit only guards against a wedged service, whose sweep then
 * frees the rest.
 */
#define SVC_SETTLE_MS 5000

/* Allocations from this size on are mmapped, so freeing returns them. */
#define SVC_MMAP_THRESHOLD (1024 * 1024)

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_CLAIMED,
	SLOT_SUBMITTED,
	SLOT_RUNNING,				/* taken by a service thread */
	SLOT_DONE,
	SLOT_ABANDONED,				/* given up before it ran: the main thread drops it */
	SLOT_ABANDONED_RUNNING		/* given up while it ran: its thread drops it */
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
	char		no_gpu_reason[256];	/* why gpus is 0 (gh_last_error()) */
	bool		pinned;
	gh_gpu_info gpu[SVC_MAX_GPUS];
	int			driver_version;
	int			runtime_version;
	uint64		staging_bytes;
	uint64		chunk_bytes;
	pg_atomic_uint64 requests;
	int			tables_alive;
	uint64		device_bytes;
	pg_atomic_uint64 free_queue[SVC_FREE_QUEUE];	/* see FREE_TAKEN */
	SvcSlot		slots[SVC_SLOTS];
} SvcShared;

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
			pg_atomic_init_u64(&svc->free_queue[i], 0);
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

/* Why the service found no GPU (the hash core's words); "" when it found some. */
const char *
gpuhash_service_no_gpu_reason(void)
{
	return svc ? svc->no_gpu_reason : "";
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

/*
 * What this backend has handed back and waits for the service to drop:
 * slots of requests it gave up, and free queue entries not yet emptied.
 * A backend frees one table at a time and waits, so a few entries do.
 */
#define MAX_PENDING_FREES 8

static uint64 abandoned_slots = 0;	/* bit i: slot i given up */
static int	n_pending_frees = 0;
static struct
{
	int			index;
	uint64		value;
}			pending_frees[MAX_PENDING_FREES];
static uint32 pending_generation;

/* The request submit() waits on, for giving it up at exit. */
static SvcSlot *inflight = NULL;
static uint32 inflight_generation;
static bool exit_callback_set = false;

static void backend_exit(int code, Datum arg);

static char *
chunk_of(SvcSlot *s)
{
	return staging + (Size) (s - svc->slots) * svc->chunk_bytes;
}

static void
wake_service(void)
{
	if (pg_atomic_read_u32(&svc->ready))
		SetLatch(&GetPGProcByNumber(svc->procno)->procLatch);
}

static SvcSlot *
claim_slot(void)
{
	if (!exit_callback_set)
	{
		before_shmem_exit(backend_exit, (Datum) 0);
		exit_callback_set = true;
	}
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

/*
 * After a request loop: the slot is ours to free unless the service still
 * holds it (a request abandoned while running is dropped by the service).
 */
static gh_status
release_if_ours(SvcSlot *s, gh_status st)
{
	uint32		state = pg_atomic_read_u32(&s->state);

	if (state == SLOT_DONE || state == SLOT_CLAIMED)
		release_slot(s);
	return st;
}

static gh_status
service_gone(void)
{
	gh_set_last_error("the gpuhash GPU service exited; its join tables are gone");
	return GH_ERR_CUDA;
}

/* True while the service that took our requests and frees still runs. */
static bool
same_service(uint32 generation)
{
	return pg_atomic_read_u32(&svc->ready) != 0 &&
		pg_atomic_read_u32(&svc->generation) == generation;
}

/*
 * Waits until the service has dropped every request this backend gave up
 * and destroyed every table it freed, so that nothing of a cancelled or
 * finished statement stays in the service after it returns.  Never throws
 * and never processes interrupts: error cleanup and exit callbacks call
 * it.  The latch is reset, as every latch wait in PostgreSQL rechecks its
 * own condition.
 */
static void
settle(void)
{
	TimestampTz start = 0;

	for (;;)
	{
		bool		busy = false;

		if (abandoned_slots == 0 && n_pending_frees == 0)
			return;
		if (!same_service(pending_generation))
			break;				/* its slots were reset and its tables went with it */
		for (int i = 0; i < SVC_SLOTS; i++)
		{
			SvcSlot    *s = &svc->slots[i];
			uint32		st;

			if ((abandoned_slots & (UINT64CONST(1) << i)) == 0)
				continue;
			st = pg_atomic_read_u32(&s->state);
			if ((st == SLOT_ABANDONED || st == SLOT_ABANDONED_RUNNING) && s->owner_pid == MyProcPid)
				busy = true;
			else
				abandoned_slots &= ~(UINT64CONST(1) << i);
		}
		for (int i = n_pending_frees - 1; i >= 0; i--)
		{
			uint64		v = pg_atomic_read_u64(&svc->free_queue[pending_frees[i].index]);

			if ((v & ~FREE_TAKEN) == pending_frees[i].value)
				busy = true;
			else
				pending_frees[i] = pending_frees[--n_pending_frees];
		}
		if (!busy)
			return;
		if (start == 0)
			start = GetCurrentTimestamp();
		else if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), SVC_SETTLE_MS))
		{
			ereport(LOG,
					(errmsg("gpuhash: the GPU service did not drop %d request(s) and %d table(s) of this backend within %d ms",
							pg_popcount64(abandoned_slots),
							n_pending_frees, SVC_SETTLE_MS),
					 errdetail("Its sweep frees them when this backend exits.")));
			break;
		}
		if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_POSTMASTER_DEATH, 10,
					  PG_WAIT_EXTENSION) & WL_POSTMASTER_DEATH)
			break;
		ResetLatch(MyLatch);
	}
	abandoned_slots = 0;
	n_pending_frees = 0;
}

/*
 * Gives up the request in flight: the service drops it and whatever it was
 * building.  A request answered meanwhile is ours to clean up.
 */
static void
abandon_inflight(void)
{
	SvcSlot    *s = inflight;
	uint32		expected = SLOT_SUBMITTED;
	bool		given_up;

	inflight = NULL;
	if (s == NULL || !same_service(inflight_generation))
		return;
	given_up = pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_ABANDONED);
	if (!given_up && expected == SLOT_RUNNING)
		given_up = pg_atomic_compare_exchange_u32(&s->state, &expected,
												  SLOT_ABANDONED_RUNNING);
	if (given_up)
	{
		if (pending_generation != inflight_generation)
			abandoned_slots = 0;
		pending_generation = inflight_generation;
		abandoned_slots |= UINT64CONST(1) << (s - svc->slots);
		wake_service();
		return;
	}
	if (expected == SLOT_DONE)
	{
		/* a table that the request made is freed like any other */
		if (s->table_id != 0 &&
			(s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND ||
			 s->type == REQ_BUILD_FINISH))
		{
			GhRemoteTable t = {0};

			t.id = s->table_id;
			t.generation = inflight_generation;
			release_slot(s);
			gpuhash_svc_free(&t);
		}
		else
			release_slot(s);
	}
}

/* A backend leaving inside a request (FATAL skips PG_CATCH) gives it up. */
static void
backend_exit(int code, Datum arg)
{
	if (svc == NULL)
		return;
	abandon_inflight();
	settle();
}

/*
 * Hands the claimed slot to the service and sleeps until it answers.  A
 * cancel or timeout while waiting abandons the request, and waits until
 * the service has dropped it.
 */
static gh_status
submit(SvcSlot *s, uint32 generation)
{
	if (!gpuhash_service_ready() || pg_atomic_read_u32(&svc->generation) != generation)
	{
		release_slot(s);
		return service_gone();
	}
	inflight = s;
	inflight_generation = generation;
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
		abandon_inflight();
		settle();
		PG_RE_THROW();
	}
	PG_END_TRY();
	inflight = NULL;

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
	s->table_id = 0;			/* set by the service: no stale id to free */
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
	return release_if_ours(s, st);
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
	return release_if_ours(s, st);
}

void
gpuhash_svc_free(GhRemoteTable *t)
{
	uint64		value;
	TimestampTz start = 0;

	if (svc == NULL || t->id == 0 || !same_service(t->generation))
	{
		t->id = 0;
		return;					/* gone with its service already */
	}
	if (n_pending_frees == MAX_PENDING_FREES)
		settle();
	if (n_pending_frees > 0 && pending_generation != t->generation)
		n_pending_frees = 0;
	value = (uint64) t->id | ((uint64) (MyProc->pgprocno + 1) << 32);
	for (;;)
	{
		for (int i = 0; i < SVC_FREE_QUEUE; i++)
		{
			uint64		expected = 0;

			if (pg_atomic_compare_exchange_u64(&svc->free_queue[i], &expected, value))
			{
				pending_generation = t->generation;
				pending_frees[n_pending_frees].index = i;
				pending_frees[n_pending_frees].value = value;
				n_pending_frees++;
				wake_service();
				t->id = 0;
				settle();
				return;
			}
		}

		/* a full queue: the service is emptying it */
		if (!same_service(t->generation))
		{
			t->id = 0;
			return;				/* gone with its service */
		}
		if (start == 0)
			start = GetCurrentTimestamp();
		else if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), SVC_SETTLE_MS))
			break;
		wake_service();
		if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_POSTMASTER_DEATH, 1,
					  PG_WAIT_EXTENSION) & WL_POSTMASTER_DEATH)
			break;
		ResetLatch(MyLatch);
	}
	ereport(LOG,
			(errmsg("gpuhash: the GPU service's free queue stayed full; join table %u is left to its sweep",
					t->id)));
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
	uint64		device_bytes;	/* for gpuhash_info(), set after the build */
	pthread_mutex_t lock;		/* one request on a table at a time */
	int			users;			/* requests running on it (registry lock) */
	bool		doomed;			/* freed while in use: the last user drops it */
} SvcTable;

/*
 * The registry of tables, shared by the service's threads.  Lock order:
 * registry, then a table's lock; the main thread never takes a table lock,
 * so frees and sweeps never wait behind a long build.
 */
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static SvcTable **tables = NULL;
static int	n_tables = 0;
static int	cap_tables = 0;
static uint32 next_id = 1;
static volatile sig_atomic_t got_sigterm = false;
static volatile bool freed_since_trim = false;	/* memory to give back */

/* Jobs: slots taken by the main thread, served by the worker threads. */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static int	jobs[SVC_SLOTS];
static int	jobs_head = 0,
			jobs_count = 0;

static void
svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* registry lock held */
static SvcTable *
find_table(uint32 id)
{
	for (int i = 0; i < n_tables; i++)
		if (tables[i]->id == id)
			return tables[i];
	return NULL;
}

/* registry lock held: the figures gpuhash_info() shows */
static void
publish_locked(void)
{
	uint64		bytes = 0;

	for (int i = 0; i < n_tables; i++)
		bytes += tables[i]->device_bytes;
	svc->tables_alive = n_tables;
	svc->device_bytes = bytes;
}

/* Empties a taken free queue entry: the requester's table is gone. */
static void
ack_free(int i, uint64 taken)
{
	if (pg_atomic_compare_exchange_u64(&svc->free_queue[i], &taken, 0) &&
		FREE_PROCNO(taken) >= 0)
		SetLatch(&GetPGProcByNumber(FREE_PROCNO(taken))->procLatch);
}

/* registry lock held; the table has no users */
static void
destroy_table(SvcTable *t)
{
	uint32		id = t->id;

	for (int i = 0; i < n_tables; i++)
		if (tables[i] == t)
		{
			tables[i] = tables[--n_tables];
			break;
		}
	gh_free(t->table);
	free(t->keys);
	pthread_mutex_destroy(&t->lock);
	free(t);
	publish_locked();
	freed_since_trim = true;

	/* acknowledge the frees that waited for this table's last user */
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint64		v = pg_atomic_read_u64(&svc->free_queue[i]);

		if ((v & FREE_TAKEN) && FREE_ID(v) == id)
			ack_free(i, v);
	}
}

/* registry lock held: drops the table now, or when its last user is done */
static void
drop_table(SvcTable *t)
{
	if (t->users > 0)
		t->doomed = true;
	else
		destroy_table(t);
}

/* False when no such table exists (freed already). */
static bool
drop_table_id(uint32 id)
{
	SvcTable   *t;

	pthread_mutex_lock(&registry);
	if ((t = find_table(id)) != NULL)
		drop_table(t);
	pthread_mutex_unlock(&registry);
	return t != NULL;
}

static void
publish_stats(void)
{
	pthread_mutex_lock(&registry);
	publish_locked();
	pthread_mutex_unlock(&registry);
}

static gh_status
fail(SvcSlot *s, gh_status st, const char *msg)
{
	strlcpy(s->err, msg, sizeof(s->err));
	return st;
}

static gh_status
begin_build(SvcSlot *s)
{
	SvcTable   *t = calloc(1, sizeof(SvcTable));
	uint64	   *keys = malloc(Max(s->n, 1) * sizeof(uint64));

	if (t == NULL || keys == NULL)
	{
		free(t);
		free(keys);
		return fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
	}
	pthread_mutex_init(&t->lock, NULL);
	t->owner_pid = s->table_owner;
	t->keys = keys;
	t->n_rows = s->n;

	pthread_mutex_lock(&registry);
	if (n_tables == cap_tables)
	{
		int			cap = cap_tables ? 2 * cap_tables : 64;
		SvcTable  **nt = realloc(tables, sizeof(SvcTable *) * cap);

		if (nt == NULL)
		{
			pthread_mutex_unlock(&registry);
			pthread_mutex_destroy(&t->lock);
			free(t);
			free(keys);
			return fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory");
		}
		tables = nt;
		cap_tables = cap;
	}
	t->id = next_id++;
	if (next_id == 0)
		next_id = 1;
	tables[n_tables++] = t;
	s->table_id = t->id;
	publish_locked();
	pthread_mutex_unlock(&registry);
	return GH_OK;
}

/* What a build's cancel callback looks at. */
typedef struct BuildWatch
{
	SvcSlot    *slot;
	SvcTable   *table;
} BuildWatch;

/*
 * Nobody waits for this build any more: its requester gave it up, or the
 * table was freed meanwhile.  Read without locks: a stale answer only
 * means one more poll.
 */
static int
build_unwanted(void *arg)
{
	BuildWatch *w = (BuildWatch *) arg;

	return pg_atomic_read_u32(&w->slot->state) == SLOT_ABANDONED_RUNNING ||
		((volatile SvcTable *) w->table)->doomed;
}

/* One request on an existing table, under that table's lock. */
static gh_status
serve_on_table(SvcSlot *s, SvcTable *t)
{
	char	   *chunk = chunk_of(s);

	switch (s->type)
	{
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
				gh_build_options opt = s->opt;
				BuildWatch	watch = {s, t};

				if (t->keys == NULL || t->filled != t->n_rows)
					return fail(s, GH_ERR_INVALID, "GPU service: build finished before all keys came");
				opt.cancelled = build_unwanted;
				opt.cancel_arg = &watch;
				st = gh_build(&opt, t->keys, NULL, 4, t->n_rows, &t->table);
				free(t->keys);
				t->keys = NULL;
				if (st != GH_OK)
					return fail(s, st, gh_last_error());
				gh_table_get_info(t->table, &s->info);
				t->device_bytes = s->info.device_bytes;
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
		default:
			return fail(s, GH_ERR_INVALID, "GPU service: unknown request");
	}
}

/*
 * Serves one request (in a worker thread: no PostgreSQL calls here beyond
 * atomics).  Requests on distinct tables run at once on their own streams;
 * requests on one table (a parallel plan's participants) take turns.
 */
static gh_status
serve(SvcSlot *s)
{
	SvcTable   *t;
	gh_status	st;

	if (s->type == REQ_BUILD_BEGIN)
		return begin_build(s);

	pthread_mutex_lock(&registry);
	t = find_table(s->table_id);
	if (t && !t->doomed)
		t->users++;
	else
		t = NULL;
	pthread_mutex_unlock(&registry);
	if (t == NULL)
		return fail(s, GH_ERR_INVALID, "unknown join table (freed, or of an earlier service)");

	pthread_mutex_lock(&t->lock);
	/* given up while it waited for the table: nobody wants the answer */
	if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
		st = fail(s, GH_ERR_INVALID, "request given up");
	else
		st = serve_on_table(s, t);
	pthread_mutex_unlock(&t->lock);

	pthread_mutex_lock(&registry);
	if (--t->users == 0 && t->doomed)
		destroy_table(t);
	else
		publish_locked();
	pthread_mutex_unlock(&registry);
	return st;
}

/*
 * After an abandoned request: drop what it was building (table_id is 0 for
 * a BEGIN that made nothing); free the slot and tell the requester, who
 * waits for that.
 */
static void
discard(SvcSlot *s)
{
	int			procno = s->owner_procno;

	if (s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND || s->type == REQ_BUILD_FINISH)
		(void) drop_table_id(s->table_id);
	pg_atomic_write_u32(&s->state, SLOT_FREE);
	SetLatch(&GetPGProcByNumber(procno)->procLatch);
}

static void *
service_thread(void *arg)
{
	for (;;)
	{
		SvcSlot    *s;
		uint32		expected = SLOT_RUNNING;

		pthread_mutex_lock(&jobs_lock);
		while (jobs_count == 0)
			pthread_cond_wait(&jobs_cond, &jobs_lock);
		s = &svc->slots[jobs[jobs_head]];
		jobs_head = (jobs_head + 1) % SVC_SLOTS;
		jobs_count--;
		pthread_mutex_unlock(&jobs_lock);

		pg_read_barrier();
		s->status = serve(s);
		pg_write_barrier();
		pg_atomic_fetch_add_u64(&svc->requests, 1);
		if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_DONE))
			SetLatch(&GetPGProcByNumber(s->owner_procno)->procLatch);
		else
			discard(s);			/* abandoned while it ran */
	}
	return NULL;
}

/* Starts the worker threads with every signal blocked: signals are the main
 * thread's business. */
static void
start_threads(void)
{
	sigset_t	all,
				old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < gpuhash_service_threads; i++)
	{
		pthread_t	th;

		if (pthread_create(&th, NULL, service_thread, NULL) != 0)
			ereport(FATAL, (errmsg("gpuhash GPU service: could not start a thread")));
		pthread_detach(th);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
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
		uint64		v = pg_atomic_read_u64(&svc->free_queue[i]);

		if (v == 0 || (v & FREE_TAKEN) ||
			!pg_atomic_compare_exchange_u64(&svc->free_queue[i], &v, v | FREE_TAKEN))
			continue;

		/*
		 * Destroying the table (now, or when its last request ends)
		 * acknowledges the free; a table gone already is acknowledged here.
		 */
		if (!drop_table_id(FREE_ID(v)))
			ack_free(i, v | FREE_TAKEN);
	}
	if (!check_owners)
		return;
	pthread_mutex_lock(&registry);
	for (int i = n_tables - 1; i >= 0; i--)
		if (!tables[i]->doomed && !owner_alive(tables[i]->owner_pid))
			drop_table(tables[i]);
	pthread_mutex_unlock(&registry);
	for (int i = 0; i < SVC_SLOTS; i++)
	{
		uint32		st = pg_atomic_read_u32(&svc->slots[i].state);

		if ((st == SLOT_CLAIMED || st == SLOT_DONE) && !owner_alive(svc->slots[i].owner_pid))
			pg_atomic_write_u32(&svc->slots[i].state, SLOT_FREE);
	}
}

/* The main thread hands submitted requests to the worker threads. */
static void
dispatch(void)
{
	for (int k = 0; k < SVC_SLOTS; k++)
	{
		SvcSlot    *s = &svc->slots[k];
		uint32		st = pg_atomic_read_u32(&s->state);
		uint32		expected = SLOT_SUBMITTED;

		if (st == SLOT_ABANDONED)
		{
			discard(s);			/* abandoned before it ran */
			continue;
		}
		if (st != SLOT_SUBMITTED ||
			!pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_RUNNING))
			continue;
		pthread_mutex_lock(&jobs_lock);
		jobs[(jobs_head + jobs_count) % SVC_SLOTS] = k;
		jobs_count++;
		pthread_cond_signal(&jobs_cond);
		pthread_mutex_unlock(&jobs_lock);
	}
	sweep(false);
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

	/*
	 * Keys, host twin tables and their build scratch are large and come and
	 * go with queries.  glibc's sliding mmap threshold would soon keep them
	 * in the threads' arenas, which hold on to freed memory: a fixed
	 * threshold maps each large block alone and unmaps it when freed.
	 */
	if (mallopt(M_MMAP_THRESHOLD, SVC_MMAP_THRESHOLD) != 1)
		ereport(LOG, (errmsg("gpuhash GPU service: could not set the malloc mmap threshold")));

	/* a new generation: whatever an earlier service held is gone */
	for (int i = 0; i < SVC_SLOTS; i++)
		pg_atomic_write_u32(&svc->slots[i].state, SLOT_FREE);
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
		pg_atomic_write_u64(&svc->free_queue[i], 0);
	svc->tables_alive = 0;
	svc->device_bytes = 0;

	/* the CUDA context is created here, once, never in the postmaster */
	n = Min(gh_gpu_count(), SVC_MAX_GPUS);
	svc->gpus = n;
	strlcpy(svc->no_gpu_reason, n > 0 ? "" : gh_last_error(), sizeof(svc->no_gpu_reason));
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
	start_threads();
	pg_atomic_fetch_add_u32(&svc->generation, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&svc->ready, 1);
	ereport(LOG, (errmsg("gpuhash GPU service ready: %d GPU(s)%s, %d MB staging%s, %d threads", n,
						 n > 0 ? "" : " (host twin)", gpuhash_staging_memory_mb,
						 svc->pinned ? " page-locked" : "", gpuhash_service_threads)));

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
		dispatch();

		/* the smaller blocks left in the arenas, once no table is alive */
		if (freed_since_trim && svc->tables_alive == 0)
		{
			freed_since_trim = false;
			(void) malloc_trim(0);
		}
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
