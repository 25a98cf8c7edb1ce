/*
 * agg_catalog.c
 *		Which aggregates and group keys the GPU aggregate folds exactly
 *		(cuda/gpuhash_agg.h's gh_agg_fn and gh_agg_expr over the walker's
 *		column types), and how.
 *
 * Declined, so that PostgreSQL's own Partial Aggregate computes them:
 *	- FILTER, DISTINCT, ORDER BY, ordered-set and hypothetical aggregates,
 *	  outer-level aggregates, variadic calls;
 *	- numeric without a typmod: the accumulator's scale must be fixed at
 *	  plan time, and only a typmod bounds the display scale of every value
 *	  (one with more digits would fall back on every page); numeric MIN and
 *	  MAX (the result keeps the winning input's own display scale, which the
 *	  core does not track);
 *	- avg(float8): float8_accum raises "value out of range" when its sum of
 *	  squares Sxx overflows (inputs beyond ~1e154) even where the sum does
 *	  not, and the GPU keeps no Sxx to tell;
 *	- any argument but a column of the scanned relation, a product
 *	  col * col2, col * (1 - col2) or col * (1 - col2) * (1 + col3) over
 *	  numeric columns with typmods, or col + col2, col - col2, col * col2
 *	  over integer columns (an exact result outside the operator's type sets
 *	  GH_AGG_S_FALLBACK: the CPU's rows then raise PostgreSQL's own "out of
 *	  range").
 *
 * The 192-bit accumulator cannot overflow: every value folded is below 2^126
 * in magnitude (a larger one, or one with nonzero digits beyond the
 * accumulator's scale, sets GH_AGG_S_FALLBACK on its group instead) and a
 * relation has fewer than 2^63 rows, so every sum stays below 2^189.  What
 * the typmod bounds here is the scale: the accumulator's scale is the
 * typmod's (the sum of the operands' for a product), at most
 * GH_AGG_MAX_SCALE.
 */
#include "gpuhash.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "agg_catalog.h"

/* Does the walker read values of this (base) type? */
static bool
walkable_type(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case BOOLOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case NUMERICOID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return true;
		default:
			return false;
	}
}

/*
 * Whose columns an argument may read: the scanned relation's (its pages
 * walked) and, over a join, the inner side's (inner_relids; NULL: none).
 */
typedef struct OperandScope
{
	Index		scanrelid;
	Relids		inner_relids;
} OperandScope;

/* A plain column of the scanned relation or of the inner side, or NULL. */
static const Var *
scan_column(const Node *n, const OperandScope *sc)
{
	const Var  *v;

	if (n == NULL || !IsA(n, Var))
		return NULL;
	v = (const Var *) n;
	if (v->varlevelsup != 0 || v->varattno <= 0)
		return NULL;
	if (v->varno != sc->scanrelid &&
		(sc->inner_relids == NULL || !bms_is_member(v->varno, sc->inner_relids)))
		return NULL;
	return v;
}

/* Operand i reads column v: the scanned relation's by attno, else inner. */
static void
set_operand(GpuAggSupport *s, int i, const Var *v, const OperandScope *sc)
{
	if (v->varno == sc->scanrelid)
	{
		s->attno[i] = v->varattno;
		s->inner_var[i] = NULL;
	}
	else
	{
		s->attno[i] = 0;
		s->inner_var[i] = (Var *) v;
	}
}

/* The scale s of a numeric(p, s) column, or -1 (no typmod, or s < 0). */
static int
numeric_col_scale(const Var *v)
{
	int32		typmod = v->vartypmod;
	int			scale;

	if (getBaseType(v->vartype) != NUMERICOID || typmod < (int32) VARHDRSZ)
		return -1;
	/* numeric.c's typmod layout: ((precision << 16) | scale) + VARHDRSZ,
	 * the scale an 11-bit signed field (negative scales since PG 15) */
	typmod -= VARHDRSZ;
	scale = ((typmod & 0x7ff) ^ 1024) - 1024;
	return scale >= 0 ? scale : -1;	/* a negative scale: declined */
}

static Oid
func_of(const Node *n)
{
	const OpExpr *op = (const OpExpr *) n;

	if (!IsA(n, OpExpr) || list_length(op->args) != 2)
		return InvalidOid;
	return OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
}

