/*
 * agg_exec_stub.c
 *		TEMPORARY (i55p): stands in for agg_exec.c's
 *		gpuhash_preagg_create_state until the executor lands, so that plain
 *		EXPLAIN (which initializes the plan) shows GpuPreAgg plans; running
 *		one is an error.  A weak alias, so the real one wins where both are
 *		linked; while only this one is, gpuhash.gpu_aggregate defaults to
 *		off.  Delete with the merge (gpuhash.c's weak reference to
 *		gpuhash_preagg_stub_only then reads NULL: default on).
 */
#include "postgres.h"

#include "agg_plan.h"

#include "executor/executor.h"
#include "nodes/execnodes.h"

static void
stub_begin(CustomScanState *node, EState *estate, int eflags)
{
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

static Node *
stub_create_state(CustomScan *cscan)
{
	CustomScanState *css = makeNode(CustomScanState);

	css->methods = &stub_methods;
	return (Node *) css;
}

Node	   *gpuhash_preagg_create_state(CustomScan *cscan) __attribute__((weak, alias("stub_create_state")));

/*
 * Is this stub the executor linked?  gpuhash.gpu_aggregate is then off by
 * default (gpuhash.c), so that no query runs into it unless a test asks.
 */
bool		gpuhash_preagg_stub_only(void);

bool
gpuhash_preagg_stub_only(void)
{
	return gpuhash_preagg_create_state == stub_create_state;
}
