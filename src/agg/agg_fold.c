/*-------------------------------------------------------------------------
 *
 * agg_fold.c
 *	  The GPU aggregate's requests and group set: pages read as the join's
 *	  page path reads them (page_scan.c: pinned, all-visible by the
 *	  visibility map, others through heapgetpage, copied under the share
 *	  lock or, for the service, named in place in the buffer pool), folded by the aggregation core (gh_page_agg) in the GPU service
 *	  (service_agg.c) or in this backend, the answers merged into one set of
 *	  groups (gh_agg_merge).
 *
 * The set is bounded by work_mem x hash_mem_multiplier, as a HashAggregate
 * is: a fold or a merge that would pass the bound hands the set collected
 * so far out as rows (a spill: the Finalize Aggregate above combines several
 * partial rows of one group, so nothing is lost) and starts a new one.
 *
 * Where the GPU cannot fold exactly (a qual it cannot take, which must run
 * first on the CPU; a column it cannot read; a group key or aggregate its
 * program cannot hold) every page is a refused page: the CPU reads its
 * tuples, evaluates the quals and hands out one partial row per tuple
 * (agg_exec.c).
 *
 *-------------------------------------------------------------------------
 */
#include "agg_exec.h"
#include "agg_plan.h"
#include "agg_join.h"
#include "agg_resident.h"
#include "service_groups.h"
#include "service.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* Every malloc'd group set freed. */
static void
free_sets(GpuPreAggState *as)
{
	ListCell   *lc;

	gh_agg_groups_free(&as->groups);
	foreach(lc, as->pending)
		gh_agg_groups_free((gh_agg_groups *) lfirst(lc));
	as->pending = NIL;
	foreach(lc, as->levels)
		gh_agg_groups_free((gh_agg_groups *) lfirst(lc));
	as->levels = NIL;
}

/*
 * The node's memory goes (the end, an error or cancel): requests in flight
 * are given up and the sets freed.  Pins are the resource owner's.
 */
static void
cleanup_callback(void *arg)
{
	GpuPreAggState *as = arg;

	for (int r = 0; r < GPUAGG_PIPELINE; r++)
		gpuhash_svc_probe_abandon(&as->req[r].r.ticket);
	gpuhash_agg_join_pages_abandon(as, false);
	free_sets(as);
	if (as->join != NULL)
		gpuhash_agg_join_free_dim(as->join);
}

/* Decline the GPU: every page goes the CPU's way. */
static void
cpu_only(GpuPreAggState *as, const char *why)
{
	if (as->why_cpu == NULL)
		as->why_cpu = why;
}

/*
 * Under a GPU memory budget (gpuhash.max_gpu_memory), a request's fold on
 * the GPU (its inputs, its answer, its table of a group a listed tuple at
 * most, and its pages where they are copied: gh_agg_fold_device_bytes)
 * stays within a quarter of the budget for each of the service's threads,
 * as the join's walk lanes do (page_read.c): fewer pages a request, never
 * under one.  Over a join a row may meet several dimension rows, known
 * only once the dimension is built: sized as one group a row.  The fold's
 * scratch, grown, takes a quarter more than it is asked.  Sized so on the
 * host twin too, whose tests see the same requests.
 */
static size_t
fold_bytes(GpuPreAggState *as, uint32 pages)
{
	uint32		tuples = pages * GH_PAGE_MAX_TUPLES;

	return gh_agg_fold_device_bytes(pages, tuples, Min(as->max_groups, tuples),
									Max(as->naggs, 1),
									as->aprog ? gh_agg_key_words(as->aprog) : 1);
}

static void
fold_caps_in_budget(GpuPreAggState *as, uint32 *cap, uint32 *cap_in_place)
{
	size_t		budget = gpuhash_gpu_budget();
	size_t		share;

	if (budget == 0)
		return;
	share = budget / 4 / Max(gpuhash_service_threads, 1);
	while (*cap > 1 && fold_bytes(as, *cap) + (size_t) *cap * GH_PAGE_SIZE > share)
		*cap /= 2;
	while (*cap_in_place > *cap && fold_bytes(as, *cap_in_place) > share)
		*cap_in_place = Max(*cap, *cap_in_place / 2);
}