/* A numeric constant 1 of display scale 0 (what `1 - x` folds 1 into). */
static bool
is_numeric_one(const Node *n)
{
	const Const *c = (const Const *) n;
	char	   *s;
	bool		one;

	if (!IsA(n, Const) || c->consttype != NUMERICOID || c->constisnull)
		return false;
	s = DatumGetCString(DirectFunctionCall1(numeric_out, c->constvalue));
	one = strcmp(s, "1") == 0;
	pfree(s);
	return one;
}

/*
 * One factor of a product: a numeric column with a typmod (sign 0), 1 - it
 * (sign -1) or 1 + it / it + 1 (sign 1).  numeric_sub and numeric_add give
 * the larger display scale of their operands: the column's.
 */
static bool
numeric_factor(const Node *n, const OperandScope *sc, int *sign, const Var **col)
{
	Oid			f = func_of(n);
	const List *args;

	*sign = 0;
	if (f == F_NUMERIC_SUB || f == F_NUMERIC_ADD)
	{
		args = ((const OpExpr *) n)->args;
		if (is_numeric_one(linitial(args)))
			n = lsecond(args);
		else if (f == F_NUMERIC_ADD && is_numeric_one(lsecond(args)))
			n = linitial(args);
		else
			return false;
		*sign = f == F_NUMERIC_SUB ? -1 : 1;
	}
	*col = scan_column(n, sc);
	return *col != NULL && numeric_col_scale(*col) >= 0;
}

/* Collects the factors of a product tree (numeric_mul is exact: any
 * bracketing gives the same value and display scale). */
static bool
product_factors(const Node *n, const OperandScope *sc, int *nf, int signs[3],
				const Var *cols[3])
{
	if (func_of(n) == F_NUMERIC_MUL)
	{
		const List *args = ((const OpExpr *) n)->args;

		return product_factors(linitial(args), sc, nf, signs, cols) &&
			product_factors(lsecond(args), sc, nf, signs, cols);
	}
	if (*nf >= 3)
		return false;
	if (!numeric_factor(n, sc, &signs[*nf], &cols[*nf]))
		return false;
	(*nf)++;
	return true;
}

/*
 * The numeric product forms the core computes: col * col2, col * (1 - col2)
 * and col * (1 - col2) * (1 + col3), their factors in any order.
 */
static bool
numeric_product(const Node *n, const OperandScope *sc, GpuAggSupport *s, const char **why)
{
	int			nf = 0,
				signs[3];
	const Var  *cols[3];
	const Var  *plain[3],
			   *minus = NULL,
			   *plus = NULL;
	int			np = 0,
				scale = 0;

	if (!product_factors(n, sc, &nf, signs, cols) || nf < 2)
	{
		*why = "the aggregate's argument is not a column or a supported numeric product";
		return false;
	}
	for (int i = 0; i < nf; i++)
	{
		if (signs[i] == 0)
			plain[np++] = cols[i];
		else if (signs[i] < 0 && minus == NULL)
			minus = cols[i];
		else if (signs[i] > 0 && plus == NULL)
			plus = cols[i];
		else
		{
			*why = "the numeric product is not of a supported form";
			return false;
		}
		scale += numeric_col_scale(cols[i]);
	}
	if (np == 2 && nf == 2)
		s->expr = GH_AGG_E_MUL;
	else if (np == 1 && minus && nf == 2)
		s->expr = GH_AGG_E_MUL_ONE_MINUS;
	else if (np == 1 && minus && plus)
		s->expr = GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS;
	else
	{
		*why = "the numeric product is not of a supported form";
		return false;
	}
	if (scale > GH_AGG_MAX_SCALE)
	{
		*why = "the product's display scale is beyond the GPU accumulator's";
		return false;
	}
	set_operand(s, 0, plain[0], sc);
	set_operand(s, 1, np == 2 ? plain[1] : minus, sc);
	if (plus)
		set_operand(s, 2, plus, sc);
	s->scale = (uint8) scale;
	s->input_type = NUMERICOID;
	return true;
}

/*
 * Integer arithmetic over two integer columns, col op col2, as the int2,
 * int4 and int8 operators (and their cross-type forms) compute it: the
 * result in the operator's own type (exprType), which the aggregate takes.
 */
