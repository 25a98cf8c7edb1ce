/*-------------------------------------------------------------------------
 *
 * agg_having.c
 *	  The planner's side of resident groups (agg_resident.c): which HAVING
 *	  conjuncts the GPU service may evaluate on the resident set's final
 *	  values (GPU Having), and the cost of handing up only the set's
 *	  survivors.
 *
 * A conjunct is pushed when it is `agg op Const` (or `Const op agg`) with
 * op the btree comparison of the aggregate's result type (=, <>, <, <=, >,
 * >=) and agg one the GPU computes whose final value it compares exactly
 * (cuda/gpuhash_agg_set.h): count; sum of integers and numerics (the
 * constant a finite numeric, held as its floor at the accumulator's scale
 * and whether that is exact); min and max of integers, dates and
 * timestamps against a constant of the same type.  Never avg, never
 * floats.  PostgreSQL's Finalize Aggregate still applies the whole HAVING:
 * the pushed conjuncts only remove groups it would remove.
 *
 * The plan carries the pushed terms in custom_private, tagged (a List whose
 * first element is the String "gpu having", then the EXPLAIN text, then one
 * List per term: its custom_scan_tlist position, kind, operator, exactness
 * and the constant's three 64-bit words as int8 Consts), padded after the
 * group column count so that a plan over one relation still reads as one
 * without a join.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "agg_catalog.h"
#include "agg_plan.h"
#include "agg_resident.h"
#include "planner/planner_int.h"
#include "service.h"

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"

#define HAVING_TAG "gpu having"

int			gpuhash_resident_groups = GPUHASH_RESIDENT_AUTO;
int			gpuhash_resident_groups_memory = 4096;	/* MB */

/*
 * May this grouping's groups stay resident (the setting, the service)?  The
 * path's cost then decides (agg_costs.c).
 */
bool
gpuhash_preagg_resident_planned(PlannerInfo *root)
{
	return gpuhash_resident_groups != GPUHASH_RESIDENT_OFF && root->parse->groupClause != NIL &&
		gpuhash_service_ready();
}

/* The partial Aggref of target computing h: its position, or -1. */
static int
target_pos(List *exprs, const Aggref *h)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Aggref	   *p = lfirst(lc);

		if (IsA(p, Aggref) && p->aggfnoid == h->aggfnoid && p->aggstar == h->aggstar &&
			p->aggdistinct == NIL && h->aggdistinct == NIL && p->aggorder == NIL &&
			h->aggorder == NIL && equal(p->aggfilter, h->aggfilter) &&
			equal(p->args, h->args))
			return foreach_current_index(lc);
	}
	return -1;
}

/*
 * op as value op constant (the Aggref on the left when !flip): a
 * gh_having_op, or -1 when it is not the btree comparison of the types.
 */
static int
compare_op(Oid opno, Oid ltype, Oid rtype, bool flip)
{
	Oid			opclass = GetDefaultOpClass(flip ? rtype : ltype, BTREE_AM_OID);
	Oid			family;
	static const int ops[] = {GH_HV_LT, GH_HV_LE, GH_HV_EQ, GH_HV_GE, GH_HV_GT};
	static const int flipped[] = {GH_HV_GT, GH_HV_GE, GH_HV_EQ, GH_HV_LE, GH_HV_LT};
	Oid			eq;

	if (!OidIsValid(opclass))
		return -1;
	family = get_opclass_family(opclass);
	for (int st = BTLessStrategyNumber; st <= BTGreaterStrategyNumber; st++)
		if (get_opfamily_member(family, ltype, rtype, st) == opno)
			return flip ? flipped[st - 1] : ops[st - 1];
	eq = get_opfamily_member(family, ltype, rtype, BTEqualStrategyNumber);
	if (OidIsValid(eq) && get_negator(eq) == opno)
		return GH_HV_NE;
	return -1;
}

/* w = w * 10 + d (192 bits); false on overflow past 2^190 */
static bool
mul10_add(uint64 *w, int d)
{
	uint128		c = d;

	for (int i = 0; i < 3; i++)
	{
		c += (uint128) w[i] * 10;
		w[i] = (uint64) c;
		c >>= 64;
	}
	return c == 0 && (w[2] >> 62) == 0;
}

/*
 * A finite numeric constant at `scale` digits after the point: its floor
 * there (192-bit two's complement) in w, *exact when nothing was dropped.
 * False for NaN, infinities and values out of the set's range.
 */