/*
 * The join's outer key columns, for the scan program's key[] (packed as the
 * join's page path packs exact keys); -1 where one is not a plain column of
 * the relation (the CPU joins then).
 */
static int
join_key_columns(GpuPreAggState *as, Index scanrelid, AttrNumber *attno)
{
	GpuAggJoin *j = as->join;

	if (j->njoinkeys > GH_PAGE_MAX_KEYS)
	{
		cpu_only(as, "more join keys than the walker packs");
		return -1;
	}
	for (int k = 0; k < j->njoinkeys; k++)
	{
		Expr	   *e = list_nth(j->outer_keys, k);

		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (!IsA(e, Var) || ((Var *) e)->varno != scanrelid || ((Var *) e)->varattno <= 0)
		{
			cpu_only(as, "a join key that is not a column of the relation");
			return -1;
		}
		attno[k] = ((Var *) e)->varattno;
	}
	return j->njoinkeys;
}

void
gpuhash_agg_setup(GpuPreAggState *as, CustomScan *cscan, EState *estate, int eflags)
{
	Index		scanrelid = cscan->scan.scanrelid;
	List	   *tlist = cscan->custom_scan_tlist;
	List	   *quals;
	AttrNumber *extra;
	int			nextra = 0;
	int			i = 0;
	ListCell   *lc;
	size_t		per_group;
	uint32		cap,
				cap_in_place;
	MemoryContextCallback *cb;
	Relids		inner_relids = NULL;
	AttrNumber	jkey_attno[GH_PAGE_MAX_KEYS];
	int			njkeys = 0;

	if (cscan->custom_private == NIL)
		elog(ERROR, "gpuhash: GpuPreAgg without its group column count");
	as->nkeys = intVal(linitial(cscan->custom_private));
	as->naggs = 0;
	foreach(lc, tlist)
	{
		if (foreach_current_index(lc) >= as->nkeys &&
			IsA(lfirst_node(TargetEntry, lc)->expr, Aggref))
			as->naggs++;
	}
	if (as->nkeys < 0 || as->nkeys > GH_AGG_MAX_KEYS || as->naggs > GH_AGG_MAX_AGGS ||
		as->nkeys > list_length(tlist))
		elog(ERROR, "gpuhash: GpuPreAgg with %d group columns and %d aggregates", as->nkeys,
			 as->naggs);
	quals = gpuhash_preagg_scan_quals(cscan);
	as->os = gpuhash_heap_scan_open(&as->css.ss.ps, scanrelid, quals, NIL,
									cscan->scan.plan.parallel_aware, estate, eflags);
	as->join = gpuhash_agg_join_init(as, cscan, estate, eflags);
	if (as->join != NULL)
		inner_relids = bms_del_member(bms_copy(cscan->custom_relids), scanrelid);

	/* the group columns */
	as->key_attno = palloc0(sizeof(AttrNumber) * Max(as->nkeys, 1));
	as->key_inner = palloc0(sizeof(Var *) * Max(as->nkeys, 1));
	as->key_type = palloc0(sizeof(Oid) * Max(as->nkeys, 1));
	as->key_typmod = palloc0(sizeof(int32) * Max(as->nkeys, 1));
	as->key_conv = palloc0(Max(as->nkeys, 1));
	as->key_width = palloc0(sizeof(int) * Max(as->nkeys, 1));
	as->key_shift = palloc0(sizeof(int) * Max(as->nkeys, 1));
	extra = palloc0(sizeof(AttrNumber) *
					(as->nkeys + 3 * as->naggs + GH_AGG_MAX_DIMS * GH_PAGE_MAX_KEYS + 1));
	as->aggs = palloc0(sizeof(GpuAggSupport) * Max(as->naggs, 1));
	foreach(lc, tlist)
	{
		Expr	   *e = lfirst_node(TargetEntry, lc)->expr;
		const char *why = NULL;
		int			k = foreach_current_index(lc);

		if (k < as->nkeys)
		{
			Expr	   *v = e;
			bool		ok;
			uint8		width = 0;

			while (IsA(v, RelabelType))
				v = ((RelabelType *) v)->arg;
			if (!IsA(v, Var) || ((Var *) v)->varattno <= 0 ||
				(((Var *) v)->varno != scanrelid && as->join == NULL))
				elog(ERROR, "gpuhash: a GpuPreAgg group column is not a column of its relation");
			as->key_type[k] = exprType((Node *) v);
			as->key_typmod[k] = exprTypmod((Node *) v);
			if (((Var *) v)->varno == scanrelid)
			{
				as->key_attno[k] = ((Var *) v)->varattno;
				extra[nextra++] = as->key_attno[k];
			}
			else
				as->key_inner[k] = (Var *) v;
			ok = as->join != NULL ?
				gpuhash_agg_key_supported_join(e, scanrelid, inner_relids, &as->key_conv[k],
											   &width, &why) :
				gpuhash_agg_key_supported(e, scanrelid, &as->key_conv[k], &width, &why);
			as->key_width[k] = width;
			if (!ok)
				cpu_only(as, why ? why : "group key");
		}
		else if (IsA(e, Aggref))
		{
			GpuAggSupport *s = &as->aggs[i++];
			bool		ok;

			ok = as->join != NULL ?
				gpuhash_agg_supported_join((Aggref *) e, scanrelid, inner_relids, s, &why) :
				gpuhash_agg_supported((Aggref *) e, scanrelid, s, &why);
			/* the CPU's rows need the catalog too: a plan it declines is wrong */
			if (!ok)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("gpuhash: GpuPreAgg over an aggregate it cannot compute: %s",
								why ? why : "unsupported")));
			for (int j = 0; j < 3; j++)
				if (s->attno[j] > 0)
					extra[nextra++] = s->attno[j];
		}
	}
	/* the text keys' slots, as the planner chose them (agg_keys.c) */
	if (!gpuhash_agg_key_slots(as->nkeys, as->key_conv, as->key_typmod, as->key_width))
		cpu_only(as, "group keys wider than the GPU's packed key");
	for (int k = as->nkeys - 1, shift = 0; k >= 0 && as->nkeys > 1; k--)
	{
		as->key_shift[k] = shift;
		shift += as->key_width[k];
	}

	/* the walker's program: the quals, the columns keys and arguments read */
	if (as->join != NULL)
		njkeys = join_key_columns(as, scanrelid, jkey_attno);
	/* a star's further dimensions' keys (agg_star.c) */
	if (as->join != NULL)
		nextra = gpuhash_agg_star_extra(as->join, extra, nextra);
	gpuhash_page_program_cols(&as->pp.prog, as->os->desc, scanrelid, quals,
							  njkeys > 0 ? jkey_attno : NULL,
							  njkeys > 0 ? as->join->outer_conv : NULL,
							  njkeys > 0 ? as->join->width : NULL, Max(njkeys, 0),
							  false, extra, nextra);
	if (as->pp.prog.scan == NULL)
		cpu_only(as, as->pp.prog.why ? as->pp.prog.why : "scan program");
	else if (as->pp.prog.cpu_quals != NIL)
		cpu_only(as, "a qual the GPU does not take");
	else if (BLCKSZ != GH_PAGE_SIZE)
		cpu_only(as, "block size");
	if (as->why_cpu == NULL)
	{
		gh_page_scan *s = as->pp.prog.scan;
		gh_agg_prog *ap = palloc0(sizeof(gh_agg_prog));

		/* count(*) alone reads no column: the first is walked over */
		if (s->natts == 0 && as->os->desc->natts > 0)
		{
			Form_pg_attribute att = TupleDescAttr(as->os->desc, 0);

			s->natts = 1;
			s->col[0].attlen = att->attlen;
			s->col[0].attalign = att->attalign == TYPALIGN_DOUBLE ? 8 :
				att->attalign == TYPALIGN_INT ? 4 : att->attalign == TYPALIGN_SHORT ? 2 : 1;
			s->col[0].type = GH_T_SKIP;
		}
		ap->nkeys = as->nkeys;
		for (int k = 0; k < as->nkeys; k++)
		{
			ap->key[k].col = as->key_attno[k] - 1;
			ap->key[k].conv = as->key_conv[k];
			if (as->key_conv[k] == GH_AGG_KEY_BPCHAR || as->key_conv[k] == GH_AGG_KEY_TEXT)
				ap->key_bytes[k] = (uint16) (as->key_width[k] / 8);
			else
				ap->key[k].width = (uint8) as->key_width[k];
		}
		/* the core folds at least one aggregate: a GROUP BY alone counts */
		ap->naggs = Max(as->naggs, 1);
		for (int a = 0; a < as->naggs; a++)
		{
			GpuAggSupport *g = &as->aggs[a];

			ap->agg[a].fn = g->fn;
			ap->agg[a].expr = g->expr;
			ap->agg[a].scale = g->scale;
			ap->agg[a].col = g->attno[0] > 0 ? g->attno[0] - 1 : 0;
			ap->agg[a].col2 = g->attno[1] > 0 ? g->attno[1] - 1 : 0;
			ap->agg[a].col3 = g->attno[2] > 0 ? g->attno[2] - 1 : 0;
			/* integer arithmetic: its result's type (int_arith takes no other) */
			if (GH_AGG_E_IS_INT(g->expr))
				ap->agg[a].type = (uint8) gpuhash_qual_col_type(g->input_type);
		}
		if (as->naggs == 0)
			ap->agg[0].fn = GH_AGG_COUNT_STAR;
		if (as->join != NULL)
			gpuhash_agg_join_compile(as, ap);
		if (as->why_cpu == NULL && gh_agg_prog_check(s, ap) != GH_OK)
			cpu_only(as, pstrdup(gh_last_error()));
		as->aprog = ap;
	}

	/* where it folds */
	as->device = gpuhash_exec_device();
	as->use_service = gpuhash_service_ready();
	as->gpu_ordinal = GH_AGG_HOST;
	if (as->device == GH_DEVICE_GPU && !as->use_service)
		as->gpu_ordinal = gpuhash_local_gpu(gh_gpu_count());
	if (as->gpu_ordinal < 0)
		as->gpu_ordinal = GH_AGG_HOST;

	/* the set's bound: work_mem x hash_mem_multiplier, as HashAggregate's */
	per_group = sizeof(uint64) * (as->aprog ? gh_agg_key_words(as->aprog) : 1) + 1 +
		sizeof(gh_agg_state) * Max(as->naggs, 1);
	as->max_groups = Max(get_hash_memory_limit() / per_group, GH_PAGE_MAX_TUPLES);

	/*
	 * Requests: as many pages as a batch of the join pins, or the service
	 * takes, copied or (more) read in place; the arrays for the larger.
	 */
	cap = cap_in_place = as->os->max_pins;
	if (as->use_service && as->why_cpu == NULL)
	{
		uint32		svc = gpuhash_service_agg_capacity(Max(as->naggs, 1),
													   gh_agg_key_words(as->aprog), false),
					svc_ip = gpuhash_service_agg_capacity(Max(as->naggs, 1),
														  gh_agg_key_words(as->aprog), true);

		if (svc > 0)
			cap = Min(cap, svc);
		cap_in_place = svc_ip > 0 ? Max(cap, Min(cap_in_place, svc_ip)) : cap;
	}
	else
		cap_in_place = cap;
	fold_caps_in_budget(as, &cap, &cap_in_place);
	as->cap_pages = cap;
	as->cap_pages_in_place = cap_in_place;
	for (int r = 0; r < GPUAGG_PIPELINE; r++)
	{
		GpuAggReq  *q = &as->req[r];

		gpuhash_page_req_alloc(&q->r, cap, cap_in_place,
							   (Size) GH_PAGE_MAX_TUPLES * cap_in_place, false);
		q->pins = palloc(sizeof(Buffer) * cap_in_place);
	}
	as->vals = palloc(sizeof(Datum) * 3);
	as->nulls = palloc(sizeof(bool) * 3);
	if (as->aprog != NULL && gh_agg_groups_init(&as->groups, as->aprog, as->max_groups) != GH_OK)
		elog(ERROR, "gpuhash: %s", gh_last_error());
	if (as->join != NULL)
	{
		if (as->join->ndims > 1)
			gpuhash_agg_star_cpu_init(as, cscan);
		else
			gpuhash_agg_join_cpu_init(as, cscan);
	}
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = cleanup_callback;
	cb->arg = as;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
}