static bool
int_arith(const Node *n, const OperandScope *sc, GpuAggSupport *s, const char **why)
{
	static const struct
	{
		Oid			fn;
		uint8		expr;
		PGFunction	call;
	}			ops[] =
	{
		{F_INT2PL, GH_AGG_E_INT_ADD, int2pl}, {F_INT2MI, GH_AGG_E_INT_SUB, int2mi},
		{F_INT2MUL, GH_AGG_E_INT_MUL, int2mul},
		{F_INT4PL, GH_AGG_E_INT_ADD, int4pl}, {F_INT4MI, GH_AGG_E_INT_SUB, int4mi},
		{F_INT4MUL, GH_AGG_E_INT_MUL, int4mul},
		{F_INT8PL, GH_AGG_E_INT_ADD, int8pl}, {F_INT8MI, GH_AGG_E_INT_SUB, int8mi},
		{F_INT8MUL, GH_AGG_E_INT_MUL, int8mul},
		{F_INT24PL, GH_AGG_E_INT_ADD, int24pl}, {F_INT24MI, GH_AGG_E_INT_SUB, int24mi},
		{F_INT24MUL, GH_AGG_E_INT_MUL, int24mul},
		{F_INT42PL, GH_AGG_E_INT_ADD, int42pl}, {F_INT42MI, GH_AGG_E_INT_SUB, int42mi},
		{F_INT42MUL, GH_AGG_E_INT_MUL, int42mul},
		{F_INT48PL, GH_AGG_E_INT_ADD, int48pl}, {F_INT48MI, GH_AGG_E_INT_SUB, int48mi},
		{F_INT48MUL, GH_AGG_E_INT_MUL, int48mul},
		{F_INT84PL, GH_AGG_E_INT_ADD, int84pl}, {F_INT84MI, GH_AGG_E_INT_SUB, int84mi},
		{F_INT84MUL, GH_AGG_E_INT_MUL, int84mul},
		{F_INT28PL, GH_AGG_E_INT_ADD, int28pl}, {F_INT28MI, GH_AGG_E_INT_SUB, int28mi},
		{F_INT28MUL, GH_AGG_E_INT_MUL, int28mul},
		{F_INT82PL, GH_AGG_E_INT_ADD, int82pl}, {F_INT82MI, GH_AGG_E_INT_SUB, int82mi},
		{F_INT82MUL, GH_AGG_E_INT_MUL, int82mul},
	};
	Oid			f = func_of(n);
	const Var  *cols[2];
	Oid			rtype;

	for (int i = 0; i < lengthof(ops); i++)
	{
		if (ops[i].fn != f)
			continue;
		for (int k = 0; k < 2; k++)
		{
			Oid			t;

			cols[k] = scan_column(list_nth(((const OpExpr *) n)->args, k), sc);
			t = cols[k] ? getBaseType(cols[k]->vartype) : InvalidOid;
			if (t != INT2OID && t != INT4OID && t != INT8OID)
			{
				*why = "integer arithmetic over something but two integer columns";
				return false;
			}
		}
		rtype = exprType(n);
		if (rtype != INT2OID && rtype != INT4OID && rtype != INT8OID)
			break;
		s->expr = ops[i].expr;
		s->opfn = ops[i].call;
		s->input_type = rtype;
		set_operand(s, 0, cols[0], sc);
		set_operand(s, 1, cols[1], sc);
		return true;
	}
	*why = "the aggregate's argument is not a column or a supported arithmetic";
	return false;
}

