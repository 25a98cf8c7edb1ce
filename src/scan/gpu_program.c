/*-------------------------------------------------------------------------
 *
 * gpu_program.c
 *	  The page walker's scan program (cuda/gpuhash_page.h) for an absorbed
 *	  outer scan: the relation's column layout up to the last column needed,
 *	  the join's exact key columns, and the scan's quals the walker evaluates
 *	  exactly (gpu_qual.c compiles them); and the aggregate over a join's
 *	  join qual and conditions, compiled onto its aggregation program.
 *
 * Error behaviour: the walker takes a prefix of the plan's qual list, and a
 * later clause only while every clause before it that stays on the CPU
 * raises no error (its functions leakproof).  The clauses left run through
 * ExecQual in plan order.  If one of them may raise an error, or is
 * volatile, the walker returns every row that passes its clauses
 * (GH_PAGE_ALL_ROWS), so the CPU evaluates that clause on the rows a Seq
 * Scan would, not only on the joining ones.  One exception, for a join's
 * outer scan: a test against a hashed subplan ([NOT] IN over an
 * uncorrelated subquery) right after the walker's clauses.  Its subplan
 * runs once, when the first row reaches it, and may raise anything; its
 * test of each row then is a hash and an equality that raise nothing.  So
 * the walker hands back the joining rows only, and the CPU runs the
 * subplan (first_row_build) as soon as a request reports a row past the
 * walker's clauses, joining or not: the Seq Scan's first row would have.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "page_scan.h"
#include "gpu_qual_internal.h"

#include "access/tupdesc_details.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

static void page_program(GpuPageProgram *prog, TupleDesc desc, Index scanrelid, List *quals,
						 const AttrNumber *key_attno, const GpuKeyConv *conv, const int *width,
						 int nkeys, bool fill_outer, const AttrNumber *extra, int nextra,
						 bool subplan_once);

static bool
not_leakproof(Oid func_id, void *context)
{
	return !get_func_leakproof(func_id);
}

/*
 * May evaluating this clause raise an error, or do something, beyond
 * deciding the row?  A function not marked leakproof may; so may a
 * subplan, a domain check, an array coercion.
 */
static bool
may_raise_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, SubLink) ||
		IsA(node, CoerceToDomain) || IsA(node, ArrayCoerceExpr) || IsA(node, NextValueExpr))
		return true;
	if (check_functions_in_node(node, not_leakproof, context))
		return true;
	return expression_tree_walker(node, may_raise_walker, context);
}

static bool
may_raise(Node *clause)
{
	return may_raise_walker(clause, NULL) || contain_volatile_functions(clause);
}

/*
 * Hash functions of PostgreSQL's own that raise no error for any value
 * (not marked leakproof, as no hash function is): fixed-width values and
 * numeric's digits.  Text's may raise on its collation, so it is not here.
 */
static bool
hash_raises_nothing(Oid fn)
{
	switch (fn)
	{
		case F_HASHINT2:
		case F_HASHINT4:
		case F_HASHINT8:
		case F_HASHOID:
		case F_HASHCHAR:
		case F_HASHFLOAT4:
		case F_HASHFLOAT8:
		case F_HASHENUM:
		case F_HASH_NUMERIC:
		case F_TIME_HASH:
		case F_TIMESTAMP_HASH:
		case F_INTERVAL_HASH:
		case F_UUID_HASH:
			return true;
		default:
			return get_func_leakproof(fn);
	}
}

/*
 * Is clause "[NOT] (hashed SubPlan)" whose test of a row raises nothing:
 * an uncorrelated subplan read into a hash table once, each row's left
 * side hashed and compared by functions that raise no error?
 * nodeSubplan.c's ExecHashSubPlan builds the table before it looks at the
 * row, so evaluating the clause on any row runs the subplan.
 */
static bool
hashed_subplan_test(Node *clause)
{
	SubPlan    *sp;
	List	   *ops;
	ListCell   *lc;

	if (is_notclause(clause))
		clause = (Node *) get_notclausearg((Expr *) clause);
	if (!IsA(clause, SubPlan))
		return false;
	sp = (SubPlan *) clause;
	if (!sp->useHashTable || sp->parParam != NIL || sp->args != NIL || sp->testexpr == NULL ||
		may_raise(sp->testexpr))
		return false;
	/* one comparison, or an AND of them (ExecInitSubPlan's two forms) */
	if (is_andclause(sp->testexpr))
		ops = ((BoolExpr *) sp->testexpr)->args;
	else
		ops = list_make1(sp->testexpr);
	foreach(lc, ops)
	{
		RegProcedure lhs,
					rhs;

		if (!IsA(lfirst(lc), OpExpr) ||
			!get_op_hash_functions(((OpExpr *) lfirst(lc))->opno, &lhs, &rhs) ||
			!hash_raises_nothing(lhs))
			return false;
	}
	return true;
}

