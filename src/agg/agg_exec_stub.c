/*
 * agg_exec_stub.c
 *		TEMPORARY (i55p): stands in for agg_exec.c's
 *		gpuhash_preagg_create_state until the executor lands, so that plain
 *		EXPLAIN (which initializes the plan) shows GpuPreAgg plans; running
 *		one is an error.  Weak, so the real one wins where both are linked.
 *		Delete with the merge.
 */
#include "postgres.h"

#include "agg_plan.h"

#include "executor/executor.h"
#include "nodes/execnodes.h"

static void
stub_begin(CustomScanState *node, EState *estate, int eflags)
{
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("GpuPreAgg executor not built")));
}

static TupleTableSlot *
stub_exec(CustomScanState *node)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("GpuPreAgg executor not built")));
	return NULL;
}

static void
stub_end(CustomScanState *node)
{
}

static void
stub_rescan(CustomScanState *node)
{
}

static CustomExecMethods stub_methods = {
	.CustomName = "GpuPreAgg",
	.BeginCustomScan = stub_begin,
	.ExecCustomScan = stub_exec,
	.EndCustomScan = stub_end,
	.ReScanCustomScan = stub_rescan,
};

__attribute__((weak)) Node *
gpuhash_preagg_create_state(CustomScan *cscan)
{
	CustomScanState *css = makeNode(CustomScanState);

	css->methods = &stub_methods;
	return (Node *) css;
}
