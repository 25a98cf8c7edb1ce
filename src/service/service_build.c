/*-------------------------------------------------------------------------
 *
 * service_build.c
 *	  The GPU service's builds: a table's keys staged on the least busy GPU
 *	  (or here), built there or partitioned over GPUs, its rowids and
 *	  carried columns handed back, and the other requests on one table.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "worker_internal.h"

#include <pthread.h>

#include "utils/guc.h"

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
bool
svc_injected(SvcSlot *s, int g)
{
	return s->fail_gpu >= 0 && s->fail_gpu == svc_gpu_ordinal(g);
}

gh_status
svc_injected_failure(void)
{
	gh_set_last_error("a CUDA failure injected by gpuhash.debug_fail_gpu");
	return GH_ERR_CUDA;
}

/* Under the table's lock and all its copy locks: only the table stays. */
static void
drop_copies(SvcTable *t)
{
	pthread_mutex_lock(&svc_registry);
	for (int g = 0; g < SVC_MAX_GPUS; g++)
		if (t->copy[g] != NULL && g != t->home)
		{
			gh_free(t->copy[g]);
			t->copy[g] = NULL;
			svc_uncount_on_gpu(t, g);
		}
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
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
		st = svc_fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for the build's keys");
	else if ((st = gh_build_staged_keys(t->staged, t->keys)) != GH_OK)
		st = svc_fail(s, st, gh_last_error());
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
	svc_count_on_gpu(t, g, ti.device_bytes);
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

	pthread_mutex_lock(&svc_registry);
	svc_gpu_busy(g, 1);
	pthread_mutex_unlock(&svc_registry);
	opt->gpu_ordinal = svc_gpu_ordinal(g);
	if (svc_injected(s, g))
		st = svc_injected_failure();
	else if (t->staged)
		st = gh_build_staged_finish(t->staged, opt);
	else
		st = gh_build(opt, t->keys, NULL, 4, t->n_rows, &t->table);
	pthread_mutex_lock(&svc_registry);
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
	else if (svc_gpu_fault(st))
		svc_gpu_failed(g, gh_last_error());
	pthread_mutex_unlock(&svc_registry);
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
	pthread_mutex_lock(&svc_registry);
	n += svc_gpus_by_load(order + n);
	pthread_mutex_unlock(&svc_registry);
	if (n == 0)
		return svc_fail(s, GH_ERR_NO_GPU, "every GPU of the GPU service failed lately");
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
		else if (!svc_gpu_fault(st))
		{
			st = svc_fail(s, st, gh_last_error());
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
			return svc_fail(s, st, gh_last_error());
		gh_table_get_info(t->table, &ti);
		pthread_mutex_lock(&svc_registry);
		for (int i = 0; i < n_full; i++)
			svc_count_on_gpu(t, full[i], ti.device_bytes / n_full);
		pthread_mutex_unlock(&svc_registry);
		return GH_OK;
	}
	return svc_fail(s, st, gh_last_error());
}

/* One request on an existing table, under that table's lock. */
gh_status
svc_serve_on_table(SvcSlot *s, SvcTable *t)
{
	char	   *chunk = chunk_of(s);

	switch (s->type)
	{
		case REQ_BUILD_APPEND:
			if ((t->keys == NULL && t->staged == NULL) || s->pos + s->n > t->n_rows ||
				s->n * sizeof(uint64) > gpuhash_svc->chunk_bytes)
				return svc_fail(s, GH_ERR_INVALID, "GPU service: bad key chunk");
			if (t->staged)
			{
				gh_status	st = gh_build_staged_put(t->staged, s->pos, (const uint64 *) chunk, s->n);

				if (st != GH_OK)
					return svc_fail(s, st, gh_last_error());
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
					return svc_fail(s, GH_ERR_INVALID, "GPU service: build finished before all keys came");
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
					return opt.device == GH_DEVICE_GPU ? st : svc_fail(s, st, gh_last_error());
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
					return svc_fail(s, GH_ERR_CUDA, gh_last_error());
				if (s->pos + s->n > t->n_rows ||
					s->n * sizeof(uint32) > gpuhash_svc->chunk_bytes)
					return svc_fail(s, GH_ERR_INVALID, "GPU service: bad rowid chunk");
				memcpy(chunk, rows + s->pos, s->n * sizeof(uint32));
				return GH_OK;
			}
		case REQ_CARRY_BEGIN:
			{
				uint64		cells = (uint64) Max(s->ncols, 0) * t->n_rows;

				/* columns that were coming and never finished go */
				svc_free_carry(t);
				if (t->table == NULL || s->ncols < 0)
					return svc_fail(s, GH_ERR_INVALID, "GPU service: bad carried columns");
				t->carry_keys = malloc(Max(cells, 1) * sizeof(uint64));
				t->carry_valid = s->has_valid ? malloc(Max(cells, 1)) : NULL;
				if (t->carry_keys == NULL || (s->has_valid && t->carry_valid == NULL))
				{
					svc_free_carry(t);
					return svc_fail(s, GH_ERR_HOST_MEMORY,
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
					svc_free_carry(t);
					return svc_fail(s, GH_ERR_INVALID, "GPU service: bad carried column chunk");
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
					svc_free_carry(t);
					return svc_fail(s, GH_ERR_INVALID,
								"GPU service: carried columns finished before all came");
				}
				/* copies made before lack the columns: they go */
				for (int g = 0; g < SVC_MAX_GPUS; g++)
					pthread_mutex_lock(&t->copy_lock[g]);
				/* chain probes still reading a copy on a lane end first */
				while (pg_atomic_read_u32(&t->lane_readers) > 0)
					pg_usleep(50);
				drop_copies(t);
				st = gh_set_carried_ordered(t->table, t->carry_keys, t->carry_valid,
											t->carry_ncols);
				for (int g = SVC_MAX_GPUS - 1; g >= 0; g--)
					pthread_mutex_unlock(&t->copy_lock[g]);
				svc_free_carry(t);
				if (st != GH_OK)
					return svc_fail(s, st, gh_last_error());
				/* a GPU table's carried columns are device memory too */
				gh_table_get_info(t->table, &s->info);
				if (t->home >= 0)
				{
					pthread_mutex_lock(&svc_registry);
					svc_count_on_gpu(t, t->home, s->info.device_bytes);
					svc_publish_locked();
					pthread_mutex_unlock(&svc_registry);
				}
				return GH_OK;
			}
		default:
			return svc_fail(s, GH_ERR_INVALID, "GPU service: unknown request");
	}
}