/* The aggregate's gh_agg_fn and the base types it takes, or false. */
static bool
agg_function(Oid aggfnoid, uint8 *fn, Oid *argtype)
{
	static const struct
	{
		Oid			aggfnoid;
		uint8		fn;
		Oid			argtype;
	}			map[] =
	{
		{F_COUNT_, GH_AGG_COUNT_STAR, InvalidOid},
		{F_COUNT_ANY, GH_AGG_COUNT, InvalidOid},
		{F_SUM_INT2, GH_AGG_SUM, INT2OID},
		{F_SUM_INT4, GH_AGG_SUM, INT4OID},
		{F_SUM_INT8, GH_AGG_SUM, INT8OID},
		{F_SUM_FLOAT4, GH_AGG_SUM, FLOAT4OID},
		{F_SUM_FLOAT8, GH_AGG_SUM, FLOAT8OID},
		{F_SUM_NUMERIC, GH_AGG_SUM, NUMERICOID},
		{F_AVG_INT2, GH_AGG_AVG, INT2OID},
		{F_AVG_INT4, GH_AGG_AVG, INT4OID},
		{F_AVG_INT8, GH_AGG_AVG, INT8OID},
		{F_AVG_FLOAT4, GH_AGG_AVG, FLOAT4OID},
		{F_AVG_NUMERIC, GH_AGG_AVG, NUMERICOID},
		{F_MIN_INT2, GH_AGG_MIN, INT2OID},
		{F_MIN_INT4, GH_AGG_MIN, INT4OID},
		{F_MIN_INT8, GH_AGG_MIN, INT8OID},
		{F_MIN_FLOAT4, GH_AGG_MIN, FLOAT4OID},
		{F_MIN_FLOAT8, GH_AGG_MIN, FLOAT8OID},
		{F_MIN_DATE, GH_AGG_MIN, DATEOID},
		{F_MIN_TIME, GH_AGG_MIN, TIMEOID},
		{F_MIN_TIMESTAMP, GH_AGG_MIN, TIMESTAMPOID},
		{F_MIN_TIMESTAMPTZ, GH_AGG_MIN, TIMESTAMPTZOID},
		{F_MAX_INT2, GH_AGG_MAX, INT2OID},
		{F_MAX_INT4, GH_AGG_MAX, INT4OID},
		{F_MAX_INT8, GH_AGG_MAX, INT8OID},
		{F_MAX_FLOAT4, GH_AGG_MAX, FLOAT4OID},
		{F_MAX_FLOAT8, GH_AGG_MAX, FLOAT8OID},
		{F_MAX_DATE, GH_AGG_MAX, DATEOID},
		{F_MAX_TIME, GH_AGG_MAX, TIMEOID},
		{F_MAX_TIMESTAMP, GH_AGG_MAX, TIMESTAMPOID},
		{F_MAX_TIMESTAMPTZ, GH_AGG_MAX, TIMESTAMPTZOID},
	};

	for (int i = 0; i < lengthof(map); i++)
		if (map[i].aggfnoid == aggfnoid)
		{
			*fn = map[i].fn;
			*argtype = map[i].argtype;
			return true;
		}
	return false;
}

/* The type of the partial aggregate's output: the transition type, or
 * bytea where the state is internal and serialized. */
static Oid
partial_type_of(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate agg;
	Oid			t;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	t = agg->aggtranstype == INTERNALOID ? BYTEAOID : agg->aggtranstype;
	ReleaseSysCache(tup);
	return t;
}

/* Is c a zero of its own type, as an aggregate's ELSE 0 folds it? */
static bool
is_zero_const(const Const *c)
{
	char	   *str;
	bool		zero;

	if (c->constisnull)
		return false;
	switch (c->consttype)
	{
		case INT2OID:
			return DatumGetInt16(c->constvalue) == 0;
		case INT4OID:
			return DatumGetInt32(c->constvalue) == 0;
		case INT8OID:
			return DatumGetInt64(c->constvalue) == 0;
		case FLOAT4OID:
			/* +0 only: a sum of -0 would show its sign */
			return DatumGetFloat4(c->constvalue) == 0 &&
				!signbit(DatumGetFloat4(c->constvalue));
		case FLOAT8OID:
			return DatumGetFloat8(c->constvalue) == 0 &&
				!signbit(DatumGetFloat8(c->constvalue));
		case NUMERICOID:
			/* display scale 0: the zero the core folds (numeric_add keeps
			 * the larger display scale, so 0.00 would show) */
			str = DatumGetCString(DirectFunctionCall1(numeric_out, c->constvalue));
			zero = strcmp(str, "0") == 0;
			pfree(str);
			return zero;
		default:
			return false;
	}
}

/* Does every Var of n belong to the scope (no outer-level Var, no
 * placeholder, no subquery)? */
static bool
out_of_scope_walker(Node *n, void *context)
{
	const OperandScope *sc = context;

	if (n == NULL)
		return false;
	if (IsA(n, Var))
	{
		Var		   *v = (Var *) n;

		return v->varlevelsup != 0 || v->varattno <= 0 ||
			(v->varno != sc->scanrelid &&
			 (sc->inner_relids == NULL || !bms_is_member(v->varno, sc->inner_relids)));
	}
	if (IsA(n, PlaceHolderVar) || IsA(n, SubLink) || IsA(n, SubPlan) ||
		IsA(n, AlternativeSubPlan) || IsA(n, Aggref) || IsA(n, GroupingFunc) ||
		IsA(n, WindowFunc) || IsA(n, Param))
		return true;
	return expression_tree_walker(n, out_of_scope_walker, context);
}

/*
 * CASE WHEN cond THEN x ELSE 0|NULL END: records cond and the ELSE in s,
 * *x the THEN.  Only a searched CASE of one WHEN; the parser makes an absent
 * ELSE a NULL Const.
 */
