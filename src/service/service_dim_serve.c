/*-------------------------------------------------------------------------
 *
 * service_dim_serve.c
 *	  The GPU service's side of dimensions (the inner rows of an aggregate
 *	  over a join, cuda/gpuhash_agg.h): DIM_BEGIN registers one, DIM_APPEND
 *	  fills its keys, values and heap a staging chunk at a time, DIM_FINISH
 *	  builds it (gh_agg_dim_build) on the least busy GPU that has room for
 *	  it, or on the host twin; PAGE_AGG requests that name it take it as
 *	  they take a table (service_agg.c).  A dimension is a registry entry
 *	  (service_registry.c), so frees, the owner sweep and the figures of
 *	  gpuhash_info() treat it as they treat tables.  The backend's side is
 *	  service_dim.c.
 *
 * Worker threads only: no PostgreSQL calls here.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_gpus.h"
#include "worker_internal.h"

#include <pthread.h>

/* REQ_DIM_BEGIN: an entry with room for s->n rows of s->ninner columns. */
gh_status
svc_begin_dim(SvcSlot *s)
{
	uint64		cells = s->n * (uint64) Max(s->ninner, 1);
	SvcTable   *t;

	if (s->ninner < 0 || s->ninner > GH_AGG_MAX_INNER ||
		s->n > (uint64) SIZE_MAX / sizeof(gh_agg_inval) / GH_AGG_MAX_INNER ||
		s->heap_bytes > (uint64) SIZE_MAX / 2)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: bad dimension");
	if ((t = svc_new_table(s)) == NULL)
		return svc_fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for a dimension");
	t->is_dim = true;
	t->n_rows = s->n;
	t->dim_ninner = s->ninner;
	t->dim_heap_bytes = s->heap_bytes;
	t->keys = malloc(Max(s->n, 1) * sizeof(uint64));
	t->dim_vals = malloc(Max(cells, 1) * sizeof(gh_agg_inval));
	t->dim_heap = malloc(Max(s->heap_bytes, 1));
	if (t->keys == NULL || t->dim_vals == NULL || t->dim_heap == NULL)
	{
		svc_unmade_table(t);
		return svc_fail(s, GH_ERR_HOST_MEMORY,
						"GPU service: out of memory for a dimension's rows");
	}
	/* written all over by the appends that follow: mapped at once */
	gpuhash_prefault_large(t->keys, s->n * sizeof(uint64));
	gpuhash_prefault_large(t->dim_vals, cells * sizeof(gh_agg_inval));
	gpuhash_prefault_large(t->dim_heap, s->heap_bytes);
	return svc_register_table(s, t);
}

/*
 * DIM_FINISH on the GPUs: the least busy first; one without room or that
 * fails is left for the next (a failed one is left out for a while, as for
 * tables), and the slot's note says where the dimension went.  Out of room
 * everywhere: GH_ERR_GPU_MEMORY.
 */
static gh_status
build_dim_on_gpus(SvcSlot *s, SvcTable *t, gh_agg_dim **out, int *where)
{
	int			order[SVC_MAX_GPUS];
	int			n;
	gh_status	st = GH_ERR_NO_GPU;
	char		moved[160] = "";

	pthread_mutex_lock(&svc_registry);
	n = svc_gpus_by_load(order);
	pthread_mutex_unlock(&svc_registry);
	if (n == 0)
		return svc_fail(s, GH_ERR_NO_GPU, "every GPU of the GPU service failed lately");
	for (int i = 0; i < n; i++)
	{
		int			g = order[i];

		pthread_mutex_lock(&svc_registry);
		svc_gpu_busy(g, 1);
		pthread_mutex_unlock(&svc_registry);
		st = svc_injected(s, g) ? svc_injected_failure() :
			gh_agg_dim_build(svc_gpu_ordinal(g), t->keys, t->n_rows, t->dim_vals,
							 t->dim_ninner, t->dim_heap, t->dim_heap_bytes,
							 s->opt.max_device_bytes, out);
		pthread_mutex_lock(&svc_registry);
		svc_gpu_busy(g, -1);
		if (st != GH_OK && svc_gpu_fault(st))
			svc_gpu_failed(g, gh_last_error());
		pthread_mutex_unlock(&svc_registry);
		if (st == GH_OK)
		{
			*where = g;
			if (moved[0])
				snprintf(s->note, sizeof(s->note), "%s; the dimension went to GPU %d",
						 moved, svc_gpu_ordinal(g));
			return GH_OK;
		}
		if (st != GH_ERR_GPU_MEMORY && !svc_gpu_fault(st))
			break;				/* a bad request fails on every GPU */
		if (!moved[0])
			snprintf(moved, sizeof(moved), "GPU %d %s", svc_gpu_ordinal(g),
					 st == GH_ERR_GPU_MEMORY ? "had no room for the dimension" : "failed");
	}
	return svc_fail(s, st, gh_last_error());
}

