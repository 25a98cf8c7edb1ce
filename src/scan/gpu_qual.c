/*-------------------------------------------------------------------------
 *
 * gpu_qual.c
 *	  The compiler of quals into the page walker's postfix qual program
 *	  (cuda/gpuhash_page.h): the clauses the walker evaluates exactly.
 *	  gpu_program.c builds the programs from it: a scan's, and the
 *	  aggregate over a join's join qual and conditions.
 *
 * Exactness: an operator is taken only when its C function (F_* of
 * fmgroids.h) is one listed here, whose result the walker reproduces bit
 * for bit: the btree comparisons of the integer, oid, bool, date, time,
 * timestamp, float and numeric types (cross-type ones of the same family
 * too, date against timestamp without a zone); text and char(n) equality
 * under a deterministic collation, their ordering under "C" only; LIKE of
 * text with a constant pattern (case-sensitive LIKE ignores the collation;
 * only UTF-8 and single-byte encodings, patterns without an escape); IN
 * lists; int4, int8 and date arithmetic (an overflow refuses the page, whose
 * rows then go the CPU's way and raise PostgreSQL's error); NULL and boolean
 * tests; AND, OR, NOT.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "page_scan.h"
#include "gpu_qual_internal.h"

#include "access/tupdesc_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* utils/pg_locale.h declares it, but includes ICU's headers, which a server-dev install may lack */
extern bool lc_collate_is_c(Oid collation);

/* A value's family: what the comparison modes accept. */
typedef enum ValClass
{
	VC_NONE = 0,
	VC_INT,						/* integers, oid, bool, date, time, timestamp */
	VC_FLOAT,
	VC_NUMERIC,
	VC_TEXT,
	VC_BPCHAR
} ValClass;

typedef struct QualFunc
{
	Oid			fn;
	uint8		mode;			/* gh_qmode */
	uint8		cmp;			/* gh_cmp, comparisons */
	uint8		cls;			/* ValClass of both operands */
	uint8		c_only;			/* ordering of strings: "C" collation only */
} QualFunc;

