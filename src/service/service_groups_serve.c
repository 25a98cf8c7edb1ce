/*-------------------------------------------------------------------------
 *
 * service_groups_serve.c
 *	  The GPU service's side of resident groups (cuda/gpuhash_agg_set.h): a
 *	  GpuPreAgg's groups kept in the service, one set per node and query
 *	  execution, merged into by its PAGE_AGG requests (service_agg.c) and
 *	  read back once by SET_FINISH.  A set is a registry entry
 *	  (service_registry.c), so frees, the owner sweep and the figures of
 *	  gpuhash_info() treat it as they treat tables and dimensions.  The
 *	  backend's side is service_groups.c.
 *
 * SET_BEGIN: the chunk holds the scan and aggregation programs; the set
 * goes to the least busy GPU (s->opt.device GPU) or the host twin, capped
 * at s->capacity bytes.  A PAGE_AGG request naming it merges each run's
 * groups into it under the entry's lock, so merges into one set never run
 * at once (svc_set_take).  SET_FINISH: the first finishes the set (the
 * HAVING terms in the chunk applied when s->set_apply and no request's
 * groups stayed out), and every one answers a range of the survivors from
 * s->pos.
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

/* REQ_SET_BEGIN: a registered, empty set for the chunk's programs. */
gh_status
svc_begin_set(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	const gh_page_scan *scan = (const gh_page_scan *) chunk;
	const gh_agg_prog *agg = (const gh_agg_prog *) (chunk + TYPEALIGN(64, sizeof(gh_page_scan)));
	int			device = GH_AGG_HOST;
	int			home = -1;
	SvcTable   *t;
	gh_status	st;

	if (s->opt.device == GH_DEVICE_GPU)
	{
		int			order[SVC_MAX_GPUS];

		pthread_mutex_lock(&svc_registry);
		if (svc_gpus_by_load(order) > 0)
			home = order[0];
		pthread_mutex_unlock(&svc_registry);
		if (home < 0)
			return svc_fail(s, GH_ERR_NO_GPU, "every GPU of the GPU service failed lately");
		device = svc_gpu_ordinal(home);
	}
	if ((t = svc_new_table(s)) == NULL)
		return svc_fail(s, GH_ERR_HOST_MEMORY, "GPU service: out of memory for resident groups");
	t->is_set = true;
	t->home = home;
	st = gh_agg_set_create(device, scan, agg, (size_t) s->capacity, &t->set);
	if (st != GH_OK)
	{
		svc_unmade_table(t);
		return svc_fail(s, st, gh_last_error());
	}
	s->column = device;
	return svc_register_table(s, t);
}

/* The set a PAGE_AGG or SET_FINISH request names, taken; NULL: gone. */
SvcTable *
svc_use_set(SvcSlot *s)
{
	SvcTable   *t;

	pthread_mutex_lock(&svc_registry);
	t = svc_use_table(s->set_id);
	if (t != NULL && !t->is_set)
	{
		svc_unuse_table(t);
		t = NULL;
	}
	pthread_mutex_unlock(&svc_registry);
	return t;
}

void
svc_unuse_set(SvcTable *t)
{
	pthread_mutex_lock(&svc_registry);
	svc_unuse_table(t);
	svc_publish_locked();
	pthread_mutex_unlock(&svc_registry);
}

/* A group state the set must not take: not exact (the backend folds it). */
static bool
inexact(const gh_agg_groups *g)
{
	if (g->fallback_groups == 0)
		return false;
	for (uint64 i = 0; i < g->n_groups * g->naggs; i++)
		if (g->states[i].flags & GH_AGG_S_FALLBACK)
			return true;
	return false;
}

/*
 * A run's groups into set t, g emptied: true.  False when they cannot go
 * in (the set's cap, a failure, a value the core could not hold exactly, a
 * set already finished): the set is then incomplete and g unchanged.
 */
bool
svc_set_take(SvcTable *t, gh_agg_groups *g)
{
	gh_status	st = GH_ERR_INVALID;

	pthread_mutex_lock(&t->lock);
	if (t->set_out == NULL && !inexact(g))
		st = gh_agg_set_merge(t->set, g);
	if (st != GH_OK)
		t->set_incomplete = true;
	pthread_mutex_unlock(&t->lock);
	if (st != GH_OK)
		return false;
	if (t->home >= 0)
	{
		pthread_mutex_lock(&svc_registry);
		svc_count_on_gpu(t, t->home, gh_agg_set_bytes(t->set));
		pthread_mutex_unlock(&svc_registry);
	}
	gh_agg_groups_free(g);
	return true;
}

/*
 * REQ_SET_FINISH: the set finished at the first (HAVING applied when
 * s->set_apply and the set is complete), then groups [s->pos, ...) of the
 * answer into the chunk.  Answered: n (groups in the set), total (in the
 * answer), written (in this chunk), skip (removed by the HAVING terms),
 * set_apply (whether they were applied).
 */
gh_status
svc_serve_set_finish(SvcSlot *s)
{
	char	   *chunk = chunk_of(s);
	SvcTable   *t = svc_use_set(s);
	gh_status	st = GH_OK;
	gh_agg_groups *out;
	int			na,
				kw;
	uint64		room,
				n;
	Size		o_nulls,
				o_states;

	if (t == NULL)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: resident groups gone (freed, or of an earlier service)");
	pthread_mutex_lock(&t->lock);
	if (t->set_out == NULL)
	{
		gh_agg_having h;
		bool		apply = s->set_apply && !t->set_incomplete;

		memcpy(&h, chunk, sizeof(h));
		if (!apply)
			h.nterms = 0;
		out = calloc(1, sizeof(gh_agg_groups));
		if (out == NULL)
		{
			gh_set_last_error("GPU service: out of memory");
			st = GH_ERR_HOST_MEMORY;
		}
		else
		{
			out->naggs = (int16) gh_agg_set_naggs(t->set);
			st = gh_agg_set_finish(t->set, &h, out, &t->set_removed);
			if (st == GH_OK)
				t->set_out = out;
			else
				free(out);
		}
		t->set_incomplete |= !apply;
	}
	if (st == GH_OK)
	{
		out = t->set_out;
		na = out->naggs;
		kw = gh_agg_groups_key_words(out);
		room = set_answer_room(gpuhash_svc->chunk_bytes, na, kw);
		n = s->pos < out->n_groups ? Min(room, out->n_groups - s->pos) : 0;
		o_nulls = TYPEALIGN(64, SET_ANSWER_OFF + room * sizeof(uint64) * kw);
		o_states = TYPEALIGN(64, o_nulls + room);
		if (n > 0)
		{
			memcpy(chunk + SET_ANSWER_OFF, out->keys + s->pos * kw, n * sizeof(uint64) * kw);
			memcpy(chunk + o_nulls, out->nulls + s->pos, n);
			memcpy(chunk + o_states, out->states + s->pos * na, n * na * sizeof(gh_agg_state));
		}
		s->n = gh_agg_set_groups(t->set);
		s->total = out->n_groups;
		s->written = n;
		s->skip = t->set_removed;
		s->set_apply = !t->set_incomplete;
		s->column = gh_agg_set_device(t->set);
	}
	pthread_mutex_unlock(&t->lock);
	svc_unuse_set(t);
	if (st != GH_OK)
		return svc_fail(s, st, gh_last_error());
	return GH_OK;
}
