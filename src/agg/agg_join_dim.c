/*-------------------------------------------------------------------------
 *
 * agg_join_dim.c
 *	  GpuPreAgg over an inner join: a dimension from its rows' arrays (keys,
 *	  values, by-reference data), in the GPU service or in this backend, and
 *	  a dimension value made from a tuple's column, as the inner plan's rows
 *	  (agg_join.c) and the CPU's rows of refused inner pages
 *	  (agg_join_pages.c) make them alike.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "service_dim.h"

#include "utils/memutils.h"

/* One dimension value of column c from the row in slot, by-reference data onto heap. */
void
gpuhash_agg_join_dim_value(const GpuAggInnerCol *c, TupleTableSlot *slot, gh_agg_inval *out, StringInfo heap)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, c->tlpos, &isnull);
	double		f;

	memset(out, 0, sizeof(*out));
	if (isnull)
	{
		out->null = 1;
		return;
	}
	switch (c->gtype)
	{
		case GH_T_INT2:
			out->bits = (uint64) (int64) DatumGetInt16(d);
			break;
		case GH_T_INT4:
		case GH_T_DATE:
			out->bits = (uint64) (int64) DatumGetInt32(d);
			break;
		case GH_T_OID:
			out->bits = (uint64) DatumGetObjectId(d);
			break;
		case GH_T_BOOL:
			out->bits = DatumGetBool(d) ? 1 : 0;
			break;
		case GH_T_FLOAT4:
		case GH_T_FLOAT8:
			f = c->gtype == GH_T_FLOAT4 ? (double) DatumGetFloat4(d) : DatumGetFloat8(d);
			memcpy(&out->bits, &f, sizeof(f));
			break;
		case GH_T_NUMERIC:
		case GH_T_TEXT:
		case GH_T_BPCHAR:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

				/* 8-aligned, as the walker reads a numeric's digits */
				while (heap->len % 8 != 0)
					appendStringInfoChar(heap, '\0');
				out->bits = (uint64) heap->len;
				out->len = VARSIZE_ANY_EXHDR(v);
				appendBinaryStringInfo(heap, VARDATA_ANY(v), out->len);
				if ((Pointer) v != DatumGetPointer(d))
					pfree(v);
			}
			break;
		default:
			out->bits = (uint64) DatumGetInt64(d);
			break;
	}
}

/*
 * The dimension of nparts pieces laid end to end (GhDimPart), in the GPU
 * service held by owner_pid, each piece sent from where it lies.  False:
 * the service did not take it (the caller builds it otherwise).
 */
bool
gpuhash_agg_join_build_parts(GpuPreAggState *as, int owner_pid, const GhDimPart *parts,
							 int nparts)
{
	GpuAggJoin *j = as->join;
	GhSvcDimInfo info;

	if (!as->use_service)
		return false;
	memset(&info, 0, sizeof(info));
	if (gpuhash_svc_dim_build_parts(owner_pid, parts, nparts, as->aprog->join.ninner,
									as->device, &j->dim_id, &info))
	{
		j->ship_ms += info.ship_ms;
		j->service_ms += info.build_ms - info.ship_ms;
		j->dim_bytes = info.bytes;
		j->dim_where = info.device == GH_AGG_HOST ? "host" : "gpu";
		return true;
	}
	j->dim_id = 0;
	return false;
}

/*
 * The dimension of n rows (keys, vals: n x the program's inner columns,
 * heap_len bytes of by-reference data): in the GPU service where it takes
 * it (service), held by owner_pid, else in this backend on its device (the
 * host twin where it has no GPU) where local.  A dimension that cannot be
 * built in this backend leaves every page to the CPU.  False: none built.
 */
bool
gpuhash_agg_join_build_arrays(GpuPreAggState *as, int owner_pid, bool service, bool local,
							  const uint64 *keys, uint64 n, const gh_agg_inval *vals,
							  const uint8 *heap, uint64 heap_len)
{
	GpuAggJoin *j = as->join;
	int			ninner = as->aprog->join.ninner;
	gh_status	st;

	/* the service folds the requests where it holds the dimension */
	if (service)
	{
		GhDimPart	part;

		part.keys = keys;
		part.vals = vals;
		part.heap = heap;
		part.n = n;
		part.heap_len = heap_len;
		if (gpuhash_agg_join_build_parts(as, owner_pid, &part, 1))
			return true;
	}
	if (!local)
		return false;

	/*
	 * In this backend the host twin holds it: the join's fold reads pages
	 * only through gh_page_agg_join_mapped, and a GPU can map only the
	 * buffer pool the service registered, never this backend's page copies.
	 */
	st = gh_agg_dim_build(GH_AGG_HOST, keys, n, vals, ninner, heap, heap_len, 0, &j->dim);
	if (st != GH_OK)
	{
		j->dim = NULL;
		as->why_cpu = psprintf("the join's dimension could not be built: %s", gh_last_error());
	}
	else
	{
		j->dim_bytes = gh_agg_dim_bytes(j->dim);
		j->dim_where = gh_agg_dim_device(j->dim) == GH_AGG_HOST ? "host" : "gpu";
	}
	return j->dim != NULL;
}
