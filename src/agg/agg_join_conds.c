/*-------------------------------------------------------------------------
 *
 * agg_join_conds.c
 *	  GpuPreAgg over an inner join: an aggregate's CASE condition that reads
 *	  the inner side alone (CASE WHEN p_type LIKE 'PROMO%' THEN ...) is
 *	  evaluated once per inner row on the CPU, by PostgreSQL's own
 *	  expression, into a bool column of the dimension; the walker's condition
 *	  program then reads that column.  The columns only such conditions read
 *	  are no longer shipped: a by-reference column costs a dimension value
 *	  (16 bytes) and its data in the heap for every inner row, the bool only
 *	  the value, and the dimension's build is paid per byte shipped
 *	  (agg_costs.c).
 *
 * Taken only where it is exact and no dearer: the condition reads no
 * column of the walked relation and its GPU program holds no arithmetic
 * (comparisons, IN, LIKE, NULL and boolean tests cannot raise an error, so
 * evaluating it for inner rows that join nothing raises none PostgreSQL
 * would not), and the dimension does not grow by more columns than it
 * loses.  The CPU's join of refused pages still evaluates the whole CASE
 * from the inner row, as before.
 *
 *-------------------------------------------------------------------------
 */
#include "agg_join.h"
#include "agg_qual.h"

#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/ruleutils.h"

typedef struct GpuAggInnerCond
{
	Expr	   *cond;			/* the plan's condition */
	int			agg;			/* of aggregate agg */
	int			col;			/* its bool column of the dimension */
	ExprState  *state;			/* over the inner row (INNER_VAR) */
} GpuAggInnerCond;

/* A synthetic column: varno 0 (no range table entry), varattno the cond. */
#define COND_VARNO 0

/* Var v's column of the dimension, or -1 (as agg_join_compile.c finds it). */
static int
col_of(GpuAggJoin *j, const Var *v)
{
	for (int c = 0; c < j->ncols; c++)
		if (j->cols[c].varno == v->varno && j->cols[c].varattno == v->varattno)
			return c;
	return -1;
}

/* The columns of a compile: the dimension's (as agg_join_compile.c's). */
static int
cond_dim_col(const Var *v, void *arg, gh_col_type *type)
{
	GpuAggJoin *j = arg;
	int			c = col_of(j, v);

	if (c < 0 || c >= GH_AGG_MAX_INNER)
		return -1;
	*type = j->cols[c].gtype;
	return GH_AGG_INNER_COL0 + c;
}

/* Can cond go to the CPU once per inner row (the file's comment)? */
static bool
cond_precomputable(GpuPreAggState *as, Expr *cond, Index scanrelid)
{
	GpuAggJoin *j = as->join;
	gh_page_scan *s = as->pp.prog.scan;
	gh_qinsn	insn[GH_AGG_MAX_INSNS];
	int16_t		n = 0;
	uint32		pool0 = s->pool_bytes;
	bool		ok;
	ListCell   *lc;

	foreach(lc, pull_var_clause((Node *) cond, PVC_RECURSE_AGGREGATES |
								PVC_RECURSE_PLACEHOLDERS))
	{
		Var		   *v = lfirst(lc);

		if (v->varno == scanrelid || v->varlevelsup != 0 || col_of(j, v) < 0)
			return false;
	}
	if (contain_volatile_functions((Node *) cond))
		return false;

	/* what the GPU would run; its constants taken back out of the pool */
	ok = gpuhash_qual_compile_into(s, as->os->desc, scanrelid, list_make1(cond),
								   cond_dim_col, j, insn, &n, GH_AGG_MAX_INSNS);
	s->pool_bytes = pool0;
	for (int i = 0; ok && i < n; i++)
		if (insn[i].op == GH_Q_ADD || insn[i].op == GH_Q_SUB || insn[i].op == GH_Q_MUL)
			ok = false;
	return ok;
}

/*
 * The condition over the inner row: each of its Vars (all the dimension's
 * columns) as an INNER_VAR of the inner plan's output.
 */
static Node *
inner_form(Node *node, GpuAggJoin *j)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = copyObject((Var *) node);
		int			c = col_of(j, v);

		if (c < 0 || j->cols[c].tlpos <= 0)
			elog(ERROR, "gpuhash: an inner condition reads column %d of %u, not in the dimension",
				 v->varattno, v->varno);
		v->varno = INNER_VAR;
		v->varattno = j->cols[c].tlpos;
		return (Node *) v;
	}
	return expression_tree_mutator(node, inner_form, j);
}

/* node with the precomputed conditions taken out (a Const in each place) */
static Node *
strip_conds(Node *node, GpuAggJoin *j)
{
	if (node == NULL)
		return NULL;
	for (int i = 0; i < j->nconds; i++)
		if (equal(node, j->conds[i].cond))
			return (Node *) makeBoolConst(true, false);
	return expression_tree_mutator(node, strip_conds, j);
}

static bool
reads_col(Node *node, const GpuAggInnerCol *c)
{
	ListCell   *lc;

	foreach(lc, pull_var_clause(node, PVC_RECURSE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS))
	{
		Var		   *v = lfirst(lc);

		if (v->varno == c->varno && v->varattno == c->varattno && v->varlevelsup == 0)
			return true;
	}
	return false;
}

