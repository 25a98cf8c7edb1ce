/*-------------------------------------------------------------------------
 *
 * service_registry.c
 *	  The GPU service's table registry: tables registered as their builds
 *	  begin (keys staged on the least busy GPU), taken and released by
 *	  requests, dropped when freed or when their backend is gone, and the
 *	  figures published for gpuhash_info().  A dimension of an aggregate
 *	  over a join (service_dim_serve.c) is an entry of its own kind: freed,
 *	  swept and counted as tables are.  Builds (service_build.c) and
 *	  probes (service_probe.c) come here; nothing here calls them.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "worker_internal.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "storage/latch.h"
#include "storage/proc.h"

/*
 * The registry of tables, shared by the service's threads.  Its lock is
 * taken last and held briefly: nobody waits for a table's lock while
 * holding it, and the main thread never takes a table lock, so frees and
 * sweeps never wait behind a long build.
 */
pthread_mutex_t svc_registry = PTHREAD_MUTEX_INITIALIZER;
static SvcTable **tables = NULL;
static int	n_tables = 0;
static int	cap_tables = 0;
static uint32 next_id = 1;
volatile bool svc_freed_since_trim = false;	/* memory to give back */

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
void
svc_publish_locked(void)
{
	uint64		bytes = 0;
	int			dims = 0;

	/* the tables, their copies and their parts, on every GPU */
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		bytes += gpuhash_svc->gpu_use[g].bytes;
	for (int i = 0; i < n_tables; i++)
		dims += tables[i]->is_dim ? 1 : 0;
	gpuhash_svc->tables_alive = n_tables - dims;
	gpuhash_svc->dims_alive = dims;
	gpuhash_svc->device_bytes = bytes;
}

/* (registry lock) Table t keeps nothing on GPU g any more. */
void
svc_uncount_on_gpu(SvcTable *t, int g)
{
	if (t->on_gpu[g] > 0)
		svc_gpu_holds(g, -1, t->on_gpu[g]);
	t->on_gpu[g] = 0;
}

/* (registry lock) Table t keeps `bytes` on GPU g now: its table, a copy or a part. */
void
svc_count_on_gpu(SvcTable *t, int g, uint64 bytes)
{
	svc_uncount_on_gpu(t, g);
	t->on_gpu[g] = Max(bytes, 1);
	svc_gpu_holds(g, 1, t->on_gpu[g]);
}

/* A status that means the GPU itself failed (not a lack of memory, not a bad request). */
bool
svc_gpu_fault(gh_status st)
{
	return st == GH_ERR_CUDA || st == GH_ERR_NO_GPU;
}

/* Empties a taken free queue entry: the requester's table is gone. */
void
svc_ack_free(int i, uint64 taken)
{
	if (pg_atomic_compare_exchange_u64(&gpuhash_svc->free_queue[i], &taken, 0) &&
		FREE_PROCNO(taken) >= 0)
		SetLatch(&GetPGProcByNumber(FREE_PROCNO(taken))->procLatch);
}

/*
 * Frees carried columns that were coming.  Under the table's lock, or the
 * registry lock while the table has no users (none can hold its lock then).
 */
void
svc_free_carry(SvcTable *t)
{
	free(t->carry_keys);
	free(t->carry_valid);
	t->carry_keys = NULL;
	t->carry_valid = NULL;
	t->carry_ncols = 0;
	t->carry_filled = 0;
}

/*
 * A dimension's rows as they came (service_dim_serve.c): gone once it is
 * built, or with the entry.
 */
void
svc_free_dim_parts(SvcTable *t)
{
	if (!t->is_dim)
		return;
	free(t->keys);
	free(t->dim_vals);
	free(t->dim_heap);
	t->keys = NULL;
	t->dim_vals = NULL;
	t->dim_heap = NULL;
}

