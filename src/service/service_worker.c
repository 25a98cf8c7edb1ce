/*-------------------------------------------------------------------------
 *
 * service_worker.c
 *	  The GPU service process: the table registry, the worker threads that
 *	  serve requests, the sweep of frees and of exited backends' tables, and
 *	  gpuhash_service_main().
 *
 * The main thread takes submitted requests and hands them to a few worker
 * threads (gpuhash.service_threads): requests on distinct tables run at
 * once, each table on its own CUDA stream, so one large build does not hold
 * up other sessions; requests on one table take turns.  The service runs
 * the GPU when it has one and the host twin otherwise, so the request path
 * is exercised everywhere.  It touches no PostgreSQL data:
 * a CUDA failure is a status code returned to the requester, never an
 * ERROR or a crash of the service.  The protocol is described in
 * service_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "gpuhash_page.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

/* Allocations from this size on are mmapped, so freeing returns them. */
#define SVC_MMAP_THRESHOLD (1024 * 1024)

PGDLLEXPORT void gpuhash_service_main(Datum arg);

typedef struct SvcTable
{
	uint32		id;
	int			owner_pid;
	gh_table   *table;
	/* while being built: the keys on GPU staged_gpu, or else here */
	gh_table   *staged;
	int			staged_gpu;
	uint64	   *keys;
	uint64		n_rows;
	uint64		filled;
	/* carried columns while they come (CARRY_BEGIN to FINISH), key-grouped */
	uint64	   *carry_keys;		/* NULL: none coming */
	uint8	   *carry_valid;	/* NULL: all valid */
	int			carry_ncols;
	uint64		carry_filled;	/* cells received */
	pthread_mutex_t lock;		/* its build, row order and carried columns,
								 * and making copies: one at a time */
	int			users;			/* requests running on it (registry lock) */

	/*
	 * Where it lives.  home: the GPU it was built on (-1: the host twin, or
	 * partitioned over GPUs); copy[g]: the table on GPU g, copy[home] being
	 * table itself.  A probe runs on one copy, holding its copy_lock (the
	 * host or partitioned table: copy_lock[0]); copies are made under lock
	 * and their copy_lock, set and dropped under the registry lock too.
	 * Lock order: lock, then copy locks by GPU; tables by id.  The registry
	 * lock comes last, and is never held while waiting for another.
	 */
	int			home;
	gh_table   *copy[SVC_MAX_GPUS];
	pthread_mutex_t copy_lock[SVC_MAX_GPUS];
	uint64		on_gpu[SVC_MAX_GPUS];	/* bytes it keeps on each GPU (its table,
										 * a copy or a part; 0: none), as
										 * counted in gpu_use */
	uint64		budget;			/* the build's GPU memory budget, for copies */
	gh_table_info probes;		/* the probes' figures over all copies
								 * (registry lock) */
	bool		doomed;			/* freed while in use: the last user drops it */
	bool		carry_dropped;	/* (registry lock) a CARRY_* request was
								 * given up while the table was in use: its
								 * last user frees the carried columns */
} SvcTable;

/*
 * The registry of tables, shared by the service's threads.  Its lock is
 * taken last and held briefly: nobody waits for a table's lock while
 * holding it, and the main thread never takes a table lock, so frees and
 * sweeps never wait behind a long build.
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

	/* the tables, their copies and their parts, on every GPU */
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		bytes += gpuhash_svc->gpu_use[g].bytes;
	gpuhash_svc->tables_alive = n_tables;
	gpuhash_svc->device_bytes = bytes;
}

/* (registry lock) Table t keeps nothing on GPU g any more. */
static void
uncount_on_gpu(SvcTable *t, int g)
{
	if (t->on_gpu[g] > 0)
		svc_gpu_holds(g, -1, t->on_gpu[g]);
	t->on_gpu[g] = 0;
}

/* (registry lock) Table t keeps `bytes` on GPU g now: its table, a copy or a part. */
static void
count_on_gpu(SvcTable *t, int g, uint64 bytes)
{
	uncount_on_gpu(t, g);
	t->on_gpu[g] = Max(bytes, 1);
	svc_gpu_holds(g, 1, t->on_gpu[g]);
}

/* A status that means the GPU itself failed (not a lack of memory, not a bad request). */
static bool
gpu_fault(gh_status st)
{
	return st == GH_ERR_CUDA || st == GH_ERR_NO_GPU;
}

/* Empties a taken free queue entry: the requester's table is gone. */
static void
ack_free(int i, uint64 taken)
{
	if (pg_atomic_compare_exchange_u64(&gpuhash_svc->free_queue[i], &taken, 0) &&
		FREE_PROCNO(taken) >= 0)
		SetLatch(&GetPGProcByNumber(FREE_PROCNO(taken))->procLatch);
}