/* The column layout up to natts, with what a tuple that lacks a column has. */
static void
layout_columns(gh_page_scan *s, TupleDesc desc)
{
	for (int i = 0; i < s->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		gh_page_column *col = &s->col[i];

		col->attlen = att->attlen;
		col->attalign = att->attalign == TYPALIGN_DOUBLE ? 8 : att->attalign == TYPALIGN_INT ? 4 :
			att->attalign == TYPALIGN_SHORT ? 2 : 1;
		if (att->attisdropped)
			col->type = GH_T_SKIP;
		col->missing = GH_MISSING_NULL;
		col->missing_value = 0;
		if (col->type != GH_T_SKIP && att->atthasmissing && desc->constr &&
			desc->constr->missing && desc->constr->missing[i].am_present)
		{
			if (att->attbyval)
			{
				col->missing = GH_MISSING_VALUE;
				col->missing_value = (int64) desc->constr->missing[i].am_value;
			}
			else
				col->missing = GH_MISSING_REFUSE;
		}
	}
}

/*
 * The scan program of the quals of a scan of scanrelid (layout desc) whose
 * join keys are the plain columns key_attno[] (exact, GpuKeyConv each),
 * or prog->scan NULL with prog->why.  fill_outer: unmatched rows come out.
 */
void
gpuhash_page_program(GpuPageProgram *prog, TupleDesc desc, Index scanrelid, List *quals,
					 const AttrNumber *key_attno, const GpuKeyConv *conv, const int *width,
					 int nkeys, bool fill_outer)
{
	page_program(prog, desc, scanrelid, quals, key_attno, conv, width, nkeys, fill_outer,
				 NULL, 0, true);
}

/*
 * The same, with the columns extra[] (1-based) deformed as well though no
 * key reads them (the GPU aggregate's group columns and arguments, which
 * its own program names); prog->scan NULL if the walker cannot read one.
 */
void
gpuhash_page_program_cols(GpuPageProgram *prog, TupleDesc desc, Index scanrelid, List *quals,
						  const AttrNumber *key_attno, const GpuKeyConv *conv, const int *width,
						  int nkeys, bool fill_outer, const AttrNumber *extra, int nextra)
{
	page_program(prog, desc, scanrelid, quals, key_attno, conv, width, nkeys, fill_outer,
				 extra, nextra, false);
}

/*
 * subplan_once: the caller runs the hashed subplan of a first CPU clause
 * when a request first reports a row past the walker's clauses
 * (prog->first_row_build), so that clause leaves the walker handing back
 * joining rows only.
 */
