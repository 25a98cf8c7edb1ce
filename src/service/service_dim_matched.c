/*-------------------------------------------------------------------------
 *
 * service_dim_matched.c
 *	  A dimension's matched flags read back from the GPU service (an outer
 *	  join that preserves the inner side, agg_join_outer.c): DIM_MATCHED
 *	  copies a byte range of them into the slot's staging chunk, as ROWIDS
 *	  copies a build's row order.  The backend's side (gpuhash_svc_dim_matched)
 *	  and the service's (svc_serve_dim_matched, a worker thread: no
 *	  PostgreSQL calls) side by side, as the request is one small exchange.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"
#include "worker_internal.h"
#include "service_dim.h"

void
gpuhash_svc_dim_matched(uint64 dim_id, uint64 n, uint8 *out)
{
	uint32		gen = (uint32) (dim_id >> 32);
	uint64		per;
	SvcSlot    *s;
	gh_status	st = GH_OK;

	if (!gpuhash_service_ready() || pg_atomic_read_u32(&gpuhash_svc->generation) != gen)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: the GPU service that held the join's dimension is gone")));
	per = gpuhash_svc->chunk_bytes;
	s = svc_claim_slot();
	for (uint64 pos = 0; pos < n && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, n - pos);

		s->type = REQ_DIM_MATCHED;
		s->table_id = (uint32) dim_id;
		s->pos = pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, gen);
		if (st == GH_OK)
			memcpy(out + pos, chunk_of(s), cnt);
	}
	if (svc_release_if_ours(s, gen, st) != GH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: the join's matched rows could not be read from the GPU service: %s",
						gh_last_error())));
}

/* DIM_MATCHED on dimension t, under its lock: flags [pos, pos + n) into the chunk. */
gh_status
svc_serve_dim_matched(SvcSlot *s, SvcTable *t)
{
	gh_status	st;

	if (t->dim == NULL || s->n > gpuhash_svc->chunk_bytes ||
		s->pos > gh_agg_dim_rows(t->dim) || s->n > gh_agg_dim_rows(t->dim) - s->pos)
		return svc_fail(s, GH_ERR_INVALID, "GPU service: bad matched-flags request");
	st = gh_agg_dim_matched(t->dim, s->pos, s->n, (uint8_t *) chunk_of(s));
	if (st != GH_OK)
		return svc_fail(s, st, gh_last_error());
	return GH_OK;
}