#define SIX(pre, suf, mode, cls, c) \
	{pre##LT##suf, mode, GH_LT, cls, c}, {pre##LE##suf, mode, GH_LE, cls, c}, \
	{pre##EQ##suf, mode, GH_EQ, cls, 0}, {pre##NE##suf, mode, GH_NE, cls, 0}, \
	{pre##GE##suf, mode, GH_GE, cls, c}, {pre##GT##suf, mode, GH_GT, cls, c}

static const QualFunc cmp_funcs[] = {
	SIX(F_INT2, , GH_M_INT, VC_INT, 0),
	SIX(F_INT4, , GH_M_INT, VC_INT, 0),
	SIX(F_INT8, , GH_M_INT, VC_INT, 0),
	SIX(F_INT24, , GH_M_INT, VC_INT, 0),
	SIX(F_INT42, , GH_M_INT, VC_INT, 0),
	SIX(F_INT28, , GH_M_INT, VC_INT, 0),
	SIX(F_INT82, , GH_M_INT, VC_INT, 0),
	SIX(F_INT48, , GH_M_INT, VC_INT, 0),
	SIX(F_INT84, , GH_M_INT, VC_INT, 0),
	SIX(F_DATE_, , GH_M_INT, VC_INT, 0),
	SIX(F_TIME_, , GH_M_INT, VC_INT, 0),
	SIX(F_TIMESTAMP_, , GH_M_INT, VC_INT, 0),
	SIX(F_TIMESTAMPTZ_, , GH_M_INT, VC_INT, 0),
	SIX(F_DATE_, _TIMESTAMP, GH_M_DATE_TS, VC_INT, 0),
	SIX(F_TIMESTAMP_, _DATE, GH_M_TS_DATE, VC_INT, 0),
	SIX(F_FLOAT4, , GH_M_FLOAT, VC_FLOAT, 0),
	SIX(F_FLOAT8, , GH_M_FLOAT, VC_FLOAT, 0),
	SIX(F_FLOAT48, , GH_M_FLOAT, VC_FLOAT, 0),
	SIX(F_FLOAT84, , GH_M_FLOAT, VC_FLOAT, 0),
	SIX(F_NUMERIC_, , GH_M_NUMERIC, VC_NUMERIC, 0),
	{F_OIDLT, GH_M_INT, GH_LT, VC_INT, 0}, {F_OIDLE, GH_M_INT, GH_LE, VC_INT, 0},
	{F_OIDEQ, GH_M_INT, GH_EQ, VC_INT, 0}, {F_OIDNE, GH_M_INT, GH_NE, VC_INT, 0},
	{F_OIDGE, GH_M_INT, GH_GE, VC_INT, 0}, {F_OIDGT, GH_M_INT, GH_GT, VC_INT, 0},
	{F_BOOLEQ, GH_M_INT, GH_EQ, VC_INT, 0}, {F_BOOLNE, GH_M_INT, GH_NE, VC_INT, 0},
	{F_TEXTEQ, GH_M_TEXT, GH_EQ, VC_TEXT, 0}, {F_TEXTNE, GH_M_TEXT, GH_NE, VC_TEXT, 0},
	{F_TEXT_LT, GH_M_TEXT, GH_LT, VC_TEXT, 1}, {F_TEXT_LE, GH_M_TEXT, GH_LE, VC_TEXT, 1},
	{F_TEXT_GE, GH_M_TEXT, GH_GE, VC_TEXT, 1}, {F_TEXT_GT, GH_M_TEXT, GH_GT, VC_TEXT, 1},
	{F_BPCHAREQ, GH_M_BPCHAR, GH_EQ, VC_BPCHAR, 0}, {F_BPCHARNE, GH_M_BPCHAR, GH_NE, VC_BPCHAR, 0},
	{F_BPCHARLT, GH_M_BPCHAR, GH_LT, VC_BPCHAR, 1}, {F_BPCHARLE, GH_M_BPCHAR, GH_LE, VC_BPCHAR, 1},
	{F_BPCHARGE, GH_M_BPCHAR, GH_GE, VC_BPCHAR, 1}, {F_BPCHARGT, GH_M_BPCHAR, GH_GT, VC_BPCHAR, 1},
};

/* Arithmetic inside comparisons: op is a gh_qop. */
static const struct
{
	Oid			fn;
	uint8		op;
	uint8		mode;
}			arith_funcs[] = {
	{F_INT4PL, GH_Q_ADD, GH_M_INT4}, {F_INT4MI, GH_Q_SUB, GH_M_INT4}, {F_INT4MUL, GH_Q_MUL, GH_M_INT4},
	{F_INT8PL, GH_Q_ADD, GH_M_INT8}, {F_INT8MI, GH_Q_SUB, GH_M_INT8}, {F_INT8MUL, GH_Q_MUL, GH_M_INT8},
	{F_INT48PL, GH_Q_ADD, GH_M_INT8}, {F_INT48MI, GH_Q_SUB, GH_M_INT8}, {F_INT48MUL, GH_Q_MUL, GH_M_INT8},
	{F_INT84PL, GH_Q_ADD, GH_M_INT8}, {F_INT84MI, GH_Q_SUB, GH_M_INT8}, {F_INT84MUL, GH_Q_MUL, GH_M_INT8},
	{F_DATE_PLI, GH_Q_ADD, GH_M_DATE_INT}, {F_DATE_MII, GH_Q_SUB, GH_M_DATE_INT},
};



/* How the walker reads a value of type typid (a domain: its base type). */
gh_col_type
gpuhash_qual_col_type(Oid typid)
{
	switch (getBaseType(typid))
	{
		case INT2OID:
			return GH_T_INT2;
		case INT4OID:
			return GH_T_INT4;
		case INT8OID:
			return GH_T_INT8;
		case OIDOID:
			return GH_T_OID;
		case BOOLOID:
			return GH_T_BOOL;
		case FLOAT4OID:
			return GH_T_FLOAT4;
		case FLOAT8OID:
			return GH_T_FLOAT8;
		case DATEOID:
			return GH_T_DATE;
		case TIMEOID:
			return GH_T_TIME;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return GH_T_TIMESTAMP;
		case NUMERICOID:
			return GH_T_NUMERIC;
		case TEXTOID:
		case VARCHAROID:
			return GH_T_TEXT;
		case BPCHAROID:
			return GH_T_BPCHAR;
		default:
			return GH_T_SKIP;
	}
}

static ValClass
class_of(gh_col_type t)
{
	switch (t)
	{
		case GH_T_FLOAT4:
		case GH_T_FLOAT8:
			return VC_FLOAT;
		case GH_T_NUMERIC:
			return VC_NUMERIC;
		case GH_T_TEXT:
			return VC_TEXT;
		case GH_T_BPCHAR:
			return VC_BPCHAR;
		case GH_T_SKIP:
			return VC_NONE;
		default:
			return VC_INT;
	}
}

bool
gpuhash_qual_emit(QualCompiler *qc, uint8 op, uint8 b, uint8 c, uint32 a)
{
	gh_qinsn   *in;

	if (*qc->ninsns >= qc->max_insns)
		return false;
	in = &qc->insn[(*qc->ninsns)++];
	in->op = op;
	in->b = b;
	in->c = c;
	in->pad = 0;
	in->a = a;
	return true;
}

/* Room for len bytes in the pool, 8-aligned: its offset, or -1. */
static int64
pool_alloc(QualCompiler *qc, uint32 len)
{
	uint32		off = TYPEALIGN(8, qc->s->pool_bytes);

	if ((uint64) off + len > GH_PAGE_POOL_BYTES)
		return -1;
	qc->s->pool_bytes = off + len;
	return off;
}

/*
 * A non-NULL constant of walker type t as GH_Q_CONST lays it out, in the
 * pool: by-value types 8 bytes, numeric its varlena (4-byte header),
 * strings a uint32 length then the bytes.  Its offset, or -1.
 */
static int64
pool_constant(QualCompiler *qc, gh_col_type t, Datum d)
{
	int64		off;

	if (t == GH_T_NUMERIC || t == GH_T_TEXT || t == GH_T_BPCHAR)
	{
		struct varlena *v = pg_detoast_datum((struct varlena *) DatumGetPointer(d));
		uint32		len = VARSIZE(v) - VARHDRSZ;

		if (t == GH_T_NUMERIC)
		{
			if ((off = pool_alloc(qc, VARSIZE(v))) >= 0)
				memcpy(qc->s->pool + off, v, VARSIZE(v));
			return off;
		}
		if ((off = pool_alloc(qc, sizeof(uint32) + len)) >= 0)
		{
			memcpy(qc->s->pool + off, &len, sizeof(uint32));
			memcpy(qc->s->pool + off + sizeof(uint32), VARDATA(v), len);
		}
		return off;
	}
	if ((off = pool_alloc(qc, 8)) < 0)
		return -1;
	{
		int64		i = 0;
		double		f;

		switch (t)
		{
			case GH_T_INT2:
				i = DatumGetInt16(d);
				break;
			case GH_T_INT4:
			case GH_T_DATE:
				i = DatumGetInt32(d);
				break;
			case GH_T_OID:
				i = DatumGetObjectId(d);
				break;
			case GH_T_BOOL:
				i = DatumGetBool(d) ? 1 : 0;
				break;
			case GH_T_FLOAT4:
			case GH_T_FLOAT8:
				f = t == GH_T_FLOAT4 ? (double) DatumGetFloat4(d) : DatumGetFloat8(d);
				memcpy(&i, &f, sizeof(i));
				break;
			default:
				i = DatumGetInt64(d);
				break;
		}
		memcpy(qc->s->pool + off, &i, 8);
	}
	return off;
}

/* Column att (1-based) is read: its walker type, or GH_T_SKIP if it cannot be. */
gh_col_type
gpuhash_qual_need_column(QualCompiler *qc, AttrNumber attno)
{
	Form_pg_attribute att;
	gh_col_type t;

	if (qc->desc == NULL)
		return GH_T_SKIP;
	if (attno <= 0 || attno > qc->desc->natts || attno > GH_PAGE_MAX_ATTS)
		return GH_T_SKIP;
	att = TupleDescAttr(qc->desc, attno - 1);
	if (att->attisdropped || (t = gpuhash_qual_col_type(att->atttypid)) == GH_T_SKIP)
		return GH_T_SKIP;
	qc->s->col[attno - 1].type = t;
	if (attno > qc->s->natts)
		qc->s->natts = attno;
	return t;
}

/* A scalar operand; its class, VC_NONE if the walker cannot compute it. */
static ValClass
compile_scalar(QualCompiler *qc, Node *n)
{
	if (IsA(n, RelabelType))
		return compile_scalar(qc, (Node *) ((RelabelType *) n)->arg);
	if (IsA(n, Var))
	{
		Var		   *v = (Var *) n;
		gh_col_type t;
		int			col;

		if (v->varlevelsup != 0)
			return VC_NONE;
		if (v->varno != qc->relid)
		{
			/* an inner side's column, where the program has one */
			if (qc->inner_col == NULL ||
				(col = qc->inner_col(v, qc->inner_arg, &t)) < 0 || t == GH_T_SKIP)
				return VC_NONE;
		}
		else if (qc->desc == NULL)
		{
			/* the planner's check: the column's type decides */
			if (v->varattno <= 0 || v->varattno > GH_PAGE_MAX_ATTS ||
				(t = gpuhash_qual_col_type(v->vartype)) == GH_T_SKIP)
				return VC_NONE;
			col = v->varattno - 1;
		}
		else
		{
			if ((t = gpuhash_qual_need_column(qc, v->varattno)) == GH_T_SKIP)
				return VC_NONE;
			col = v->varattno - 1;
		}
		return gpuhash_qual_emit(qc, GH_Q_COL, 0, 0, (uint32) col) ? class_of(t) : VC_NONE;
	}
	if (IsA(n, Const))
	{
		Const	   *c = (Const *) n;
		gh_col_type t = gpuhash_qual_col_type(c->consttype);
		int64		off;

		if (t == GH_T_SKIP)
			return VC_NONE;
		if (c->constisnull)
			return gpuhash_qual_emit(qc, GH_Q_NULL, 0, 0, 0) ? class_of(t) : VC_NONE;
		if ((off = pool_constant(qc, t, c->constvalue)) < 0)
			return VC_NONE;
		return gpuhash_qual_emit(qc, GH_Q_CONST, t, 0, (uint32) off) ? class_of(t) : VC_NONE;
	}
	if (IsA(n, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) n;
		Oid			fn = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);

		if (list_length(op->args) != 2)
			return VC_NONE;
		for (int i = 0; i < lengthof(arith_funcs); i++)
		{
			if (arith_funcs[i].fn != fn)
				continue;
			if (compile_scalar(qc, linitial(op->args)) != VC_INT ||
				compile_scalar(qc, lsecond(op->args)) != VC_INT)
				return VC_NONE;
			return gpuhash_qual_emit(qc, arith_funcs[i].op, arith_funcs[i].mode, 0, 0) ? VC_INT : VC_NONE;
		}
	}
	return VC_NONE;
}

static const QualFunc *
cmp_func(Oid fn)
{
	for (int i = 0; i < lengthof(cmp_funcs); i++)
		if (cmp_funcs[i].fn == fn)
			return &cmp_funcs[i];
	return NULL;
}

/* Bytes decide a string comparison: equality under a deterministic collation, order under C. */
static bool
collation_ok(const QualFunc *qf, Oid collid)
{
	if (qf->cls != VC_TEXT && qf->cls != VC_BPCHAR)
		return true;
	if (!OidIsValid(collid))
		return false;
	if (qf->c_only)
		return collid == C_COLLATION_OID || lc_collate_is_c(collid);
	return get_collation_isdeterministic(collid);
}

static bool
compile_comparison(QualCompiler *qc, OpExpr *op)
{
	Oid			fn = OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
	const QualFunc *qf = cmp_func(fn);

	if (fn == F_TEXTLIKE || fn == F_TEXTNLIKE)
	{
		Const	   *p = lsecond(op->args);
		text	   *pat;
		int64		off;

		/* '_' is one character: bytes in single-byte encodings, UTF-8's otherwise */
		if (!IsA(p, Const) || p->constisnull || !OidIsValid(op->inputcollid) ||
			!get_collation_isdeterministic(op->inputcollid) ||
			(pg_database_encoding_max_length() > 1 && GetDatabaseEncoding() != PG_UTF8))
			return false;
		pat = DatumGetTextPP(p->constvalue);
		/* an escape (and its errors) stays PostgreSQL's */
		if (memchr(VARDATA_ANY(pat), '\\', VARSIZE_ANY_EXHDR(pat)) != NULL)
			return false;
		if (compile_scalar(qc, linitial(op->args)) != VC_TEXT ||
			(off = pool_constant(qc, GH_T_TEXT, p->constvalue)) < 0)
			return false;
		return gpuhash_qual_emit(qc, GH_Q_LIKE, GetDatabaseEncoding() == PG_UTF8 ? 1 : 0,
					fn == F_TEXTNLIKE ? 1 : 0, (uint32) off);
	}
	if (qf == NULL || list_length(op->args) != 2 || !collation_ok(qf, op->inputcollid))
		return false;
	if (compile_scalar(qc, linitial(op->args)) != qf->cls ||
		compile_scalar(qc, lsecond(op->args)) != qf->cls)
		return false;
	return gpuhash_qual_emit(qc, GH_Q_CMP, qf->mode, qf->cmp, 0);
}

/* x = ANY (constant array), and x <> ALL (...) as its negation. */
static bool
compile_in_list(QualCompiler *qc, ScalarArrayOpExpr *sa)
{
	Oid			fn = OidIsValid(sa->opfuncid) ? sa->opfuncid : get_opcode(sa->opno);
	const QualFunc *qf = cmp_func(fn);
	Const	   *c = lsecond(sa->args);
	ArrayType  *arr;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	gh_col_type et;
	int64		head;
	uint32		has_null = 0;

	if (qf == NULL || !collation_ok(qf, sa->inputcollid) || !IsA(c, Const) || c->constisnull ||
		!(sa->useOr ? qf->cmp == GH_EQ : qf->cmp == GH_NE))
		return false;
	arr = DatumGetArrayTypeP(c->constvalue);
	if ((et = gpuhash_qual_col_type(ARR_ELEMTYPE(arr))) == GH_T_SKIP || class_of(et) != qf->cls)
		return false;
	if (compile_scalar(qc, linitial(sa->args)) != qf->cls)
		return false;
	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), typlen, typbyval, typalign, &elems, &nulls, &n);
	if ((head = pool_alloc(qc, 2 * sizeof(uint32))) < 0)
		return false;
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			has_null = 1;
		else if (pool_constant(qc, et, elems[i]) < 0)
			return false;
	}
	{
		uint32		count = 0;

		for (int i = 0; i < n; i++)
			count += nulls[i] ? 0 : 1;
		memcpy(qc->s->pool + head, &count, sizeof(uint32));
		memcpy(qc->s->pool + head + sizeof(uint32), &has_null, sizeof(uint32));
	}
	if (!gpuhash_qual_emit(qc, GH_Q_IN, qf->mode, 0, (uint32) head))
		return false;
	return sa->useOr || gpuhash_qual_emit(qc, GH_Q_NOT, 0, 0, 0);
}