static bool
numeric_konst(Datum num, int scale, uint64 *w, bool *exact)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, num));
	bool		neg = false;
	bool		dropped = false;
	int			frac = -1;		/* digits after the point taken */
	char	   *p = s;

	w[0] = w[1] = w[2] = 0;
	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char) *p))
		return false;			/* NaN, Infinity */
	for (; *p; p++)
	{
		if (*p == '.')
		{
			frac = 0;
			continue;
		}
		if (!isdigit((unsigned char) *p))
			return false;
		if (frac >= scale)
		{
			dropped |= *p != '0';
			continue;
		}
		if (!mul10_add(w, *p - '0'))
			return false;
		if (frac >= 0)
			frac++;
	}
	for (frac = Max(frac, 0); frac < scale; frac++)
		if (!mul10_add(w, 0))
			return false;
	/* the floor of a negative value with digits dropped is one further down */
	if (neg && dropped)
	{
		for (int i = 0; i < 3 && ++w[i] == 0; i++)
			;
		if ((w[2] >> 62) != 0)
			return false;
	}
	if (neg)
	{
		/* two's complement */
		uint64		carry = 1;

		for (int i = 0; i < 3; i++)
		{
			w[i] = ~w[i] + carry;
			carry = carry && w[i] == 0;
		}
	}
	*exact = !dropped;
	return true;
}

