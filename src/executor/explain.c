/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  EXPLAIN output of a GpuHashJoin: join type, hash keys (exact or
 *	  fingerprints), join filter, scheme and device; with
 *	  ANALYZE also the inner rows, distinct keys, batches and the build,
 *	  probe and transfer milliseconds (times only with TIMING on).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "scan/page_scan.h"

#include "commands/explain.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

/*
 * A qual list, and with ANALYZE the rows it removed (nfiltered: the
 * instrumentation counter the executor counts them in), as EXPLAIN shows them.
 */
static void
show_quals(CustomScanState *node, List *quals, const char *label, double nfiltered,
		   List *context, bool useprefix, ExplainState *es)
{
	Instrumentation *instr = node->ss.ps.instrument;

	if (quals == NIL)
		return;
	ExplainPropertyText(label, deparse_expression((Node *) make_ands_explicit(quals), context,
												  useprefix, false), es);
	if (!es->analyze || instr == NULL || instr->nloops <= 0)
		return;
	ExplainPropertyFloat(psprintf("Rows Removed by %s", label), NULL,
						 nfiltered / instr->nloops, 0, es);
}

/*
 * An absorbed scan: "Outer Scan: lineitem", its quals as "Outer Filter" and,
 * with ANALYZE, the rows they removed (filtered >= 0).
 */
static void
show_absorbed_scan(GpuJoinState *gs, SeqScan *scan, GpuHeapScan *hs, bool outer, int64 filtered,
				   List *ancestors, bool useprefix, ExplainState *es)
{
	Index		rti = scan->scan.scanrelid;
	char	   *relname = get_rel_name(rt_fetch(rti, es->rtable)->relid);
	char	   *refname = list_nth(es->rtable_names, rti - 1);
	const char *side = outer ? "Outer" : "Inner";
	List	   *scan_cxt = set_deparse_context_plan(es->deparse_cxt, &scan->scan.plan, ancestors);

	ExplainPropertyText(psprintf("%s%s Scan", scan->scan.plan.parallel_aware ? "Parallel " : "",
								 side),
						refname && strcmp(refname, relname) != 0 ?
						psprintf("%s %s", relname, refname) : relname, es);
	if (scan->scan.plan.qual != NIL)
	{
		ExplainPropertyText(psprintf("%s Filter", side),
							deparse_expression((Node *) make_ands_explicit(scan->scan.plan.qual),
											   scan_cxt, useprefix, false), es);
		/* VERBOSE: how many of its clauses are read from the page (scan_filter.c) */
		if (es->verbose && hs != NULL)
			ExplainPropertyText(psprintf("%s Filter In Place", side),
								psprintf("%d of %d clauses", gpuhash_scan_filter_clauses(hs->filter),
										 list_length(scan->scan.plan.qual)), es);
		if (es->analyze && filtered >= 0)
			ExplainPropertyInteger(psprintf("Rows Removed by %s Filter", side), NULL, filtered, es);
	}
	/* the clauses the page walker runs (page_scan.c), and its pages */
	if (outer)
		gpuhash_page_explain(gs, es, scan_cxt, useprefix);
	else
		gpuhash_page_inner_explain(gs, es, scan_cxt, useprefix);
}

/*
 * Why gpuhash.scheme = auto chose the scheme: the planner's estimates and
 * each scheme's estimated build + probe time for them, cheapest first.
 */
static void
show_scheme_choice(const GpuJoinPlanInfo *info, ExplainState *es)
{
	gh_scheme_estimate est[GH_N_SCHEMES];
	int			n = gh_scheme_estimates(info->est_rows, info->est_distinct,
										info->est_probes, est);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "auto, for %.0f inner rows, %.0f distinct keys, %.0f probes:",
					 info->est_rows, info->est_distinct, info->est_probes);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s %s %.3f ms", i > 0 ? "," : "",
						 gh_scheme_name(est[i].scheme), est[i].build_ms + est[i].probe_ms);
	ExplainPropertyText("Scheme Choice", buf.data, es);
}

/*
 * VERBOSE: where Table Time went.  Keys shipped: sending them to the GPU
 * service (on a GPU they go on to the device as they come); built: the
 * build there (or here); then the keys' copies to the device, wherever they
 * fell, and the build's sort and scheme construction.  The rest of Table
 * Time is the service's handling of the requests.
 */
static void
show_table_parts(const GpuTableTimes *tt, bool in_service, ExplainState *es)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (in_service)
		appendStringInfo(&buf, "keys shipped %.3f ms, ", tt->ship_ms);
	appendStringInfo(&buf, "built %.3f ms; keys to device %.3f ms, sort %.3f ms, hash %.3f ms",
					 tt->build_ms, tt->copy_ms, tt->sort_ms, tt->hash_ms);
	ExplainPropertyText("Table Time Parts", buf.data, es);
}