static bool
case_form(const CaseExpr *c, const OperandScope *sc, GpuAggSupport *s,
		  const Node **x, const char **why)
{
	const CaseWhen *w;
	const Const *d = (const Const *) c->defresult;

	if (c->arg != NULL || list_length(c->args) != 1)
	{
		*why = "a CASE of more than one WHEN, or over a test value";
		return false;
	}
	w = linitial_node(CaseWhen, c->args);
	if (d == NULL || !IsA(d, Const) || (!d->constisnull && !is_zero_const(d)))
	{
		*why = "a CASE whose ELSE is neither 0 of its type nor NULL";
		return false;
	}
	if (exprType((Node *) w->expr) != BOOLOID ||
		out_of_scope_walker((Node *) w->expr, (void *) sc) ||
		contain_volatile_functions((Node *) w->expr))
	{
		*why = "a CASE condition over something but the join's columns";
		return false;
	}
	s->cond = w->expr;
	s->else_kind = d->constisnull ? GH_AGG_ELSE_NULL : GH_AGG_ELSE_ZERO;
	*x = (const Node *) w->result;
	return true;
}

/* x an integer constant: GH_AGG_E_CONST */
static bool
const_operand(const Const *k, GpuAggSupport *s, const char **why)
{
	if (k->constisnull)
	{
		*why = "a CASE whose THEN is NULL";
		return false;
	}
	switch (k->consttype)
	{
		case INT2OID:
			s->konst = DatumGetInt16(k->constvalue);
			break;
		case INT4OID:
			s->konst = DatumGetInt32(k->constvalue);
			break;
		case INT8OID:
			s->konst = DatumGetInt64(k->constvalue);
			break;
		default:
			*why = "a constant operand that is not an integer";
			return false;
	}
	s->expr = GH_AGG_E_CONST;
	s->const_type = k->consttype;
	s->input_type = k->consttype;
	return true;
}

static bool
agg_supported(const Aggref *aggref, const OperandScope *sc, bool join_forms,
			  GpuAggSupport *s, const char **why)
{
	uint8		fn;
	Oid			argtype;
	const Node *arg;
	const Var  *col;

	memset(s, 0, sizeof(*s));
	*why = NULL;
	if (aggref->aggfilter != NULL)
		*why = "an aggregate with FILTER";
	else if (aggref->aggdistinct != NIL)
		*why = "a DISTINCT aggregate";
	else if (aggref->aggorder != NIL)
		*why = "an aggregate with ORDER BY";
	else if (aggref->aggkind != AGGKIND_NORMAL || aggref->aggdirectargs != NIL)
		*why = "an ordered-set aggregate";
	else if (aggref->agglevelsup != 0)
		*why = "an outer-level aggregate";
	else if (aggref->aggvariadic)
		*why = "a variadic aggregate call";
	else if (aggref->aggfnoid == F_AVG_FLOAT8)
		*why = "avg(float8): float8_accum's overflow check needs the sum of squares";
	else if (aggref->aggfnoid == F_MIN_NUMERIC || aggref->aggfnoid == F_MAX_NUMERIC)
		*why = "numeric min/max keep the input's display scale (CPU)";
	else if (!agg_function(aggref->aggfnoid, &fn, &argtype))
		*why = "this aggregate function has no GPU version";
	if (*why)
		return false;

	s->fn = fn;
	s->aggfnoid = aggref->aggfnoid;
	s->partial_type = partial_type_of(aggref->aggfnoid);
	s->expr = GH_AGG_E_COL;
	if (fn == GH_AGG_COUNT_STAR)
	{
		s->input_type = InvalidOid;
		return true;
	}
	if (list_length(aggref->args) != 1)
	{
		*why = "an aggregate of more than one argument";
		return false;
	}
	arg = (const Node *) ((const TargetEntry *) linitial(aggref->args))->expr;

	if (join_forms && IsA(arg, CaseExpr))
	{
		if (!case_form((const CaseExpr *) arg, sc, s, &arg, why))
			return false;
		if (IsA(arg, Const))
		{
			if (!const_operand((const Const *) arg, s, why))
				return false;
			if (fn != GH_AGG_COUNT && s->input_type != argtype)
			{
				*why = "the constant is not of the aggregate's input type";
				return false;
			}
			return true;
		}
	}

	col = scan_column(arg, sc);
	if (col == NULL)
	{
		if (argtype == NUMERICOID && (fn == GH_AGG_SUM || fn == GH_AGG_AVG))
			return numeric_product(arg, sc, s, why);
		if (IsA(arg, OpExpr))
		{
			if (!int_arith(arg, sc, s, why))
				return false;
			if (fn != GH_AGG_COUNT && s->input_type != argtype)
			{
				*why = "the arithmetic's type is not the aggregate's input type";
				return false;
			}
			return true;
		}
		*why = "the aggregate's argument is not a column of the scanned relation";
		return false;
	}
	set_operand(s, 0, col, sc);
	s->input_type = getBaseType(col->vartype);
	if (!walkable_type(s->input_type))
	{
		*why = "the aggregate's column is of a type the GPU does not read";
		return false;
	}
	if (fn == GH_AGG_COUNT)
		return true;
	if (s->input_type != argtype)
	{
		*why = "the aggregate's column is not of the aggregate's input type";
		return false;
	}
	if (argtype == NUMERICOID)
	{
		int			scale = numeric_col_scale(col);

		if (scale < 0)
		{
			*why = "numeric without a typmod: no fixed accumulator scale";
			return false;
		}
		if (scale > GH_AGG_MAX_SCALE)
		{
			*why = "the numeric scale is beyond the GPU accumulator's";
			return false;
		}
		s->scale = (uint8) scale;
	}
	return true;
}