static void
page_program(GpuPageProgram *prog, TupleDesc desc, Index scanrelid, List *quals,
			 const AttrNumber *key_attno, const GpuKeyConv *conv, const int *width,
			 int nkeys, bool fill_outer, const AttrNumber *extra, int nextra,
			 bool subplan_once)
{
	QualCompiler qc;
	gh_page_scan *s = palloc0(sizeof(gh_page_scan));
	bool		gpu_may_take = true;
	bool		all_rows = fill_outer;
	ListCell   *lc;
	int			nclauses = 0;

	memset(prog, 0, sizeof(*prog));
	memset(&qc, 0, sizeof(qc));
	qc.s = s;
	qc.desc = desc;
	qc.relid = scanrelid;
	qc.insn = s->insn;
	qc.ninsns = &s->ninsns;
	qc.max_insns = GH_PAGE_MAX_INSNS;
	/* no key: an inner scan's rows, keyed by the CPU (page_inner.c) */
	if (nkeys < 0 || nkeys > GH_PAGE_MAX_KEYS)
	{
		prog->why = "keys";
		return;
	}
	for (int k = 0; k < nkeys; k++)
	{
		gh_col_type t = gpuhash_qual_need_column(&qc, key_attno[k]);
		bool		fits;

		switch (conv[k])
		{
			case GPUKEY_INT16:
				fits = t == GH_T_INT2;
				break;
			case GPUKEY_INT32:
				fits = t == GH_T_INT4 || t == GH_T_DATE;
				break;
			case GPUKEY_INT64:
				fits = t == GH_T_INT8 || t == GH_T_TIMESTAMP || t == GH_T_TIME;
				break;
			case GPUKEY_UINT32:
				fits = t == GH_T_OID;
				break;
			case GPUKEY_BOOL:
				fits = t == GH_T_BOOL;
				break;
			default:
				fits = false;
		}
		if (!fits)
		{
			prog->why = "key column";
			return;
		}
		s->key[k].col = key_attno[k] - 1;
		s->key[k].conv = (uint8) conv[k];
		s->key[k].width = (uint8) width[k];
	}
	s->nkeys = nkeys;
	for (int i = 0; i < nextra; i++)
	{
		if (gpuhash_qual_need_column(&qc, extra[i]) == GH_T_SKIP)
		{
			prog->why = "column";
			return;
		}
	}

	foreach(lc, quals)
	{
		Node	   *clause = lfirst(lc);
		gh_page_scan saved = *s;

		nclauses++;
		if (gpu_may_take && gpuhash_qual_compile_bool(&qc, clause))
		{
			/* each clause leaves one value: the program ANDs them below */
			prog->gpu_quals = lappend(prog->gpu_quals, clause);
			continue;
		}
		*s = saved;
		if (subplan_once && prog->cpu_quals == NIL && hashed_subplan_test(clause))
		{
			/* the rows reaching it: those the walker passes, reported */
			prog->cpu_quals = lappend(prog->cpu_quals, clause);
			prog->first_row_build = true;
			gpu_may_take = false;
			continue;
		}
		prog->cpu_quals = lappend(prog->cpu_quals, clause);
		if (may_raise(clause))
		{
			/* clauses after it see only the rows it passed: the CPU's */
			gpu_may_take = false;
			all_rows = true;
		}
	}
	if (list_length(prog->gpu_quals) > 1 &&
		!gpuhash_qual_emit(&qc, GH_Q_AND, 0, 0, list_length(prog->gpu_quals)))
	{
		/* no room for the AND: every clause to the CPU */
		s->ninsns = 0;
		s->pool_bytes = 0;
		prog->cpu_quals = list_copy(quals);
		prog->gpu_quals = NIL;
		all_rows = fill_outer;
		foreach(lc, quals)
			all_rows |= may_raise(lfirst(lc));
	}
	/*
	 * Where every row past the walker comes back, the CPU's clauses see it
	 * as a Seq Scan would: no subplan to run ahead (and the row of NULLs
	 * that would run it must not reach a later clause that may raise).
	 */
	if (all_rows)
		prog->first_row_build = false;
	s->mode = all_rows ? GH_PAGE_ALL_ROWS : GH_PAGE_MATCHES;
	layout_columns(s, desc);
	prog->scan = s;
}

/*
 * Compiles clauses (an implicit AND; NIL compiles to nothing) onto the
 * program insn[*ninsns .. max_insns), constants into scan's pool: the
 * aggregate over a join's join qual and conditions (cuda/gpuhash_agg.h),
 * whose Vars of scanrelid are scan's columns (laid out by desc; NULL desc:
 * the planner's check, typed by the Var) and whose other Vars are the
 * columns inner_col gives.  Every clause or none: false leaves insn,
 * *ninsns, the pool and the columns as they were.
 */
bool
gpuhash_qual_compile_into(gh_page_scan *scan, TupleDesc desc, Index scanrelid, List *clauses,
						  GpuQualInnerCol inner_col, void *inner_arg, gh_qinsn *insn,
						  int16_t *ninsns, int max_insns)
{
	QualCompiler qc;
	int16_t		ninsns0 = *ninsns;
	uint32		pool0 = scan->pool_bytes;
	int16_t		natts0 = scan->natts;
	gh_page_column cols0[GH_PAGE_MAX_ATTS];
	ListCell   *lc;
	bool		ok = true;

	memcpy(cols0, scan->col, sizeof(cols0));
	memset(&qc, 0, sizeof(qc));
	qc.s = scan;
	qc.desc = desc;
	qc.relid = scanrelid;
	qc.insn = insn;
	qc.ninsns = ninsns;
	qc.max_insns = max_insns;
	qc.inner_col = inner_col;
	qc.inner_arg = inner_arg;
	foreach(lc, clauses)
	{
		if (!gpuhash_qual_compile_bool(&qc, lfirst(lc)))
		{
			ok = false;
			break;
		}
	}
	if (ok && list_length(clauses) > 1)
		ok = gpuhash_qual_emit(&qc, GH_Q_AND, 0, 0, list_length(clauses));
	if (!ok)
	{
		*ninsns = ninsns0;
		scan->pool_bytes = pool0;
		scan->natts = natts0;
		memcpy(scan->col, cols0, sizeof(cols0));
		return false;
	}
	if (desc != NULL)
		layout_columns(scan, desc);
	return true;
}