/*
 * Where the requests the node waited for went (EXPLAIN ANALYZE VERBOSE):
 * handed over until the service's main thread took them, until a worker
 * thread did, served, and from each answer until the node saw it.  The
 * rest of Probe Wait Time is the node's own (a chain's read-ahead runs
 * within it, timed as read).
 */
static void
show_service_waits(const GpuSvcTimes *t, ExplainState *es)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, UINT64_FORMAT " requests: queued %.3f ms, to a thread %.3f ms, "
					 "served %.3f ms, answer seen %.3f ms",
					 t->requests, t->queue_ms, t->thread_ms, t->serve_ms, t->seen_ms);
	ExplainPropertyText("Service Waits", buf.data, es);
}

void
gpuhash_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GpuJoinState *gs = (GpuJoinState *) node;
	GpuJoinStats *st = &gs->stats;
	GpuJoinPlanInfo info;
	List	   *context;
	StringInfoData buf;
	int			nkeys;
	int			device;
	bool		useprefix;

	gpuhash_deform_private(cscan->custom_private, &info);
	nkeys = info.nkeys;
	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	/* a join names columns of several tables: qualify them, as EXPLAIN does */
	useprefix = list_length(es->rtable) > 1 || es->verbose;

	ExplainPropertyText("Join Type", gpuhash_jointype_name(info.jointype), es);

	initStringInfo(&buf);
	{
		List	   *outer_keys = gpuhash_plan_exprs(cscan->custom_exprs, &info, GPE_OUTER_KEYS);
		List	   *inner_keys = gpuhash_plan_exprs(cscan->custom_exprs, &info, GPE_INNER_KEYS);

		for (int i = 0; i < nkeys; i++)
			appendStringInfo(&buf, "%s(%s = %s)", i > 0 ? " AND " : "",
							 deparse_expression(list_nth(outer_keys, i), context, useprefix, false),
							 deparse_expression(list_nth(inner_keys, i), context, useprefix, false));
	}
	ExplainPropertyText("Hash Keys", buf.data, es);
	/* fingerprints: the keys' own equality leads the join filter */
	if (info.fingerprint)
		ExplainPropertyText("Key Match", "fingerprint, rechecked", es);

	/* absorbed Seq Scans (heap_scan.c): their relations and quals */
	if (info.outer_scan)
		show_absorbed_scan(gs, linitial_node(SeqScan, cscan->custom_plans), gs->oscan, true,
						   st->built ? (int64) st->scan_filtered : -1, ancestors, useprefix, es);
	if (info.inner_scan)
		show_absorbed_scan(gs, lsecond_node(SeqScan, cscan->custom_plans), gs->iscan, false,
						   st->built ? (int64) st->inner_scan_filtered : -1, ancestors, useprefix, es);
	/* the deparse context is one object: back to the join */
	if (info.outer_scan || info.inner_scan)
		context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);

	/* executor.c counts the join filter's rejects in nfiltered2, the filter's in 1 */
	show_quals(node, gpuhash_plan_exprs(cscan->custom_exprs, &info, GPE_JOIN_QUAL), "Join Filter",
			   node->ss.ps.instrument ? node->ss.ps.instrument->nfiltered2 : 0,
			   context, useprefix, es);
	show_quals(node, gpuhash_plan_exprs(cscan->custom_exprs, &info, GPE_FILTER), "Filter",
			   node->ss.ps.instrument ? node->ss.ps.instrument->nfiltered1 : 0,
			   context, useprefix, es);
	/* as a gating Result shows its pseudoconstant quals */
	if (info.n_gate > 0)
		ExplainPropertyText("One-Time Filter",
							deparse_expression((Node *) make_ands_explicit(gpuhash_plan_exprs(cscan->custom_exprs, &info, GPE_GATE)),
											   context, useprefix, false),
							es);
	ExplainPropertyText("Scheme", gh_scheme_name((gh_scheme) (gs->built ? gs->scheme : gs->info.scheme)), es);
	if (es->verbose && info.scheme_auto)
		show_scheme_choice(&info, es);

	/* the device that ran, or the one a run would use now */
	if (st->built)
		device = st->device;
	else
	{
		device = gpuhash_effective_device(NULL) == GPUHASH_RUN_GPU ?
			GH_DEVICE_GPU : GH_DEVICE_HOST;
	}
	ExplainPropertyText("Device", gh_device_name((gh_device) device), es);
	/* a stack of GPU joins probed together (chain.c) */
	gpuhash_chain_explain(gs, es);

	if (!es->analyze || !st->built)
		return;
	ExplainPropertyText("Path", st->in_service ? "GPU service" : "in-process", es);
	ExplainPropertyUInteger("Inner Rows", NULL, st->inner_rows, es);
	ExplainPropertyUInteger("Distinct Keys", NULL, st->distinct_keys, es);
	ExplainPropertyUInteger("Probe Batches", NULL, st->batches, es);
	/* the pipeline (probe_pipeline.c): batches probed or in flight at each wait */
	if (st->batches > 0 && es->verbose)
		ExplainPropertyFloat("Batches In Flight", NULL,
							 (double) st->in_flight_sum / st->batches, 2, es);
	/* keys read on while another participant built the table (probe_pipeline.c) */
	if (st->prefilled > 0 && es->verbose)
		ExplainPropertyUInteger("Prefilled Batches", NULL, st->prefilled, es);
	/* batches over a staging chunk went to the service in pieces: say so */
	if (st->in_service && st->probe_requests > st->batches)
		ExplainPropertyUInteger("Probe Requests", NULL, st->probe_requests, es);
	/* as Hash shows them: work_mem batches, and the peak of the kept rows */
	ExplainPropertyInteger("Hash Batches", NULL, st->hash_batches, es);
	/* a parallel join split at run time: batches joined whole by one participant each */
	if (st->split_batches > 0)
		ExplainPropertyInteger("Shared Hash Batches", NULL, st->split_batches, es);
	/* partitioned by key: over several GPUs, or (tests) host twin parts */
	if (st->table_parts > 1)
		ExplainPropertyInteger("Table Parts", NULL, st->table_parts, es);
	ExplainPropertyUInteger("Memory Usage", "kB", (st->mem_peak + 1023) / 1024, es);
	if (st->outer_filtered > 0)
		ExplainPropertyUInteger("Outer Rows Filtered", NULL, st->outer_filtered, es);
	if (node->ss.ps.plan->parallel_aware)
		ExplainPropertyInteger("Shared Table Builds", NULL, st->builds, es);
	else if (st->builds > 1)
		ExplainPropertyInteger("Builds", NULL, st->builds, es);
	if (st->fallbacks > 0)
		ExplainPropertyInteger("GPU Fallbacks", NULL, st->fallbacks, es);
	if (info.outer_scan)
		ExplainPropertyUInteger("Outer Pages", NULL, st->scan_pages, es);
	if (es->timing)
	{
		ExplainPropertyFloat("Outer Read Time", "ms", st->read_ms, 3, es);
		/* of which heapam got the absorbed scan's pages (pins, visibility) */
		if (info.outer_scan)
			ExplainPropertyFloat("Outer Page Time", "ms", st->scan_page_ms, 3, es);
		ExplainPropertyFloat("Probe Wait Time", "ms", st->wait_ms, 3, es);
		if (es->verbose && st->svc.requests > 0)
			show_service_waits(&st->svc, es);
		ExplainPropertyFloat("Emit Time", "ms", st->emit_ms, 3, es);
		/* before the first probe: the inner rows read, the build, a parallel build's wait */
		ExplainPropertyFloat("Start Time", "ms", st->start_ms, 3, es);
		ExplainPropertyFloat("Inner Read Time", "ms", st->inner_read_ms, 3, es);
		ExplainPropertyFloat("Build Time", "ms", st->build_ms, 3, es);
		/* of which: the table (keys sent, built, in the service or here), the key filter */
		ExplainPropertyFloat("Table Time", "ms", st->table_ms, 3, es);
		if (es->verbose && st->table_ms > 0)
			show_table_parts(&st->table_parts_ms, st->in_service, es);
		if (st->filter_ms > 0)
			ExplainPropertyFloat("Key Filter Time", "ms", st->filter_ms, 3, es);
		/* a parallel build over all readers: its shares and layout, and its waits */
		if (st->share_ms > 0)
			ExplainPropertyFloat("Share Time", "ms", st->share_ms, 3, es);
		if (st->build_wait_ms > 0)
			ExplainPropertyFloat("Build Wait Time", "ms", st->build_wait_ms, 3, es);
		ExplainPropertyFloat("Probe Time", "ms", st->probe_ms, 3, es);
		/* a chain level's carried keys: made from its rows, sent (in Start Time) */
		if (st->carry_ms > 0)
			ExplainPropertyFloat("Carry Time", "ms", st->carry_ms, 3, es);
		/* a level of a fused chain: its part of the chain's probes */
		if (st->chain_ms > 0)
			ExplainPropertyFloat("Chain Level Time", "ms", st->chain_ms, 3, es);
		if (st->device == GH_DEVICE_GPU)
			ExplainPropertyFloat("Transfer Time", "ms", st->transfer_ms, 3, es);
	}
	if (st->device == GH_DEVICE_GPU)
		ExplainPropertyUInteger("GPU Memory", "kB", st->gpu_bytes / 1024, es);
}