/* A boolean-valued expression: the program pushes its value. */
bool
gpuhash_qual_compile_bool(QualCompiler *qc, Node *n)
{
	if (n == NULL)
		return false;
	if (IsA(n, BoolExpr))
	{
		BoolExpr   *be = (BoolExpr *) n;
		ListCell   *lc;

		foreach(lc, be->args)
			if (!gpuhash_qual_compile_bool(qc, lfirst(lc)))
				return false;
		if (be->boolop == NOT_EXPR)
			return list_length(be->args) == 1 && gpuhash_qual_emit(qc, GH_Q_NOT, 0, 0, 0);
		return gpuhash_qual_emit(qc, be->boolop == AND_EXPR ? GH_Q_AND : GH_Q_OR, 0, 0, list_length(be->args));
	}
	if (IsA(n, NullTest))
	{
		NullTest   *nt = (NullTest *) n;

		if (nt->argisrow || type_is_rowtype(exprType((Node *) nt->arg)))
			return false;
		if (compile_scalar(qc, (Node *) nt->arg) == VC_NONE)
			return false;
		return gpuhash_qual_emit(qc, nt->nulltesttype == IS_NULL ? GH_Q_IS_NULL : GH_Q_IS_NOT_NULL, 0, 0, 0);
	}
	if (IsA(n, BooleanTest))
	{
		BooleanTest *bt = (BooleanTest *) n;

		if (!gpuhash_qual_compile_bool(qc, (Node *) bt->arg))
			return false;
		switch (bt->booltesttype)
		{
			case IS_TRUE:
				return gpuhash_qual_emit(qc, GH_Q_IS_TRUE, 0, 0, 0);
			case IS_NOT_TRUE:
				return gpuhash_qual_emit(qc, GH_Q_IS_TRUE, 0, 0, 0) && gpuhash_qual_emit(qc, GH_Q_NOT, 0, 0, 0);
			case IS_FALSE:
				return gpuhash_qual_emit(qc, GH_Q_IS_FALSE, 0, 0, 0);
			case IS_NOT_FALSE:
				return gpuhash_qual_emit(qc, GH_Q_IS_FALSE, 0, 0, 0) && gpuhash_qual_emit(qc, GH_Q_NOT, 0, 0, 0);
			case IS_UNKNOWN:
				return gpuhash_qual_emit(qc, GH_Q_IS_NULL, 0, 0, 0);
			case IS_NOT_UNKNOWN:
				return gpuhash_qual_emit(qc, GH_Q_IS_NOT_NULL, 0, 0, 0);
		}
		return false;
	}
	if (IsA(n, OpExpr))
		return compile_comparison(qc, (OpExpr *) n);
	if (IsA(n, ScalarArrayOpExpr))
		return compile_in_list(qc, (ScalarArrayOpExpr *) n);
	if (IsA(n, Var) || IsA(n, Const))
		return exprType(n) == BOOLOID && compile_scalar(qc, n) == VC_INT;
	return false;
}