bool
gpuhash_agg_supported(const Aggref *aggref, Index scanrelid,
					  GpuAggSupport *s, const char **why)
{
	OperandScope sc = {scanrelid, NULL};

	return agg_supported(aggref, &sc, false, s, why);
}

bool
gpuhash_agg_supported_join(const Aggref *aggref, Index scanrelid, Relids inner_relids,
						   GpuAggSupport *s, const char **why)
{
	OperandScope sc = {scanrelid, inner_relids};

	return agg_supported(aggref, &sc, true, s, why);
}

/*
 * Group keys: integers, oid, bool and date as the walker's join keys pack
 * them (signed values sign-extended, then masked to their width: one-to-one
 * within a width); char(n) and text/varchar as their bytes (GH_AGG_KEY_BPCHAR
 * without trailing spaces, bpchar's equality; GH_AGG_KEY_TEXT with them,
 * text's), in a slot gpuhash_agg_key_slots chooses (agg_keys.c).  A value
 * longer than its slot refuses its page, which the CPU then reads: exact,
 * though a column of long values gains nothing.
 * Collations must be deterministic (equality is then bytewise); bpchar
 * without a typmod is declined, since its groups would show whichever
 * padding the first row had.
 */
bool
gpuhash_agg_key_supported(const Expr *expr, Index scanrelid,
						  uint8 *conv, uint8 *width, const char **why)
{
	return gpuhash_agg_key_supported_join(expr, scanrelid, NULL, conv, width, why);
}

bool
gpuhash_agg_key_supported_join(const Expr *expr, Index scanrelid, Relids inner_relids,
							   uint8 *conv, uint8 *width, const char **why)
{
	OperandScope sc = {scanrelid, inner_relids};
	const Var  *v = scan_column((const Node *) expr, &sc);
	Oid			t;
	GpuKeyConv	kc;
	int			len = -1;

	*why = NULL;
	if (v == NULL)
	{
		*why = "the group key is not a column of the scanned relation";
		return false;
	}
	t = getBaseType(v->vartype);
	/* integer-like types pack as the join's exact keys do (keys.c) */
	if (gpuhash_conv_for_type(t, &kc))
	{
		*conv = (uint8) kc;
		*width = (uint8) gpuhash_conv_width(kc);
		return true;
	}
	switch (t)
	{
		case BPCHAROID:
		case VARCHAROID:
		case TEXTOID:
			break;
		default:
			*why = "the group key's type does not pack into a GPU key";
			return false;
	}
	if (OidIsValid(v->varcollid) && !get_collation_isdeterministic(v->varcollid))
	{
		*why = "the group key's collation is nondeterministic";
		return false;
	}
	if (v->vartypmod >= (int32) VARHDRSZ)
		len = v->vartypmod - VARHDRSZ;
	if (t == BPCHAROID && len < 0)
	{
		*why = "char without a length: its groups' padding is the first row's";
		return false;
	}
	*conv = t == BPCHAROID ? GH_AGG_KEY_BPCHAR : GH_AGG_KEY_TEXT;
	*width = 0;					/* the slot: gpuhash_agg_key_slots, over every key */
	return true;
}
