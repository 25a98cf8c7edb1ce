/*
 * agg_catalog_tmp.c
 *		TEMPORARY (i55p): a stand-in for i55s's agg_catalog.c, only for the
 *		planner's EXPLAIN tests until it lands: count(*), and count, sum,
 *		avg, min, max over a column (or numeric products of columns) of
 *		integer, float, numeric, date or timestamp type, without FILTER,
 *		DISTINCT or ORDER BY; keys: integer, date, timestamp, bool, char(n)
 *		columns.  Delete when agg_catalog.c is merged.
 */
#include "postgres.h"

#include "agg_catalog.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

static bool
value_type_ok(Oid t)
{
	switch (t)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case DATEOID:
		case TIMESTAMPOID:
			return true;
	}
	return false;
}

static bool
arg_ok(Node *n, Index scanrelid)
{
	if (IsA(n, RelabelType))
		return arg_ok((Node *) ((RelabelType *) n)->arg, scanrelid);
	if (IsA(n, Var))
		return ((Var *) n)->varno == scanrelid && ((Var *) n)->varattno > 0 &&
			((Var *) n)->varlevelsup == 0 && value_type_ok(((Var *) n)->vartype);
	if (IsA(n, Const))
		return ((Const *) n)->consttype == NUMERICOID;
	if (IsA(n, OpExpr) && ((OpExpr *) n)->opresulttype == NUMERICOID)
	{
		ListCell   *lc;

		foreach(lc, ((OpExpr *) n)->args)
			if (!arg_ok(lfirst(lc), scanrelid))
				return false;
		return true;
	}
	return false;
}

bool
gpuhash_agg_supported(const Aggref *aggref, Index scanrelid,
					  GpuAggSupport *s, const char **why)
{
	char	   *name = get_func_name(aggref->aggfnoid);

	memset(s, 0, sizeof(*s));
	*why = "unsupported aggregate";
	if (aggref->aggfilter || aggref->aggdistinct || aggref->aggorder ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggdirectargs)
		return false;
	if (get_func_namespace(aggref->aggfnoid) != PG_CATALOG_NAMESPACE || name == NULL ||
		(strcmp(name, "count") != 0 && strcmp(name, "sum") != 0 && strcmp(name, "avg") != 0 &&
		 strcmp(name, "min") != 0 && strcmp(name, "max") != 0))
		return false;
	if (aggref->aggstar)
		return true;
	if (list_length(aggref->args) != 1 ||
		!arg_ok((Node *) linitial_node(TargetEntry, aggref->args)->expr, scanrelid))
		return false;
	s->aggfnoid = aggref->aggfnoid;
	s->partial_type = aggref->aggtype;
	return true;
}

bool
gpuhash_agg_key_supported(const Expr *expr, Index scanrelid,
						  uint8 *conv, uint8 *width, const char **why)
{
	const Var  *v = (const Var *) expr;

	*why = "unsupported group key";
	if (!IsA(expr, Var) || v->varno != scanrelid || v->varattno <= 0 || v->varlevelsup != 0)
		return false;
	switch (v->vartype)
	{
		case INT2OID:
			*width = 16;
			break;
		case INT4OID:
		case DATEOID:
			*width = 32;
			break;
		case INT8OID:
		case TIMESTAMPOID:
			*width = 64;
			break;
		case BOOLOID:
			*width = 8;
			break;
		case BPCHAROID:
			if (v->vartypmod < 5 || v->vartypmod - 4 > 8)
				return false;
			*width = 8 * (v->vartypmod - 4);
			break;
		default:
			return false;
	}
	*conv = 0;
	return true;
}