/*
 * Frees carried columns that were coming.  Under the table's lock, or the
 * registry lock while the table has no users (none can hold its lock then).
 */
static void
free_carry(SvcTable *t)
{
	free(t->carry_keys);
	free(t->carry_valid);
	t->carry_keys = NULL;
	t->carry_valid = NULL;
	t->carry_ncols = 0;
	t->carry_filled = 0;
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
	for (int g = 0; g < SVC_MAX_GPUS; g++)
	{
		if (t->copy[g] != NULL && t->copy[g] != t->table)
			gh_free(t->copy[g]);
		uncount_on_gpu(t, g);
		pthread_mutex_destroy(&t->copy_lock[g]);
	}
	gh_free(t->table);
	gh_free(t->staged);
	free(t->keys);
	free_carry(t);
	pthread_mutex_destroy(&t->lock);
	free(t);
	publish_locked();
	freed_since_trim = true;

	/* acknowledge the frees that waited for this table's last user */
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint64		v = pg_atomic_read_u64(&gpuhash_svc->free_queue[i]);

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

/* registry lock held: a request takes the table (NULL: gone or doomed) */
static SvcTable *
use_table(uint32 id)
{
	SvcTable   *t = find_table(id);

	if (t == NULL || t->doomed)
		return NULL;
	t->users++;
	return t;
}

/* registry lock held: a request is done with the table */
static void
unuse_table(SvcTable *t)
{
	if (--t->users > 0)
		return;
	if (t->doomed)
		destroy_table(t);
	else if (t->carry_dropped)
	{
		free_carry(t);
		t->carry_dropped = false;
	}
}

/*
 * A CARRY_* request given up: the columns it was sending will not finish.
 * They go now when nothing uses the table, else with its last user; the
 * main thread never waits for a table's lock.
 */
static void
drop_carry_id(uint32 id)
{
	SvcTable   *t;

	pthread_mutex_lock(&registry);
	if ((t = find_table(id)) != NULL)
	{
		if (t->users == 0)
			free_carry(t);
		else
			t->carry_dropped = true;
	}
	pthread_mutex_unlock(&registry);
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

/*
 * A GPU build's keys go straight from the (pinned) staging chunks to the
 * least busy GPU, where the table is then built: no copy of them here, and
 * one DMA per chunk.  Where that GPU has no room for them, they come here.
 */
static gh_table *
stage_on_gpu(SvcSlot *s, int *gpu)
{
	int			order[SVC_MAX_GPUS];
	gh_build_options opt = s->opt;
	gh_table   *staged = NULL;

	if (opt.device != GH_DEVICE_GPU)
		return NULL;
	pthread_mutex_lock(&registry);
	if (svc_gpus_by_load(order) == 0)
	{
		pthread_mutex_unlock(&registry);
		return NULL;
	}
	pthread_mutex_unlock(&registry);
	opt.gpu_ordinal = svc_gpu_ordinal(order[0]);
	if (gh_build_staged_begin(&opt, s->n, &staged) != GH_OK)
		return NULL;
	*gpu = order[0];
	return staged;
}

static gh_status
begin_build(SvcSlot *s)
{
	SvcTable   *t = calloc(1, sizeof(SvcTable));
	gh_table   *staged = NULL;
	uint64	   *keys = NULL;
	int			staged_gpu = -1;

	if (t != NULL)
		staged = stage_on_gpu(s, &staged_gpu);
	if (t != NULL && staged == NULL)
		keys = malloc(Max(s->n, 1) * sizeof(uint64));
	if (t == NULL || (staged == NULL && keys == NULL))
	{
		free(t);
		free(keys);
		return fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
	}
	pthread_mutex_init(&t->lock, NULL);
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		pthread_mutex_init(&t->copy_lock[g], NULL);
	t->home = -1;
	t->owner_pid = s->table_owner;
	t->staged = staged;
	t->staged_gpu = staged_gpu;
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
			for (int g = 0; g < SVC_MAX_GPUS; g++)
				pthread_mutex_destroy(&t->copy_lock[g]);
			gh_free(staged);
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

/* A failure gpuhash.debug_fail_gpu asks for on GPU g (tests). */
static bool
injected(SvcSlot *s, int g)
{
	return s->fail_gpu >= 0 && s->fail_gpu == svc_gpu_ordinal(g);
}

static gh_status
injected_failure(void)
{
	gh_set_last_error("a CUDA failure injected by gpuhash.debug_fail_gpu");
	return GH_ERR_CUDA;
}

/* Under the table's lock and all its copy locks: only the table stays. */
static void
drop_copies(SvcTable *t)
{
	pthread_mutex_lock(&registry);
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		if (t->copy[g] != NULL && g != t->home)
		{
			gh_free(t->copy[g]);
			t->copy[g] = NULL;
			uncount_on_gpu(t, g);
		}
	publish_locked();
	pthread_mutex_unlock(&registry);
}

/*
 * The staged keys (stage_on_gpu) come here: the build moves off their GPU,
 * or to the host twin.  A GPU that cannot give them back fails the build,
 * and the requester sends its keys again for the host twin.
 */
static gh_status
unstage(SvcSlot *s, SvcTable *t)
{
	gh_status	st = GH_OK;

	if (t->staged == NULL)
		return GH_OK;
	t->keys = malloc(Max(t->n_rows, 1) * sizeof(uint64));
	if (t->keys == NULL)
		st = fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
	else if ((st = gh_build_staged_keys(t->staged, t->keys)) != GH_OK)
		st = fail(s, st, gh_last_error());
	gh_free(t->staged);
	t->staged = NULL;
	return st;
}

/* (registry lock) The table was built on GPU g. */
static void
placed_on(SvcTable *t, int g)
{
	gh_table_info ti;

	gh_table_get_info(t->table, &ti);
	t->home = g;
	t->copy[g] = t->table;
	count_on_gpu(t, g, ti.device_bytes);
}

/*
 * One try at the build on GPU g: from the keys staged there, else from the
 * keys in host memory.  Counts the GPU busy meanwhile, places the table on
 * success and marks the GPU failed on a CUDA fault.
 */
static gh_status
build_on_gpu(SvcSlot *s, SvcTable *t, gh_build_options *opt, int g)
{
	gh_status	st;

	pthread_mutex_lock(&registry);
	svc_gpu_busy(g, 1);
	pthread_mutex_unlock(&registry);
	opt->gpu_ordinal = svc_gpu_ordinal(g);
	if (injected(s, g))
		st = injected_failure();
	else if (t->staged)
		st = gh_build_staged_finish(t->staged, opt);
	else
		st = gh_build(opt, t->keys, NULL, 4, t->n_rows, &t->table);
	pthread_mutex_lock(&registry);
	svc_gpu_busy(g, -1);
	if (st == GH_OK)
	{
		if (t->staged)
		{
			t->table = t->staged;
			t->staged = NULL;
		}
		placed_on(t, g);
	}
	else if (gpu_fault(st))
		svc_gpu_failed(g, gh_last_error());
	pthread_mutex_unlock(&registry);
	return st;
}

/*
 * REQ_BUILD_FINISH on the GPUs (under the table's lock): on the GPU that
 * holds its staged keys, else the least busy GPU that builds it.  A GPU
 * that fails is left out and the next one tried, as is the next after one
 * without room; the slot's note then says where the table went.  When no
 * GPU had room for it alone, it is partitioned over those that had none.
 */
static gh_status
build_on_gpus(SvcSlot *s, SvcTable *t, gh_build_options *opt)
{
	int			order[SVC_MAX_GPUS + 1],
				full[SVC_MAX_GPUS],
				ordinals[SVC_MAX_GPUS];
	int			n = 0,
				n_full = 0,
				staged_gpu = t->staged ? t->staged_gpu : -1;
	gh_status	st = GH_ERR_NO_GPU;
	char		moved[160] = "";

	/* the staged keys' GPU first, then the others by load */
	if (staged_gpu >= 0)
		order[n++] = staged_gpu;
	pthread_mutex_lock(&registry);
	n += svc_gpus_by_load(order + n);
	pthread_mutex_unlock(&registry);
	if (n == 0)
		return fail(s, GH_ERR_NO_GPU, "every GPU of the GPU service failed lately");
	for (int i = 0; i < n; i++)
	{
		int			g = order[i];
		bool		was_staged = t->staged != NULL;
		gh_status	back;

		if (i > 0 && g == staged_gpu)
			continue;			/* tried first */
		st = build_on_gpu(s, t, opt, g);
		if (st == GH_OK)
		{
			if (moved[0])
				snprintf(s->note, sizeof(s->note), "%s; the join table went to GPU %d",
						 moved, svc_gpu_ordinal(g));
			return GH_OK;
		}
		if (st == GH_ERR_GPU_MEMORY)
			full[n_full++] = g;
		else if (!gpu_fault(st))
		{
			st = fail(s, st, gh_last_error());
			gh_free(t->staged);
			t->staged = NULL;
			return st;
		}
		if (!moved[0])
			snprintf(moved, sizeof(moved), "GPU %d %s", svc_gpu_ordinal(g),
					 st == GH_ERR_GPU_MEMORY ? "had no room for the join table" : "failed");
		/* the other GPUs build from the keys in host memory */
		if (was_staged && (back = unstage(s, t)) != GH_OK)
			return back;
	}
	if (n_full > 1)
	{
		gh_table_info ti;

		for (int i = 0; i < n_full; i++)
			ordinals[i] = svc_gpu_ordinal(full[i]);
		st = gh_build_partitioned(opt, ordinals, n_full, t->keys, t->n_rows, &t->table);
		if (st != GH_OK)
			return fail(s, st, gh_last_error());
		gh_table_get_info(t->table, &ti);
		pthread_mutex_lock(&registry);
		for (int i = 0; i < n_full; i++)
			count_on_gpu(t, full[i], ti.device_bytes / n_full);
		pthread_mutex_unlock(&registry);
		return GH_OK;
	}
	return fail(s, st, gh_last_error());
}

/* One request on an existing table, under that table's lock. */
static gh_status
serve_on_table(SvcSlot *s, SvcTable *t)
{
	char	   *chunk = chunk_of(s);

	switch (s->type)
	{
		case REQ_BUILD_APPEND:
			if ((t->keys == NULL && t->staged == NULL) || s->pos + s->n > t->n_rows ||
				s->n * sizeof(uint64) > gpuhash_svc->chunk_bytes)
				return fail(s, GH_ERR_INVALID, "GPU service: bad key chunk");
			if (t->staged)
			{
				gh_status	st = gh_build_staged_put(t->staged, s->pos, (const uint64 *) chunk, s->n);

				if (st != GH_OK)
					return fail(s, st, gh_last_error());
			}
			else
				memcpy(t->keys + s->pos, chunk, s->n * sizeof(uint64));
			t->filled += s->n;
			return GH_OK;
		case REQ_BUILD_FINISH:
			{
				gh_status	st;
				gh_build_options opt = s->opt;
				BuildWatch	watch = {s, t};

				if ((t->keys == NULL && t->staged == NULL) || t->filled != t->n_rows)
					return fail(s, GH_ERR_INVALID, "GPU service: build finished before all keys came");
				opt.cancelled = build_unwanted;
				opt.cancel_arg = &watch;
				t->budget = opt.max_device_bytes;
				if (opt.device != GH_DEVICE_GPU && (st = unstage(s, t)) != GH_OK)
					return st;
				if (opt.device == GH_DEVICE_GPU)
					st = build_on_gpus(s, t, &opt);
				else if (s->host_parts > 1)
					st = gh_build_partitioned(&opt, NULL, s->host_parts, t->keys, t->n_rows, &t->table);
				else
					st = gh_build(&opt, t->keys, NULL, 4, t->n_rows, &t->table);
				free(t->keys);
				t->keys = NULL;
				if (st != GH_OK)
					/* build_on_gpus said why already */
					return opt.device == GH_DEVICE_GPU ? st : fail(s, st, gh_last_error());
				gh_table_get_info(t->table, &s->info);
				return GH_OK;
			}
		case REQ_ROWIDS:
			{
				const uint32 *rows;

				/* a GPU table fetches them once, on its stream */
				pthread_mutex_lock(&t->copy_lock[Max(t->home, 0)]);
				rows = t->table ? gh_sorted_rowids(t->table) : NULL;
				pthread_mutex_unlock(&t->copy_lock[Max(t->home, 0)]);

				if (rows == NULL)
					return fail(s, GH_ERR_CUDA, gh_last_error());
				if (s->pos + s->n > t->n_rows ||
					s->n * sizeof(uint32) > gpuhash_svc->chunk_bytes)
					return fail(s, GH_ERR_INVALID, "GPU service: bad rowid chunk");
				memcpy(chunk, rows + s->pos, s->n * sizeof(uint32));
				return GH_OK;
			}
		case REQ_CARRY_BEGIN:
			{
				uint64		cells = (uint64) Max(s->ncols, 0) * t->n_rows;

				/* columns that were coming and never finished go */
				free_carry(t);
				if (t->table == NULL || s->ncols < 0)
					return fail(s, GH_ERR_INVALID, "GPU service: bad carried columns");
				t->carry_keys = malloc(Max(cells, 1) * sizeof(uint64));
				t->carry_valid = s->has_valid ? malloc(Max(cells, 1)) : NULL;
				if (t->carry_keys == NULL || (s->has_valid && t->carry_valid == NULL))
				{
					free_carry(t);
					return fail(s, GH_ERR_HOST_MEMORY,
								"GPU service: out of memory for carried columns");
				}
				t->carry_ncols = s->ncols;
				return GH_OK;
			}
		case REQ_CARRY_APPEND:
			{
				Size		per = sizeof(uint64) + (t->carry_valid ? 1 : 0);
				uint64		cell = (uint64) s->column * t->n_rows + s->pos;

				if (t->carry_keys == NULL || s->column < 0 || s->column >= t->carry_ncols ||
					s->pos + s->n > t->n_rows || s->n * per > gpuhash_svc->chunk_bytes)
				{
					free_carry(t);
					return fail(s, GH_ERR_INVALID, "GPU service: bad carried column chunk");
				}
				/* the chunk: n keys, then n validity bytes */
				memcpy(t->carry_keys + cell, chunk, s->n * sizeof(uint64));
				if (t->carry_valid)
					memcpy(t->carry_valid + cell, chunk + s->n * sizeof(uint64), s->n);
				t->carry_filled += s->n;
				return GH_OK;
			}
		case REQ_CARRY_FINISH:
			{
				gh_status	st;

				if (t->carry_keys == NULL ||
					t->carry_filled != (uint64) t->carry_ncols * t->n_rows)
				{
					free_carry(t);
					return fail(s, GH_ERR_INVALID,
								"GPU service: carried columns finished before all came");
				}
				/* copies made before lack the columns: they go */
				for (int g = 0; g < SVC_MAX_GPUS; g++)
					pthread_mutex_lock(&t->copy_lock[g]);
				drop_copies(t);
				st = gh_set_carried_ordered(t->table, t->carry_keys, t->carry_valid,
											t->carry_ncols);
				for (int g = SVC_MAX_GPUS - 1; g >= 0; g--)
					pthread_mutex_unlock(&t->copy_lock[g]);
				free_carry(t);
				if (st != GH_OK)
					return fail(s, st, gh_last_error());
				/* a GPU table's carried columns are device memory too */
				gh_table_get_info(t->table, &s->info);
				if (t->home >= 0)
				{
					pthread_mutex_lock(&registry);
					count_on_gpu(t, t->home, s->info.device_bytes);
					publish_locked();
					pthread_mutex_unlock(&registry);
				}
				return GH_OK;
			}
		default:
			return fail(s, GH_ERR_INVALID, "GPU service: unknown request");
	}
}

/*
 * (registry lock) The GPU a chain runs on: all its levels' tables must be
 * there, so the one where the fewest bytes are missing, then the least busy.
 */
static int
chain_gpu(SvcTable **held, int n_held)
{
	int			best = held[0]->home;
	uint64		best_missing = UINT64_MAX;

	for (int g = 0; g < svc_gpu_count(); g++)
	{
		uint64		missing = 0;

		if (!svc_gpu_ok(g))
			continue;
		for (int i = 0; i < n_held; i++)
			if (held[i]->copy[g] == NULL)
				missing += held[i]->on_gpu[held[i]->home];
		if (missing < best_missing ||
			(missing == best_missing &&
			 gpuhash_svc->gpu_use[g].busy < gpuhash_svc->gpu_use[best].busy))
		{
			best = g;
			best_missing = missing;
		}
	}
	return best;
}

/*
 * Takes the copy lock of table t's copy on GPU g (g -1: its slot 0, the
 * host twin's), making the copy first when there is none.  The lock is
 * held on return, also when making the copy failed.
 */
static gh_status
lock_copy(SvcSlot *s, SvcTable *t, int g)
{
	gh_status	st = GH_OK;
	gh_table   *c = NULL;

	if (g < 0 || t->copy[g] != NULL)
	{
		pthread_mutex_lock(&t->copy_lock[Max(g, 0)]);
		return GH_OK;
	}
	pthread_mutex_lock(&t->lock);
	pthread_mutex_lock(&t->copy_lock[g]);
	if (t->copy[g] == NULL)
	{
		st = gh_replicate(t->table, svc_gpu_ordinal(g), t->budget, &c);
		pthread_mutex_lock(&registry);
		if (st == GH_OK)
		{
			gh_table_info ti;

			gh_table_get_info(c, &ti);
			t->copy[g] = c;
			count_on_gpu(t, g, ti.device_bytes);
		}
		pthread_mutex_unlock(&registry);
		if (st != GH_OK)
			fail(s, st, gh_last_error());
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

/*
 * REQ_PROBE, keys in and ranges out in place (both 8 bytes per probe), on
 * the GPU svc_gpu_for_probe picks; a copy of the table is made there first
 * when it has none.  A GPU that fails is left out: the backend asks again,
 * and the probe goes to another.  Takes no table lock but to make a copy,
 * so probes of one table on distinct GPUs run at once.
 */
static gh_status
serve_probe(SvcSlot *s, SvcTable *t)
{
	char	   *chunk = chunk_of(s);
	gh_table   *c;
	gh_table_info before,
				after;
	gh_status	st;
	uint64		total;
	int			g;

	if (t->table == NULL || s->n * sizeof(uint64) > gpuhash_svc->chunk_bytes)
		return fail(s, GH_ERR_INVALID, "GPU service: bad probe");
	if (t->home < 0)
	{
		/* the host twin, or partitioned over the GPUs (each part's own) */
		pthread_mutex_lock(&t->copy_lock[0]);
		st = gh_probe_ranges(t->table, (const uint64 *) chunk, s->n, (gh_range *) chunk, &total);
		if (st == GH_OK)
			gh_table_get_info(t->table, &s->info);
		pthread_mutex_unlock(&t->copy_lock[0]);
		return st == GH_OK ? GH_OK : fail(s, st, gh_last_error());
	}

	pthread_mutex_lock(&registry);
	{
		bool		has[SVC_MAX_GPUS];

		for (int i = 0; i < SVC_MAX_GPUS; i++)
			has[i] = t->copy[i] != NULL;
		g = svc_gpu_for_probe(t->home, has, t->on_gpu[t->home], t->budget);
	}
	svc_gpu_busy(g, 1);
	c = t->copy[g];
	pthread_mutex_unlock(&registry);

	if (c != NULL)
		pthread_mutex_lock(&t->copy_lock[g]);
	else if ((st = lock_copy(s, t, g)) != GH_OK)
	{
		/* no copy there: the table's own GPU probes it */
		pthread_mutex_unlock(&t->copy_lock[g]);
		pthread_mutex_lock(&registry);
		if (gpu_fault(st))
			svc_gpu_failed(g, s->err);
		svc_gpu_busy(g, -1);
		g = t->home;
		svc_gpu_busy(g, 1);
		pthread_mutex_unlock(&registry);
		pthread_mutex_lock(&t->copy_lock[g]);
	}

	c = t->copy[g];
	gh_table_get_info(c, &before);
	/* given up while it waited for the copy: nobody wants the answer */
	if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
		st = fail(s, GH_ERR_INVALID, "request given up");
	else
	{
		st = injected(s, g) ? injected_failure() :
			gh_probe_ranges(c, (const uint64 *) chunk, s->n, (gh_range *) chunk, &total);
		if (st == GH_OK)
			gh_table_get_info(c, &after);
		else
			fail(s, st, gh_last_error());
	}
	pthread_mutex_unlock(&t->copy_lock[g]);

	pthread_mutex_lock(&registry);
	if (st == GH_OK)
	{
		/* the figures a backend sees add up over the copies it probed */
		t->probes.probe_ms += after.probe_ms - before.probe_ms;
		t->probes.transfer_ms += after.transfer_ms - before.transfer_ms;
		t->probes.probe_batches += after.probe_batches - before.probe_batches;
		t->probes.probe_keys += after.probe_keys - before.probe_keys;
		s->info = after;
		s->info.probe_ms = t->probes.probe_ms;
		s->info.transfer_ms = t->probes.transfer_ms;
		s->info.probe_batches = t->probes.probe_batches;
		s->info.probe_keys = t->probes.probe_keys;
		s->info.device_bytes = t->on_gpu[t->home];
		s->info.gpu_ordinal = svc_gpu_ordinal(t->home);
	}
	else if (gpu_fault(st))
		svc_gpu_failed(g, s->err);
	svc_gpu_busy(g, -1);
	pthread_mutex_unlock(&registry);
	return st;
}

/*
 * A chain probe (REQ_CHAIN; the chunk's layout is chain_layout's).  Every
 * level's table is taken (users counted, as serve() does) and locked, each
 * once, in ascending id order: chains and single-table requests then never
 * wait for each other in a cycle.
 */
static gh_status
serve_chain(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	SvcChainLayout lay;
	SvcChainLevel lv[GH_MAX_CHAIN_LEVELS];
	gh_chain_level levels[GH_MAX_CHAIN_LEVELS];
	SvcTable   *held[GH_MAX_CHAIN_LEVELS];
	uint32		ids[GH_MAX_CHAIN_LEVELS];
	int			n_ids = 0,
				n_held = 0,
				n_locked = 0,
				g = -1;
	bool		on_gpus = true;
	gh_status	st = GH_OK;

	if (!chain_layout(gpuhash_svc->chunk_bytes, s->n_levels, s->ncols, s->n, s->has_valid, &lay))
		return fail(s, GH_ERR_INVALID, "GPU service: bad chain request");
	memcpy(lv, chunk, sizeof(SvcChainLevel) * s->n_levels);

	/* the distinct table ids, ascending (insertion sort: a few levels) */
	for (int l = 0; l < s->n_levels; l++)
	{
		int			i = n_ids;

		while (i > 0 && ids[i - 1] > lv[l].table_id)
			i--;
		if (i > 0 && ids[i - 1] == lv[l].table_id)
			continue;
		memmove(ids + i + 1, ids + i, sizeof(uint32) * (n_ids - i));
		ids[i] = lv[l].table_id;
		n_ids++;
	}

	pthread_mutex_lock(&registry);
	while (n_held < n_ids && (held[n_held] = use_table(ids[n_held])) != NULL)
		n_held++;
	if (n_held < n_ids)
	{
		while (n_held > 0)
			unuse_table(held[--n_held]);
		publish_locked();
	}
	pthread_mutex_unlock(&registry);
	if (n_held < n_ids)
		return fail(s, GH_ERR_INVALID,
					"unknown join table in a chain (freed, or of an earlier service)");

	/* one GPU for all levels, or the host twin (slot 0 of each table) */
	for (int i = 0; i < n_held; i++)
		on_gpus &= held[i]->home >= 0;
	if (on_gpus)
	{
		pthread_mutex_lock(&registry);
		g = chain_gpu(held, n_held);
		svc_gpu_busy(g, 1);
		pthread_mutex_unlock(&registry);
	}
	for (int i = 0; i < n_held && st == GH_OK; i++, n_locked++)
		st = lock_copy(s, held[i], on_gpus ? g : -1);
	/* given up while it waited for the tables: nobody wants the answer */
	if (st == GH_OK && pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
		st = fail(s, GH_ERR_INVALID, "request given up");
	for (int l = 0; l < s->n_levels && st == GH_OK; l++)
	{
		SvcTable   *t = NULL;

		for (int i = 0; i < n_held; i++)
			if (held[i]->id == lv[l].table_id)
				t = held[i];
		if (t->table == NULL)
			st = fail(s, GH_ERR_INVALID, "GPU service: a chain level's table is not built");
		levels[l].table = on_gpus ? t->copy[g] : t->table;
		levels[l].kind = (gh_level_kind) lv[l].kind;
		levels[l].n_parts = lv[l].n_parts;
		memcpy(levels[l].part, lv[l].part, sizeof(levels[l].part));
	}
	if (st == GH_OK)
	{
		uint64		cap = Min(s->capacity, lay.room);
		uint32	   *out = (uint32 *) (chunk + lay.out);
		uint64		total = 0,
					written = 0;

		memset(s->level_ms, 0, sizeof(s->level_ms));
		st = gh_chain_probe_window(levels, s->n_levels, (const uint64 *) (chunk + lay.keys),
								   s->has_valid ? (const uint8 *) (chunk + lay.valid) : NULL,
								   s->ncols, s->n, s->skip, out, out + cap, cap,
								   &total, &written, s->level_ms);
		if (st != GH_OK)
			fail(s, st, gh_last_error());
		s->capacity = cap;
		s->total = total;
		s->written = written;
	}
	for (int i = n_locked - 1; i >= 0; i--)
		pthread_mutex_unlock(&held[i]->copy_lock[on_gpus ? g : 0]);

	pthread_mutex_lock(&registry);
	if (on_gpus)
	{
		if (gpu_fault(st))
			svc_gpu_failed(g, s->err);
		svc_gpu_busy(g, -1);
	}
	for (int i = 0; i < n_held; i++)
		unuse_table(held[i]);
	publish_locked();
	pthread_mutex_unlock(&registry);
	return st;
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
	if (s->type == REQ_CHAIN)
		return serve_chain(s);

	if (s->type == REQ_PAGE_AGG)
		return gpuhash_svc_serve_agg(s);
	/* a page walk with no table (an inner scan's: page_inner.c) */
	if (s->type == REQ_PAGE_PROBE && s->table_id == 0)
		return gpuhash_svc_serve_page(s, NULL);

	pthread_mutex_lock(&registry);
	t = use_table(s->table_id);
	pthread_mutex_unlock(&registry);
	if (t == NULL)
		return fail(s, GH_ERR_INVALID, "unknown join table (freed, or of an earlier service)");

	if (s->type == REQ_PROBE)
		st = serve_probe(s, t);
	else if (s->type == REQ_PAGE_PROBE)
	{
		/* on the table itself, under its probe lock (service_page.c) */
		int			l = t->home < 0 ? 0 : t->home;

		pthread_mutex_lock(&t->copy_lock[l]);
		st = gpuhash_svc_serve_page(s, t->table);
		pthread_mutex_unlock(&t->copy_lock[l]);
	}
	else
	{
		pthread_mutex_lock(&t->lock);
		/* given up while it waited for the table: nobody wants the answer */
		if (pg_atomic_read_u32(&s->state) == SLOT_ABANDONED_RUNNING)
			st = fail(s, GH_ERR_INVALID, "request given up");
		else
			st = serve_on_table(s, t);
		pthread_mutex_unlock(&t->lock);
	}

	pthread_mutex_lock(&registry);
	unuse_table(t);
	publish_locked();
	pthread_mutex_unlock(&registry);
	return st;
}

/*
 * After an abandoned request: drop what it was building (table_id is 0 for
 * a BEGIN that made nothing; carried columns that were coming go too);
 * free the slot and tell the requester, who waits for that.
 */
static void
discard(SvcSlot *s)
{
	int			procno = s->owner_procno;

	if (s->type == REQ_BUILD_BEGIN || s->type == REQ_BUILD_APPEND || s->type == REQ_BUILD_FINISH)
		(void) drop_table_id(s->table_id);
	else if (s->type == REQ_CARRY_BEGIN || s->type == REQ_CARRY_APPEND ||
			 s->type == REQ_CARRY_FINISH)
		drop_carry_id(s->table_id);
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
		s = &gpuhash_svc->slots[jobs[jobs_head]];
		jobs_head = (jobs_head + 1) % SVC_SLOTS;
		jobs_count--;
		pthread_mutex_unlock(&jobs_lock);

		pg_read_barrier();
		s->status = serve(s);
		pg_write_barrier();
		pg_atomic_fetch_add_u64(&gpuhash_svc->requests, 1);
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
		uint64		v = pg_atomic_read_u64(&gpuhash_svc->free_queue[i]);

		if (v == 0 || (v & FREE_TAKEN) ||
			!pg_atomic_compare_exchange_u64(&gpuhash_svc->free_queue[i], &v, v | FREE_TAKEN))
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
		uint32		st = pg_atomic_read_u32(&gpuhash_svc->slots[i].state);

		if ((st == SLOT_CLAIMED || st == SLOT_DONE) &&
			!owner_alive(gpuhash_svc->slots[i].owner_pid))
			pg_atomic_write_u32(&gpuhash_svc->slots[i].state, SLOT_FREE);
	}
}

/* The main thread hands submitted requests to the worker threads. */
static void
dispatch(void)
{
	for (int k = 0; k < SVC_SLOTS; k++)
	{
		SvcSlot    *s = &gpuhash_svc->slots[k];
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
	pg_atomic_write_u32(&gpuhash_svc->ready, 0);
}

void
gpuhash_service_main(Datum arg)
{
	TimestampTz last_sweep = GetCurrentTimestamp();
	const char *why;
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
		pg_atomic_write_u32(&gpuhash_svc->slots[i].state, SLOT_FREE);
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
		pg_atomic_write_u64(&gpuhash_svc->free_queue[i], 0);
	gpuhash_svc->tables_alive = 0;
	gpuhash_svc->device_bytes = 0;

	/* the CUDA contexts are created here, once, never in the postmaster */
	n = svc_gpus_start(&why);
	gpuhash_svc->gpus = n;
	strlcpy(gpuhash_svc->no_gpu_reason, why, sizeof(gpuhash_svc->no_gpu_reason));
	gh_cuda_versions(&gpuhash_svc->driver_version, &gpuhash_svc->runtime_version);
	gpuhash_svc->pinned = n > 0 &&
		gh_host_register(gpuhash_staging, gpuhash_svc->staging_bytes) == GH_OK;
	if (n > 0 && !gpuhash_svc->pinned)
		ereport(LOG, (errmsg("gpuhash GPU service: staging memory not page-locked: %s",
							 gh_last_error())));

	/*
	 * The buffer pool, for page requests that name buffers instead of
	 * carrying pages: forked from the postmaster, the service has it at
	 * every backend's address.  The host twin reads it there as it is; the
	 * GPUs through a mapping.  Without one (memory-lock limits) pages are
	 * copied, as before.
	 */
	gpuhash_svc->pool_in_place = n == 0 ||
		gh_page_register_host(BufferBlocks, (size_t) NBuffers * BLCKSZ) == GH_OK;
	if (!gpuhash_svc->pool_in_place)
		ereport(LOG, (errmsg("gpuhash GPU service: buffer pool not mapped for the GPUs, page requests copy their pages: %s",
							 gh_last_error())));

	gpuhash_svc->pid = MyProcPid;
	gpuhash_svc->procno = MyProc->pgprocno;
	on_shmem_exit(service_exit, (Datum) 0);
	start_threads();
	pg_atomic_fetch_add_u32(&gpuhash_svc->generation, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&gpuhash_svc->ready, 1);
	ereport(LOG, (errmsg("gpuhash GPU service ready: %d GPU(s)%s, %d MB staging%s, %d threads%s", n,
						 n > 0 ? "" : " (host twin)", gpuhash_staging_memory_mb,
						 gpuhash_svc->pinned ? " page-locked" : "", gpuhash_service_threads,
						 gpuhash_svc->pool_in_place ? ", pages read in place" : "")));

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
		if (freed_since_trim && gpuhash_svc->tables_alive == 0)
		{
			freed_since_trim = false;
			(void) malloc_trim(0);
		}
		if (TimestampDifferenceExceeds(last_sweep, GetCurrentTimestamp(), 1000))
		{
			sweep(true);
			publish_stats();
			svc_gpus_refresh();
			last_sweep = GetCurrentTimestamp();
		}
	}
	/* status 1: the postmaster restarts the service unless it is shutting down */
	proc_exit(1);
}
