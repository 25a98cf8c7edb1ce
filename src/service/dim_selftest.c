/*-------------------------------------------------------------------------
 *
 * dim_selftest.c
 *	  Test-only SQL functions for dimensions in the GPU service
 *	  (service_dim.c): build one from given rows, free it, leave it to this
 *	  backend's exit or to the service's owner sweep, count what the
 *	  service holds, and fold one PAGE_AGG request joined to one.
 *
 * Not part of the extension's SQL: sql/gpuhash_dim_service.sql creates
 * them (superuser, LANGUAGE C) for the test's duration:
 *	gpuhash_dim_service_build(keys int8[], vals int8[], texts text[],
 *							  device text, mode text) RETURNS text
 *		a dimension of two columns (int8 vals, text texts; NULL elements are
 *		NULLs) keyed by keys, on device 'host' or 'gpu'; mode 'free' frees
 *		it at once, 'keep' leaves it to this backend's exit, 'orphan' to the
 *		service's sweep after this backend is gone.  Returns what the
 *		service answered ('rows=N device=host') or 'not taken'.
 *	gpuhash_dim_service_count() RETURNS int4: dimensions the service holds.
 *	gpuhash_dim_service_agg(rel regclass, keys int8[], vals int8[],
 *							texts text[], device text, free_first bool)
 *							RETURNS text[]
 *		the same dimension; one PAGE_AGG request over rel's first pages
 *		(copied; every tuple taken as visible: the test's table has no dead
 *		rows), joined on rel's first column (int8 NOT NULL) = key, grouped
 *		by vals: 'v=<val> n=<count(*)> sum=<sum(rel's column)>
 *		texts=<count(text)>' per group, sorted.  free_first frees the
 *		dimension before the request: a clean ERROR.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_dim.h"
#include "scan/page_scan.h"
#include "agg_exec.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(gpuhash_dim_service_build);
PG_FUNCTION_INFO_V1(gpuhash_dim_service_count);
PG_FUNCTION_INFO_V1(gpuhash_dim_service_agg);

#define SELFTEST_PAGES 4

typedef struct DimRows
{
	int			n;
	uint64	   *keys;
	gh_agg_inval *vals;			/* n x 2: int8, text */
	StringInfoData heap;
} DimRows;

static void
dim_rows(ArrayType *ka, ArrayType *va, ArrayType *ta, DimRows *d)
{
	Datum	   *kd,
			   *vd,
			   *td;
	bool	   *kn,
			   *vn,
			   *tn;
	int			nk,
				nv,
				nt;

	deconstruct_array(ka, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &kd, &kn, &nk);
	deconstruct_array(va, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &vd, &vn, &nv);
	deconstruct_array(ta, TEXTOID, -1, false, TYPALIGN_INT, &td, &tn, &nt);
	if (nk != nv || nk != nt)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys, vals and texts must be as long")));
	d->n = nk;
	d->keys = palloc(sizeof(uint64) * Max(nk, 1));
	d->vals = palloc0(sizeof(gh_agg_inval) * 2 * Max(nk, 1));
	initStringInfo(&d->heap);
	for (int i = 0; i < nk; i++)
	{
		gh_agg_inval *v = &d->vals[2 * i];

		if (kn[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a dimension's key is never NULL")));
		/* an int8 join key packs as its 64 bits (conv int64, width 64) */
		d->keys[i] = (uint64) DatumGetInt64(kd[i]);
		v[0].null = vn[i];
		v[0].bits = vn[i] ? 0 : (uint64) DatumGetInt64(vd[i]);
		v[1].null = tn[i];
		if (!tn[i])
		{
			text	   *t = DatumGetTextPP(td[i]);

			v[1].bits = d->heap.len;
			v[1].len = VARSIZE_ANY_EXHDR(t);
			appendBinaryStringInfo(&d->heap, VARDATA_ANY(t), v[1].len);
		}
	}
}

static gh_device
device_arg(text *t)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "host") == 0)
		return GH_DEVICE_HOST;
	if (strcmp(s, "gpu") == 0)
		return GH_DEVICE_GPU;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("device must be 'host' or 'gpu'")));
	return GH_DEVICE_HOST;
}

Datum
gpuhash_dim_service_build(PG_FUNCTION_ARGS)
{
	DimRows		d;
	char	   *mode = text_to_cstring(PG_GETARG_TEXT_PP(4));
	gh_device	device = device_arg(PG_GETARG_TEXT_PP(3));
	GhSvcDimInfo info;
	uint64		id;

	if (strcmp(mode, "free") != 0 && strcmp(mode, "keep") != 0 && strcmp(mode, "orphan") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be 'free', 'keep' or 'orphan'")));
	dim_rows(PG_GETARG_ARRAYTYPE_P(0), PG_GETARG_ARRAYTYPE_P(1), PG_GETARG_ARRAYTYPE_P(2), &d);
	if (!gpuhash_svc_dim_build_info(d.keys, d.n, d.vals, 2, (const uint8 *) d.heap.data,
									d.heap.len, device, &id, &info))
		PG_RETURN_TEXT_P(cstring_to_text("not taken"));
	if (strcmp(mode, "free") == 0)
		gpuhash_svc_dim_free(id);
	else if (strcmp(mode, "orphan") == 0)
		gpuhash_svc_dim_disown(id);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("rows=" UINT64_FORMAT " device=%s",
											  info.rows,
											  info.device == GH_AGG_HOST ? "host" : "gpu")));
}

Datum
gpuhash_dim_service_count(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(gpuhash_svc_dims_alive());
}