/* The set collected so far goes out as rows (agg_exec.c); a new one starts. */
void
gpuhash_agg_spill(GpuPreAggState *as)
{
	gh_agg_groups *g = palloc(sizeof(gh_agg_groups));

	*g = as->groups;
	as->pending = lappend(as->pending, g);
	if (gh_agg_groups_init(&as->groups, as->aprog, as->max_groups) != GH_OK)
		elog(ERROR, "gpuhash: %s", gh_last_error());
}

/*
 * src's groups into dst, which goes out as rows first (a spill: the groups
 * it holds are handed up, as the set's are) when the two would not fit.
 */
static void
merge_into(GpuPreAggState *as, gh_agg_groups *dst, const gh_agg_groups *src)
{
	gh_status	st = gh_agg_merge(dst, src, as->pp.prog.scan, as->aprog);

	if (st == GH_ERR_OUTPUT_FULL && dst->n_groups > 0)
	{
		gh_agg_groups *g = palloc(sizeof(gh_agg_groups));

		as->spills++;
		*g = *dst;
		as->pending = lappend(as->pending, g);
		if (gh_agg_groups_init(dst, as->aprog, as->max_groups) != GH_OK)
			elog(ERROR, "gpuhash: %s", gh_last_error());
		st = gh_agg_merge(dst, src, as->pp.prog.scan, as->aprog);
	}
	if (st != GH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: merging aggregate groups failed: %s", gh_last_error())));
}

/*
 * The levels above the set merged down while the top one holds at least
 * half the groups of the one below it (all of them: the scan's end).
 */
static void
collapse(GpuPreAggState *as, bool all)
{
	while (as->levels != NIL)
	{
		int			n = list_length(as->levels);
		gh_agg_groups *top = llast(as->levels);
		gh_agg_groups *below = n >= 2 ? list_nth(as->levels, n - 2) : &as->groups;

		if (!all && top->n_groups * 2 < below->n_groups)
			break;
		merge_into(as, below, top);
		gh_agg_groups_free(top);
		as->levels = list_delete_last(as->levels);
	}
}

/*
 * A request's groups into the set.  A merge copies both sides into a new
 * sorted set (gh_agg_merge), so merging every answer straight into a large
 * set would copy the whole set once a request: a participant with many
 * groups would pay for each of them once per request.  Answers stack up as
 * levels instead, each merged down only once it holds half the groups of
 * the level below it (a binary counter's carries), which copies a group
 * about log2(requests) times.
 */
static void
merge_answer(GpuPreAggState *as, gh_agg_groups *ans)
{
	gh_agg_groups *g = palloc(sizeof(gh_agg_groups));

	if (gh_agg_groups_init(g, as->aprog, as->max_groups) != GH_OK)
		elog(ERROR, "gpuhash: %s", gh_last_error());
	as->levels = lappend(as->levels, g);
	merge_into(as, g, ans);
	collapse(as, false);
}

/* Every level merged into the set (the scan's end). */
void
gpuhash_agg_flush(GpuPreAggState *as)
{
	collapse(as, true);
}

/* Does a request's answer hold a value the core could not keep exactly? */
static bool
has_fallback(const gh_agg_groups *g)
{
	if (g->fallback_groups == 0)
		return false;
	for (uint64 i = 0; i < g->n_groups * g->naggs; i++)
		if (g->states[i].flags & GH_AGG_S_FALLBACK)
			return true;
	return false;
}

/*
 * A request's answer (for its pages p .. p + n - 1) into the set; an answer
 * with a value the core could not hold exactly (GH_AGG_S_FALLBACK) is
 * dropped whole and its pages go the CPU's way instead.
 */
static void
accept_answer(GpuPreAggState *as, GpuAggReq *q, int p, int n, gh_agg_groups *ans,
			  const gh_agg_stats *stats)
{
	if (has_fallback(ans))
	{
		memset(q->r.refused + p, 1, n);
		return;
	}
	merge_answer(as, ans);
	as->rows_folded += stats->passed;
	as->gpu_ms += stats->kernel_ms + stats->copy_ms;
}

/* Folds n pages of q from page p in this backend into a set of their own. */
static gh_status
fold_here(GpuPreAggState *as, GpuAggReq *q, int p, int n, int device, gh_agg_groups *ans,
		  gh_agg_stats *stats)
{
	gh_status	st;

	memset(stats, 0, sizeof(*stats));
	st = gh_agg_groups_init(ans, as->aprog, as->max_groups);
	if (st != GH_OK)
		return st;
	/* over a join: the dimension built in this backend, on its device */
	if (as->join != NULL)
	{
		const uint8 *data = q->r.in_place ? (const uint8 *) BufferBlocks : q->r.local_pages;
		size_t		bytes = q->r.in_place ? (size_t) NBuffers * BLCKSZ :
			(size_t) q->r.n_pages * GH_PAGE_SIZE;

		if (as->join->dim == NULL)
			return GH_ERR_INVALID;
		return gh_page_agg_join_mapped(gh_agg_dim_device(as->join->dim), as->pp.prog.scan,
									   as->aprog, as->join->dim, q->r.refs + p, (uint32) n,
									   data, bytes, q->r.visible, q->r.n_visible,
									   q->r.refused + p, ans, stats);
	}
	/* in place: the pages are still pinned where the refs name them */
	if (q->r.in_place)
		return gh_page_agg_mapped(device, as->pp.prog.scan, as->aprog, q->r.refs + p, (uint32) n,
								  (const uint8 *) BufferBlocks, (size_t) NBuffers * BLCKSZ,
								  q->r.visible, q->r.n_visible, q->r.refused + p, ans, stats);
	return gh_page_agg(device, as->pp.prog.scan, as->aprog, q->r.refs + p, (uint32) n,
					   q->r.local_pages, (size_t) q->r.n_pages * GH_PAGE_SIZE, q->r.visible,
					   q->r.n_visible, q->r.refused + p, ans, stats);
}

/* fold_here, then its answer into the set; the core's status. */
static gh_status
fold_accept(GpuPreAggState *as, GpuAggReq *q, int p, int n, int device)
{
	gh_agg_groups ans;
	gh_agg_stats stats;
	gh_status	st;

	memset(&ans, 0, sizeof(ans));
	PG_TRY();
	{
		st = fold_here(as, q, p, n, device, &ans, &stats);
		if (st == GH_OK)
			accept_answer(as, q, p, n, &ans, &stats);
	}
	PG_FINALLY();
	{
		gh_agg_groups_free(&ans);
	}
	PG_END_TRY();
	return st;
}

/*
 * Folds q's pages from p0 in this backend (the host twin, or this
 * backend's GPU and the host twin if that fails); a request with more
 * groups than the bound alone page by page.  A page that cannot be folded
 * is refused.
 */
static void
fold_local(GpuPreAggState *as, GpuAggReq *q, int p0)
{
	int			device = as->gpu_ordinal;
	int			n = q->r.n_pages - p0;
	gh_status	st;

	if (n <= 0)
		return;
	st = fold_accept(as, q, p0, n, device);
	if (st != GH_OK && st != GH_ERR_OUTPUT_FULL && device != GH_AGG_HOST)
	{
		elog(DEBUG1, "gpuhash: GPU aggregate request on the host twin: %s", gh_last_error());
		device = GH_AGG_HOST;
		st = fold_accept(as, q, p0, n, device);
	}
	if (st == GH_OK)
		return;
	if (st != GH_ERR_OUTPUT_FULL)
	{
		elog(DEBUG1, "gpuhash: aggregate request left to the CPU: %s", gh_last_error());
		memset(q->r.refused + p0, 1, n);
		return;
	}
	for (int p = p0; p < q->r.n_pages; p++)
	{
		if (fold_accept(as, q, p, 1, device) != GH_OK)
			q->r.refused[p] = 1;
	}
}

/* Reads the next pages into q and, with the service, sends them. */
static void
fill(GpuPreAggState *as, GpuAggReq *q)
{
	GpuHeapScan *os = as->os;
	instr_time	t0;
	uint64		set_id;

	INSTR_TIME_SET_CURRENT(t0);
	/* before the first block is taken: the resident set (agg_resident.c) */
	set_id = gpuhash_agg_resident_start(as);
	gpuhash_heap_scan_start(os);
	q->r.pages = q->r.local_pages;

	/*
	 * The service reads the pages where they lie, when it mapped the buffer
	 * pool, as the join's page requests (page_scan.c): nothing is copied,
	 * the pins held until the request's refused pages are read.  A
	 * temporary table's local buffers are this backend's alone.
	 */
	gpuhash_page_req_reset(&q->r, as->use_service && as->why_cpu == NULL &&
						   gpuhash_page_in_place && as->gpu_ordinal == GH_AGG_HOST &&
						   !RelationUsesLocalBuffers(os->rel) && gpuhash_service_pages_in_place(),
						   as->cap_pages, as->cap_pages_in_place, 0);
	q->n_pins = 0;
	q->in_flight = q->answered = false;
	q->next_page = q->next_item = 0;
	gpuhash_page_read(os, &as->pp, &q->r, q->pins, &q->n_pins);
	if (q->r.n_pages > 0 && as->why_cpu == NULL && as->use_service &&
		(as->join == NULL || as->join->dim_id != 0) &&
		(set_id != 0 ?
		 gpuhash_svc_agg_submit_set(as->pp.prog.scan, as->aprog, &q->r, as->device,
									as->max_groups, &q->r.ticket,
									as->join != NULL ? as->join->dim_id : 0, set_id) :
		 gpuhash_svc_agg_submit(as->pp.prog.scan, as->aprog, &q->r, as->device, as->max_groups,
								&q->r.ticket, as->join != NULL ? as->join->dim_id : 0)))
		q->in_flight = true;
	if (q->r.n_pages > 0 && as->why_cpu == NULL)
		as->pp.requests++;
	as->pp.page_ms += gpuhash_ms_since(t0);
}

/* q's answer: its groups in the set, its refused pages marked. */
static void
answer(GpuPreAggState *as, GpuAggReq *q)
{
	q->answered = true;
	if (as->why_cpu != NULL)
	{
		/*
		 * every page to the CPU (a later batch's dimension not built, say):
		 * the resident set, if any, is no longer every group's whole
		 */
		memset(q->r.refused, 1, q->r.n_pages);
		gpuhash_agg_resident_answered(as, q, 0, 0);
		return;
	}
	if (q->in_flight)
	{
		gh_agg_groups ans;
		gh_agg_stats stats;
		gh_status	st;
		int			folded = 0;

		memset(&ans, 0, sizeof(ans));
		ans.naggs = as->aprog->naggs;
		ans.max_groups = as->max_groups;
		memset(&stats, 0, sizeof(stats));
		q->in_flight = false;
		st = gpuhash_svc_agg_wait(&q->r.ticket, &q->r, as->aprog, &ans, &stats, &folded);
		if (st == GH_OK)
		{
			PG_TRY();
			{
				accept_answer(as, q, 0, folded, &ans, &stats);
			}
			PG_FINALLY();
			{
				gh_agg_groups_free(&ans);
			}
			PG_END_TRY();
			as->in_service++;
			as->pp.pages_stored += stats.stored;
			as->pp.pages_filled += stats.filled;
			gpuhash_agg_resident_answered(as, q, folded, ans.n_groups);
			/* the pages whose groups did not fit the answer */
			fold_local(as, q, folded);
			return;
		}
		gh_agg_groups_free(&ans);
		/* the service could not (its bound, a failure): the pages are still here */
		elog(DEBUG1, "gpuhash: aggregate request folded in-process: %s", gh_last_error());
	}
	gpuhash_agg_resident_answered(as, q, 0, 0);
	fold_local(as, q, 0);
}

/*
 * The next request answered, its groups folded in: true; false when the
 * scan has ended and no request is left.  With the service, up to
 * GPUAGG_PIPELINE requests are in flight while the backend reads pages.
 */
bool
gpuhash_agg_advance(GpuPreAggState *as)
{
	GpuAggReq  *q;

	for (int i = 0; i < GPUAGG_PIPELINE; i++)
	{
		q = &as->req[as->next_fill];
		if (as->os->done || q->r.n_pages > 0)
			break;
		fill(as, q);
		if (q->r.n_pages == 0)
			break;
		as->next_fill = (as->next_fill + 1) % GPUAGG_PIPELINE;
		/* in-process: one read, one fold */
		if (!q->in_flight)
			break;
	}
	q = &as->req[as->next_answer];
	if (q->r.n_pages == 0)
		return false;
	as->next_answer = (as->next_answer + 1) % GPUAGG_PIPELINE;
	answer(as, q);
	as->reading = q;
	return true;
}

/* A request's refused pages are read: its pins go, it may be filled again. */
void
gpuhash_agg_release_req(GpuPreAggState *as, GpuAggReq *q)
{
	if (q->in_flight || q->r.ticket.slot >= 0)
		gpuhash_svc_probe_abandon(&q->r.ticket);
	q->in_flight = false;
	for (int i = 0; i < q->n_pins; i++)
		ReleaseBuffer(q->pins[i]);
	q->n_pins = 0;
	q->r.n_pages = 0;
	q->r.n_visible = 0;
	q->answered = false;
	q->next_page = q->next_item = 0;
	if (as->reading == q)
		as->reading = NULL;
}

/* Every request given up and emptied, the pipeline at its start. */
static void
release_requests(GpuPreAggState *as)
{
	for (int r = 0; r < GPUAGG_PIPELINE; r++)
		gpuhash_agg_release_req(as, &as->req[r]);
	as->next_fill = as->next_answer = 0;
	as->reading = NULL;
}

/*
 * The outer pages walked again from the first, the groups kept: the next
 * pass of an inner side in batches (agg_join_batches.c).  Nothing is in
 * flight once gpuhash_agg_advance has said the walk is over.
 */
void
gpuhash_agg_restart_walk(GpuPreAggState *as)
{
	release_requests(as);
	gpuhash_heap_scan_walk_again(as->os);
}

/* Everything in flight given up, every set emptied (a rescan, the end). */
void
gpuhash_agg_reset(GpuPreAggState *as)
{
	release_requests(as);
	free_sets(as);
	as->out_pos = 0;
	if (as->aprog != NULL && gh_agg_groups_init(&as->groups, as->aprog, as->max_groups) != GH_OK)
		elog(ERROR, "gpuhash: %s", gh_last_error());
}