/* What a set entry holds, freed with it (registry lock, no users). */
void
svc_free_set_parts(SvcTable *t)
{
	if (!t->is_set)
		return;
	gh_agg_set_free(t->set);
	t->set = NULL;
	if (t->set_out != NULL)
	{
		gh_agg_groups_free(t->set_out);
		free(t->set_out);
		t->set_out = NULL;
	}
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
		svc_uncount_on_gpu(t, g);
		pthread_mutex_destroy(&t->copy_lock[g]);
	}
	gh_free(t->table);
	gh_free(t->staged);
	/* a dimension's keys are its rows' too: svc_free_dim_parts must not free them again */
	free(t->keys);
	t->keys = NULL;
	svc_free_carry(t);
	svc_free_dim_parts(t);
	gh_agg_dim_free(t->dim);
	svc_free_set_parts(t);
	pthread_mutex_destroy(&t->lock);
	free(t);
	svc_publish_locked();
	svc_freed_since_trim = true;

	/* acknowledge the frees that waited for this table's last user */
	for (int i = 0; i < SVC_FREE_QUEUE; i++)
	{
		uint64		v = pg_atomic_read_u64(&gpuhash_svc->free_queue[i]);

		if ((v & FREE_TAKEN) && FREE_ID(v) == id)
			svc_ack_free(i, v);
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
SvcTable *
svc_use_table(uint32 id)
{
	SvcTable   *t = find_table(id);

	if (t == NULL || t->doomed)
		return NULL;
	t->users++;
	return t;
}

/* registry lock held: a request is done with the table */
void
svc_unuse_table(SvcTable *t)
{
	if (--t->users > 0)
		return;
	if (t->doomed)
		destroy_table(t);
	else if (t->carry_dropped)
	{
		svc_free_carry(t);
		t->carry_dropped = false;
	}
}

/*
 * A CARRY_* request given up: the columns it was sending will not finish.
 * They go now when nothing uses the table, else with its last user; the
 * main thread never waits for a table's lock.
 */
void
svc_drop_carry_id(uint32 id)
{
	SvcTable   *t;

	pthread_mutex_lock(&svc_registry);
	if ((t = find_table(id)) != NULL)
	{
		if (t->users == 0)
			svc_free_carry(t);
		else
			t->carry_dropped = true;
	}
	pthread_mutex_unlock(&svc_registry);
}

/* False when no such table exists (freed already). */
bool
svc_drop_table_id(uint32 id)
{
	SvcTable   *t;

	pthread_mutex_lock(&svc_registry);
	if ((t = find_table(id)) != NULL)
		drop_table(t);
	pthread_mutex_unlock(&svc_registry);
	return t != NULL;
}

void
svc_publish_stats(void)
{
	pthread_mutex_lock(&svc_registry);
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
}

gh_status
svc_fail(SvcSlot *s, gh_status st, const char *msg)
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
	pthread_mutex_lock(&svc_registry);
	if (svc_gpus_by_load(order) == 0)
	{
		pthread_mutex_unlock(&svc_registry);
		return NULL;
	}
	pthread_mutex_unlock(&svc_registry);
	opt.gpu_ordinal = svc_gpu_ordinal(order[0]);
	if (gh_build_staged_begin(&opt, s->n, &staged) != GH_OK)
		return NULL;
	*gpu = order[0];
	return staged;
}

/*
 * A new registry entry for s's requester (its lock and copy locks ready, on
 * no GPU yet), not registered; NULL when out of memory.
 */
SvcTable *
svc_new_table(SvcSlot *s)
{
	SvcTable   *t = calloc(1, sizeof(SvcTable));

	if (t == NULL)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		pthread_mutex_init(&t->copy_lock[g], NULL);
	t->home = -1;
	t->owner_pid = s->table_owner;
	pg_atomic_init_u32(&t->lane_readers, 0);
	return t;
}

/* An entry that never made it into the registry. */
void
svc_unmade_table(SvcTable *t)
{
	pthread_mutex_destroy(&t->lock);
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		pthread_mutex_destroy(&t->copy_lock[g]);
	gh_free(t->staged);
	free(t->keys);
	t->keys = NULL;
	svc_free_dim_parts(t);
	svc_free_set_parts(t);
	free(t);
}

/*
 * Registers t (from svc_new_table) under a new id, answered in
 * s->table_id; from then on frees, the owner sweep and requests find it.
 * Out of memory, t goes.
 */
gh_status
svc_register_table(SvcSlot *s, SvcTable *t)
{
	pthread_mutex_lock(&svc_registry);
	if (n_tables == cap_tables)
	{
		int			cap = cap_tables ? 2 * cap_tables : 64;
		SvcTable  **nt = realloc(tables, sizeof(SvcTable *) * cap);

		if (nt == NULL)
		{
			pthread_mutex_unlock(&svc_registry);
			svc_unmade_table(t);
			return svc_fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory");
		}
		tables = nt;
		cap_tables = cap;
	}
	t->id = next_id++;
	if (next_id == 0)
		next_id = 1;
	tables[n_tables++] = t;
	s->table_id = t->id;
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
	return GH_OK;
}

gh_status
svc_begin_build(SvcSlot *s)
{
	SvcTable   *t = svc_new_table(s);
	int			staged_gpu = -1;

	if (t != NULL)
	{
		t->staged = stage_on_gpu(s, &staged_gpu);
		t->staged_gpu = staged_gpu;
		t->n_rows = s->n;
		if (t->staged == NULL)
			t->keys = malloc(Max(s->n, 1) * sizeof(uint64));
	}
	if (t == NULL || (t->staged == NULL && t->keys == NULL))
	{
		if (t != NULL)
			svc_unmade_table(t);
		return svc_fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
	}
	return svc_register_table(s, t);
}

bool
svc_owner_alive(int pid)
{
	return pid != 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* Drops the tables of backends that are gone. */
void
svc_drop_orphans(void)
{
	pthread_mutex_lock(&svc_registry);
	for (int i = n_tables - 1; i >= 0; i--)
		if (!tables[i]->doomed && !svc_owner_alive(tables[i]->owner_pid))
			drop_table(tables[i]);
	pthread_mutex_unlock(&svc_registry);
}