/* The scan and aggregation programs of gpuhash_dim_service_agg. */
static void
selftest_programs(gh_page_scan *scan, gh_agg_prog *agg)
{
	memset(scan, 0, sizeof(*scan));
	scan->mode = GH_PAGE_ALL_ROWS;
	scan->natts = 1;
	scan->col[0].attlen = 8;
	scan->col[0].attalign = 8;
	scan->col[0].type = GH_T_INT8;
	scan->nkeys = 1;
	scan->key[0].col = 0;
	scan->key[0].conv = 2;		/* int64 */
	scan->key[0].width = 64;

	memset(agg, 0, sizeof(*agg));
	agg->nkeys = 1;
	agg->key[0].col = GH_AGG_INNER_COL0;
	agg->key[0].conv = 2;
	agg->key[0].width = 64;
	agg->naggs = 3;
	agg->agg[0].fn = GH_AGG_COUNT_STAR;
	agg->agg[1].fn = GH_AGG_SUM;
	agg->agg[1].col = 0;
	agg->agg[2].fn = GH_AGG_COUNT;
	agg->agg[2].col = GH_AGG_INNER_COL0 + 1;
	agg->join.ninner = 2;
	agg->join.inner_type[0] = GH_T_INT8;
	agg->join.inner_type[1] = GH_T_TEXT;
}

/* Up to SELFTEST_PAGES of rel's pages, copied into req (all taken as visible). */
static void
selftest_pages(Relation rel, GpuPageReq *req)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	req->n_pages = 0;
	req->n_visible = 0;
	req->in_place = false;
	for (BlockNumber b = 0; b < nblocks && b < SELFTEST_PAGES; b++)
	{
		Buffer		buf = ReadBuffer(rel, b);
		Page		page = BufferGetPage(buf);
		gh_page_ref *r = &req->refs[req->n_pages];

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(req->pages + (Size) req->n_pages * GH_PAGE_SIZE, page, GH_PAGE_SIZE);
		r->offset = (uint64) req->n_pages * GH_PAGE_SIZE;
		r->vis_start = 0;
		r->nvis = GH_PAGE_ALL_VISIBLE;
		r->maxoff = PageGetMaxOffsetNumber(page);
		UnlockReleaseBuffer(buf);
		req->n_pages++;
	}
}

static int
cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

Datum
gpuhash_dim_service_agg(PG_FUNCTION_ARGS)
{
	Relation	rel = relation_open(PG_GETARG_OID(0), AccessShareLock);
	gh_device	device = device_arg(PG_GETARG_TEXT_PP(4));
	bool		free_first = PG_GETARG_BOOL(5);
	TupleDesc	desc = RelationGetDescr(rel);
	DimRows		d;
	gh_page_scan scan;
	gh_agg_prog agg;
	GpuPageReq	req;
	gh_agg_groups ans;
	gh_agg_stats stats;
	uint64		id;
	int			folded = 0;
	int			n_out;
	gh_status	st;
	Datum	   *out;

	if (desc->natts < 1 || TupleDescAttr(desc, 0)->atttypid != INT8OID ||
		!TupleDescAttr(desc, 0)->attnotnull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the relation's first column must be int8 NOT NULL")));
	dim_rows(PG_GETARG_ARRAYTYPE_P(1), PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3), &d);
	selftest_programs(&scan, &agg);
	memset(&req, 0, sizeof(req));
	req.cap_pages = SELFTEST_PAGES;
	req.refs = palloc0(sizeof(gh_page_ref) * SELFTEST_PAGES);
	req.pages = palloc(GH_PAGE_SIZE * SELFTEST_PAGES);
	req.visible = palloc0(sizeof(uint16));
	req.refused = palloc0(SELFTEST_PAGES);
	selftest_pages(rel, &req);
	relation_close(rel, AccessShareLock);

	if (!gpuhash_svc_dim_build(d.keys, d.n, d.vals, 2, (const uint8 *) d.heap.data,
							   d.heap.len, device, &id))
		PG_RETURN_NULL();
	if (free_first)
		gpuhash_svc_dim_free(id);
	if (!gpuhash_svc_agg_submit(&scan, &agg, &req, device, 1000, &req.ticket, id))
	{
		gpuhash_svc_dim_free(id);
		PG_RETURN_NULL();
	}
	memset(&ans, 0, sizeof(ans));
	memset(&stats, 0, sizeof(stats));
	PG_TRY();
	{
		st = gpuhash_svc_agg_wait(&req.ticket, &req, &agg, &ans, &stats, &folded);
	}
	PG_FINALLY();
	{
		gpuhash_svc_dim_free(id);
	}
	PG_END_TRY();
	if (st != GH_OK || folded != req.n_pages)
	{
		gh_agg_groups_free(&ans);
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("the request joined to the dimension failed (%d of %d pages folded): %s",
						folded, req.n_pages, st != GH_OK ? gh_last_error() : "")));
	}
	out = palloc(sizeof(Datum) * Max(ans.n_groups, 1));
	for (uint64 g = 0; g < ans.n_groups; g++)
	{
		const gh_agg_state *s = &ans.states[g * agg.naggs];

		out[g] = CStringGetDatum(psprintf("v=%s n=" INT64_FORMAT " sum=" INT64_FORMAT
										  " texts=" INT64_FORMAT,
										  (ans.nulls[g] & 1) ? "NULL" :
										  psprintf(INT64_FORMAT, (int64) ans.keys[g]),
										  s[0].count, (int64) s[1].sum[0], s[2].count));
	}
	qsort(out, ans.n_groups, sizeof(Datum), cmp_text);
	for (uint64 g = 0; g < ans.n_groups; g++)
		out[g] = CStringGetTextDatum(DatumGetCString(out[g]));
	n_out = (int) ans.n_groups;
	gh_agg_groups_free(&ans);
	PG_RETURN_ARRAYTYPE_P(construct_array(out, n_out, TEXTOID, -1, false, TYPALIGN_INT));
}