/*
 * DIM_FINISH: every byte came; the dimension is built where s->opt.device
 * says, within s->opt.max_device_bytes of GPU memory, and the rows as they
 * came go.  The answer: rows (n), memory held (total), device (column: a
 * GPU ordinal or GH_AGG_HOST).
 */
static gh_status
finish_dim(SvcSlot *s, SvcTable *t)
{
	gh_agg_dim *dim = NULL;
	int			g = -1;
	gh_status	st;

	if (t->dim != NULL || t->keys == NULL ||
		t->filled != t->n_rows * sizeof(uint64) ||
		t->dim_vals_filled != t->n_rows * t->dim_ninner * sizeof(gh_agg_inval) ||
		t->dim_heap_filled != t->dim_heap_bytes)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: dimension finished before all its rows came");
	if (s->opt.device == GH_DEVICE_GPU)
		st = build_dim_on_gpus(s, t, &dim, &g);
	else if ((st = gh_agg_dim_build(GH_AGG_HOST, t->keys, t->n_rows, t->dim_vals,
									t->dim_ninner, t->dim_heap, t->dim_heap_bytes, 0,
									&dim)) != GH_OK)
		st = svc_fail(s, st, gh_last_error());
	svc_free_dim_parts(t);
	if (st != GH_OK)
		return st;

	/* PAGE_AGG requests read t->dim under the registry lock */
	pthread_mutex_lock(&svc_registry);
	t->dim = dim;
	t->home = g;
	if (g >= 0)
		svc_count_on_gpu(t, g, gh_agg_dim_bytes(dim));
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
	s->n = gh_agg_dim_rows(dim);
	s->total = gh_agg_dim_bytes(dim);
	s->column = gh_agg_dim_device(dim);
	return GH_OK;
}

/* DIM_APPEND and DIM_FINISH on dimension t, under its lock. */
gh_status
svc_serve_dim(SvcSlot *s, SvcTable *t)
{
	uint8	   *to;
	uint64		size,
			   *filled;

	if (s->type == REQ_DIM_FINISH)
		return finish_dim(s, t);
	if (s->type == REQ_DIM_MATCHED)
		return svc_serve_dim_matched(s, t);
	if (s->type != REQ_DIM_APPEND)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: unknown dimension request");
	switch (s->column)
	{
		case SVC_DIM_KEYS:
			to = (uint8 *) t->keys;
			size = t->n_rows * sizeof(uint64);
			filled = &t->filled;
			break;
		case SVC_DIM_VALS:
			to = (uint8 *) t->dim_vals;
			size = t->n_rows * t->dim_ninner * sizeof(gh_agg_inval);
			filled = &t->dim_vals_filled;
			break;
		case SVC_DIM_HEAP:
			to = t->dim_heap;
			size = t->dim_heap_bytes;
			filled = &t->dim_heap_filled;
			break;
		default:
			to = NULL;
			size = 0;
			filled = NULL;
	}
	/* byte ranges: pos and n */
	if (to == NULL || s->pos > size || s->n > size - s->pos ||
		s->n > gpuhash_svc->chunk_bytes)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: bad dimension chunk");
	memcpy(to + s->pos, chunk_of(s), s->n);
	*filled += s->n;
	return GH_OK;
}

/*
 * A PAGE_AGG request's dimension, taken (svc_unuse_table gives it back);
 * NULL, with s->dim_gone set and the error said, when s->dim_id names no
 * built dimension: freed, or of an earlier service.
 */
SvcTable *
svc_use_dim(SvcSlot *s)
{
	SvcTable   *t;

	pthread_mutex_lock(&svc_registry);
	t = svc_use_table(s->dim_id);
	if (t != NULL && (!t->is_dim || t->dim == NULL))
	{
		svc_unuse_table(t);
		t = NULL;
	}
	pthread_mutex_unlock(&svc_registry);
	if (t == NULL)
	{
		s->dim_gone = true;
		strlcpy(s->err, "It was freed, or belonged to an earlier GPU service.", sizeof(s->err));
	}
	return t;
}

void
svc_unuse_dim(SvcTable *t)
{
	pthread_mutex_lock(&svc_registry);
	svc_unuse_table(t);
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
}