/* An integer, date or timestamp constant as int64 in w; false for others. */
static bool
int_konst(const Const *c, uint64 *w)
{
	int64		v;

	switch (c->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(c->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(c->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(c->constvalue);
			break;
		case DATEOID:
			v = DatumGetDateADT(c->constvalue);
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			v = DatumGetTimestamp(c->constvalue);
			break;
		default:
			return false;
	}
	w[0] = (uint64) v;
	w[1] = w[2] = v < 0 ? ~UINT64CONST(0) : 0;
	return true;
}

static bool
is_int_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

static Const *
word_const(uint64 w)
{
	return makeConst(INT8OID, -1, InvalidOid, 8, Int64GetDatum((int64) w), false,
					 FLOAT8PASSBYVAL);
}

/* The term of one HAVING conjunct over relid's aggregates in exprs; NIL: not pushed. */
static List *
having_term(Index relid, List *exprs, Expr *clause)
{
	OpExpr	   *op = (OpExpr *) clause;
	Aggref	   *a;
	Const	   *c;
	bool		flip;
	int			pos,
				cmp,
				kind,
				scale = 0;
	GpuAggSupport s;
	const char *why = NULL;
	uint64		w[3];
	bool		exact = true;
	Oid			rt,
				ct;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2)
		return NIL;
	flip = IsA(linitial(op->args), Const);
	a = flip ? lsecond(op->args) : linitial(op->args);
	c = flip ? linitial(op->args) : lsecond(op->args);
	if (!IsA(a, Aggref) || !IsA(c, Const) || c->constisnull ||
		(pos = target_pos(exprs, a)) < 0 ||
		!gpuhash_agg_supported(a, relid, &s, &why))
		return NIL;
	rt = a->aggtype;
	ct = c->consttype;
	if ((cmp = compare_op(op->opno, exprType(linitial(op->args)),
						  exprType(lsecond(op->args)), flip)) < 0)
		return NIL;
	switch (s.fn)
	{
		case GH_AGG_COUNT_STAR:
		case GH_AGG_COUNT:
			kind = GH_HV_COUNT;
			if (!is_int_type(ct) || !int_konst(c, w))
				return NIL;
			break;
		case GH_AGG_SUM:
			kind = GH_HV_SUM;
			if (rt == INT8OID && is_int_type(ct) && is_int_type(s.input_type))
			{
				/* sum(int2), sum(int4): an int8 */
				if (!int_konst(c, w))
					return NIL;
			}
			else if (rt == NUMERICOID && ct == NUMERICOID &&
					 (s.input_type == NUMERICOID || s.input_type == INT8OID))
			{
				scale = s.input_type == NUMERICOID ? s.scale : 0;
				if (!numeric_konst(c->constvalue, scale, w, &exact))
					return NIL;
			}
			else
				return NIL;
			break;
		case GH_AGG_MIN:
		case GH_AGG_MAX:
			kind = GH_HV_MINMAX;
			if (!(is_int_type(rt) && is_int_type(ct)) &&
				!(rt == ct && (rt == DATEOID || rt == TIMESTAMPOID || rt == TIMESTAMPTZOID)))
				return NIL;
			if (!is_int_type(s.input_type) && s.input_type != DATEOID &&
				s.input_type != TIMESTAMPOID && s.input_type != TIMESTAMPTZOID)
				return NIL;
			if (!int_konst(c, w))
				return NIL;
			break;
		default:
			return NIL;			/* avg: a quotient, never compared here */
	}
	return list_make5(makeInteger(pos), makeInteger(kind), makeInteger(cmp),
					  makeInteger(exact), list_make3(word_const(w[0]), word_const(w[1]),
													 word_const(w[2])));
}

/*
 * The pushed conjuncts of the query's HAVING over relid's grouping (exprs:
 * the partial target's expressions): their terms, and the conjuncts
 * themselves in *quals.
 */
static List *
pushed_terms(PlannerInfo *root, Index relid, List *exprs, List **quals)
{
	List	   *terms = NIL;
	ListCell   *lc;

	*quals = NIL;
	if (!gpuhash_preagg_resident_planned(root) || root->parse->havingQual == NULL)
		return NIL;
	/* preprocess_expression left it an implicitly ANDed list */
	foreach(lc, IsA(root->parse->havingQual, List) ? (List *) root->parse->havingQual :
			make_ands_implicit((Expr *) root->parse->havingQual))
	{
		List	   *t = having_term(relid, exprs, lfirst(lc));

		if (t == NIL || list_length(terms) >= GH_AGG_MAX_HAVING)
			continue;
		terms = lappend(terms, t);
		*quals = lappend(*quals, lfirst(lc));
	}
	return terms;
}

/*
 * PlanCustomPath's part: the pushed terms appended to a plan over one
 * relation (custom_private padded to hold them after the join slots).
 */
void
gpuhash_preagg_plan_having(PlannerInfo *root, CustomScan *cscan, PathTarget *target)
{
	Index		relid = cscan->scan.scanrelid;
	List	   *quals;
	List	   *terms;
	Oid			reloid;
	Node	   *shown;
	char	   *text;

	/* only where the path keeps its groups resident (agg_costs.c) */
	if (!(cscan->flags & GPUHASH_PREAGG_RESIDENT))
		return;
	terms = pushed_terms(root, relid, target->exprs, &quals);
	if (terms == NIL)
		return;
	/* the text EXPLAIN shows, deparsed over the relation alone */
	reloid = planner_rt_fetch(relid, root)->relid;
	shown = copyObject((Node *) make_ands_explicit(quals));
	ChangeVarNodes(shown, relid, 1, 0);
	text = deparse_expression(shown, deparse_context_for(get_rel_name(reloid), reloid),
							  false, false);
	while (list_length(cscan->custom_private) <= GPUHASH_PREAGG_PRIV_PRESERVE_INNER)
		cscan->custom_private = lappend(cscan->custom_private, makeInteger(0));
	cscan->custom_private = lappend(cscan->custom_private,
									list_concat(list_make2(makeString(HAVING_TAG),
														   makeString(text)),
												terms));
}

/* The plan's pushed terms (NIL: none), and their text in *text. */
List *
gpuhash_preagg_having_of(const CustomScan *cscan, char **text)
{
	ListCell   *lc;

	foreach(lc, cscan->custom_private)
	{
		List	   *l = lfirst(lc);

		if (IsA(l, List) && list_length(l) >= 2 && IsA(linitial(l), String) &&
			strcmp(strVal(linitial(l)), HAVING_TAG) == 0)
		{
			*text = strVal(lsecond(l));
			return list_copy_tail(l, 2);
		}
	}
	*text = NULL;
	return NIL;
}

/*
 * The path's cost where its groups stay resident: each participant's
 * groups merged into the set on the device, and only the set's survivors
 * handed up once, all participants together (PostgreSQL's selectivity of
 * the pushed conjuncts over the grouping's groups).  groups: the
 * grouping's over the whole relation; part_groups: one participant's.
 */
void
gpuhash_preagg_resident_cost(PlannerInfo *root, CustomPath *cp, RelOptInfo *baserel,
							 Path *partial_scan, PathTarget *target, double groups,
							 double part_groups)
{
	List	   *quals;
	double		survivors;

	if (!gpuhash_preagg_resident_planned(root))
		return;
	(void) pushed_terms(root, baserel->relid, target->exprs, &quals);
	survivors = groups;
	if (quals != NIL)
		survivors *= clauselist_selectivity(root, quals, 0, JOIN_INNER, NULL);
	gpuhash_cost_preagg_resident(root, cp, baserel, partial_scan, part_groups,
								 clamp_row_est(survivors));
}