/*
 * Decides the conditions precomputed and rebuilds the dimension's columns:
 * those something else still reads, then one bool per condition.  Called
 * by gpuhash_agg_join_compile before it maps the inner columns.
 */
void
gpuhash_agg_join_conds_plan(GpuPreAggState *as)
{
	GpuAggJoin *j = as->join;
	CustomScan *cscan = (CustomScan *) as->css.ss.ps.plan;
	Index		scanrelid = cscan->scan.scanrelid;
	Node	   *rest;
	GpuAggInnerCol *cols;
	int			ncols = 0;

	j->nconds = 0;
	j->conds = palloc0(sizeof(GpuAggInnerCond) * Max(as->naggs, 1));
	for (int a = 0; a < as->naggs; a++)
	{
		Expr	   *cond = as->aggs[a].cond;

		if (cond != NULL && cond_precomputable(as, cond, scanrelid))
		{
			j->conds[j->nconds].cond = cond;
			j->conds[j->nconds].agg = a;
			j->nconds++;
		}
	}
	if (j->nconds == 0)
		return;

	/* what the node reads besides them: the target list and join clauses */
	rest = strip_conds((Node *) list_make2(cscan->custom_scan_tlist, j->join_quals), j);
	cols = palloc(sizeof(GpuAggInnerCol) * (j->ncols + j->nconds));
	for (int c = 0; c < j->ncols; c++)
		if (reads_col(rest, &j->cols[c]))
			cols[ncols++] = j->cols[c];

	/* no dearer: not more columns than before */
	if (ncols + j->nconds > j->ncols)
	{
		pfree(cols);
		j->nconds = 0;
		return;
	}
	/* their ExprStates while the columns they read are still the dimension's */
	for (int i = 0; i < j->nconds; i++)
		j->conds[i].state = ExecInitExpr((Expr *) inner_form((Node *) j->conds[i].cond, j),
										 &as->css.ss.ps);
	for (int i = 0; i < j->nconds; i++)
	{
		GpuAggInnerCol *c = &cols[ncols];

		memset(c, 0, sizeof(*c));
		c->varno = COND_VARNO;
		c->varattno = (AttrNumber) i;
		c->type = BOOLOID;
		c->gtype = GH_T_BOOL;
		c->typlen = 1;
		c->byval = true;
		j->conds[i].col = ncols++;
	}
	j->cols = cols;
	j->ncols = ncols;
}

/*
 * Aggregate a's condition, where precomputed, as the program reading its
 * bool column; false where the qual compiler is to compile it.
 */
bool
gpuhash_agg_join_cond_insns(GpuAggJoin *j, int a, gh_agg_prog *ap)
{
	for (int i = 0; i < j->nconds; i++)
	{
		gh_qinsn   *in;

		if (j->conds[i].agg != a)
			continue;
		if (ap->ninsns >= GH_AGG_MAX_INSNS)
			return false;
		in = &ap->insn[ap->ninsns++];
		memset(in, 0, sizeof(*in));
		in->op = GH_Q_COL;
		in->b = GH_T_BOOL;
		in->a = (uint32) (GH_AGG_INNER_COL0 + j->conds[i].col);
		return true;
	}
	return false;
}

/*
 * Column c's value for the inner row in j->row_slot, where c is a
 * precomputed condition: 1 where it is TRUE, else 0 (the CASE's ELSE).
 * False where c is a plain column.
 */
bool
gpuhash_agg_join_cond_value(GpuPreAggState *as, int c, gh_agg_inval *out)
{
	GpuAggJoin *j = as->join;
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	MemoryContext old;
	bool		isnull;
	Datum		d;

	if (j->cols[c].varno != COND_VARNO)
		return false;
	memset(out, 0, sizeof(*out));
	econtext->ecxt_innertuple = j->row_slot;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	d = ExecEvalExpr(j->conds[j->cols[c].varattno].state, econtext, &isnull);
	MemoryContextSwitchTo(old);
	out->bits = (!isnull && DatumGetBool(d)) ? 1 : 0;
	ResetExprContext(econtext);
	return true;
}

/* EXPLAIN ANALYZE: the build's parts, by mechanism (agg_costs.c's terms). */
void
gpuhash_agg_join_explain_build(GpuPreAggState *as, ExplainState *es)
{
	GpuAggJoin *j = as->join;

	ExplainPropertyUInteger("Dimension Shipped Bytes", NULL, j->ship_bytes, es);
	if (!es->timing)
		return;
	ExplainPropertyFloat("Inner Collect Time", "ms", j->collect_ms, 3, es);
	ExplainPropertyFloat("Dimension Values Time", "ms", j->values_ms, 3, es);
	ExplainPropertyFloat("Dimension Ship Time", "ms", j->ship_ms, 3, es);
	ExplainPropertyFloat("Dimension Service Time", "ms", j->service_ms, 3, es);
}

/* EXPLAIN: the conditions evaluated per inner row on the CPU. */
void
gpuhash_agg_join_conds_explain(GpuPreAggState *as, List *context, bool useprefix,
							   ExplainState *es)
{
	GpuAggJoin *j = as->join;
	List	   *l = NIL;

	for (int i = 0; i < j->nconds; i++)
		l = lappend(l, j->conds[i].cond);
	if (l != NIL)
		ExplainPropertyText("Inner Conditions On CPU",
							deparse_expression((Node *) make_ands_explicit(l), context,
											   useprefix, false), es);
}
