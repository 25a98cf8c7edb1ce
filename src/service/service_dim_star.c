/*-------------------------------------------------------------------------
 *
 * service_dim_star.c
 *	  A PAGE_AGG request over a star (several dimensions, agg_star.c): its
 *	  first dimension is the request's dim_id, as over one; the others are
 *	  named by the program (gh_agg_prog.star.dim[d].ref: their ids, as the
 *	  backend built them here).  Each is pinned for the request as the first
 *	  is (a dimension freed meanwhile is destroyed after its last request),
 *	  and their star (gh_agg_dim_star: views side by side, nothing copied)
 *	  is what the request folds over.
 *
 *	  A service worker thread: no PostgreSQL calls here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "service_internal.h"
#include "worker_internal.h"

/*
 * The star of the request's program over first (pinned by the caller),
 * the further dimensions pinned into pinned[1 ..]; NULL with s->err set
 * when one is gone (s->dim_gone) or they lie on different devices.
 */
gh_agg_dim *
svc_star_use(SvcSlot *s, const gh_agg_prog *agg, SvcTable *first, SvcTable **pinned)
{
	const gh_agg_dim *parts[GH_AGG_MAX_DIMS];
	gh_agg_dim *star = NULL;
	int			n = agg->star.ndims;
	uint32		generation = pg_atomic_read_u32(&gpuhash_svc->generation);

	if (n < 2 || n > GH_AGG_MAX_DIMS)
	{
		strlcpy(s->err, "GPU service: a star of no dimensions", sizeof(s->err));
		return NULL;
	}
	pinned[0] = first;
	parts[0] = first->dim;
	for (int d = 1; d < n; d++)
		pinned[d] = NULL;
	pthread_mutex_lock(&svc_registry);
	for (int d = 1; d < n; d++)
	{
		uint64		ref = agg->star.dim[d].ref;
		SvcTable   *t = (uint32) (ref >> 32) == generation ? svc_use_table((uint32) ref) : NULL;

		if (t != NULL && (!t->is_dim || t->dim == NULL))
		{
			svc_unuse_table(t);
			t = NULL;
		}
		if (t == NULL)
			break;
		pinned[d] = t;
		parts[d] = t->dim;
	}
	pthread_mutex_unlock(&svc_registry);
	for (int d = 1; d < n; d++)
		if (pinned[d] == NULL)
		{
			s->dim_gone = true;
			strlcpy(s->err, "A dimension of the star was freed, or belonged to an earlier GPU service.",
					sizeof(s->err));
			svc_star_unuse(NULL, pinned, n);
			return NULL;
		}
	if (gh_agg_dim_star(parts, n, &star) != GH_OK)
	{
		strlcpy(s->err, gh_last_error(), sizeof(s->err));
		svc_star_unuse(NULL, pinned, n);
		return NULL;
	}
	return star;
}

/* The star freed and the further dimensions unpinned (pinned[0], the first, is the caller's). */
void
svc_star_unuse(gh_agg_dim *star, SvcTable **pinned, int n)
{
	if (star != NULL)
		gh_agg_dim_free(star);
	for (int d = 1; d < n; d++)
	{
		if (pinned[d] != NULL)
			svc_unuse_dim(pinned[d]);
		pinned[d] = NULL;
	}
}
