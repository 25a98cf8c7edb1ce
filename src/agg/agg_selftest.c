/*
 * agg_selftest.c
 *		A test-only SQL function that checks agg_states.c against
 *		PostgreSQL's own aggregate machinery: the partial states the GPU
 *		aggregate would hand (from gh_agg_state values folded as the core
 *		folds, or from single rows as a refused page's) are deserialized,
 *		combined and finalized by the aggregate's own functions, and the
 *		result is returned as text, to be compared in SQL with the aggregate
 *		run by PostgreSQL over the same values.
 *
 * Not part of the extension's SQL: sql/gpuhash_agg_states.sql creates it
 * (superuser, LANGUAGE C) for the test's duration:
 *	gpuhash_agg_selftest(agg regprocedure, vals text[], typmod int4,
 *						 expr text, splits int4, path text) RETURNS text
 *	expr: 'col', 'mul', 'mul_one_minus' or 'mul3' (a * (1 - b) * (1 + c));
 *	for the products each element of vals is 'a,b[,c]' ('null' a NULL).
 *	path: 'states' (vals folded into `splits` GPU states) or 'rows'.
 *	Returns 'declined: <why>' where gpuhash_agg_supported declines, and
 *	'fallback' where a state would fall back to the CPU.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "agg_catalog.h"

PG_FUNCTION_INFO_V1(gpuhash_agg_selftest);

typedef struct SelfRow
{
	Datum		v[3];
	bool		n[3];
} SelfRow;

/* ---- folding rows into a gh_agg_state as the core does ---- */

static void
state_add128(gh_agg_state *st, __int128 x)
{
	unsigned __int128 lo = ((unsigned __int128) st->sum[1] << 64) | st->sum[0];
	unsigned __int128 add = (unsigned __int128) x;
	unsigned __int128 r = lo + add;
	uint64		carry = r < lo ? 1 : 0;

	st->sum[0] = (uint64) r;
	st->sum[1] = (uint64) (r >> 64);
	st->sum[2] += carry + (x < 0 ? ~UINT64CONST(0) : 0);
}

/* A finite numeric as an integer at scale, and its display scale; false
 * if it has nonzero digits beyond scale or does not fit 2^126. */
static bool
numeric_fixed(Datum num, int scale, __int128 *out, int *dscale)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, num));
	char	   *dot = strchr(s, '.');
	const char *ip = s[0] == '-' ? s + 1 : s;
	const char *fp = dot ? dot + 1 : "";
	int			ilen = dot ? (int) (dot - ip) : (int) strlen(ip),
				flen = (int) strlen(fp);
	__int128	v = 0,
				lim = (__int128) 1 << 126;

	*dscale = flen;
	for (int i = 0; i < ilen + scale; i++)
	{
		char		c = i < ilen ? ip[i] : (i - ilen < flen ? fp[i - ilen] : '0');

		if (v >= lim / 10)
			return false;
		v = v * 10 + (c - '0');
	}
	for (int i = scale; i < flen; i++)
		if (fp[i] != '0')
			return false;
	*out = s[0] == '-' ? -v : v;
	return true;
}

/* float8_cmp_internal's order as an int64 key (NaN above everything) */
static int64
float_key(double d)
{
	int64		b;

	if (isnan(d))
		return PG_INT64_MAX;
	memcpy(&b, &d, 8);
	return b >= 0 ? b : b ^ PG_INT64_MAX;
}

static void
fold_row(const GpuAggSupport *s, gh_agg_state *st, const SelfRow *r)
{
	bool		null = r->n[0];
	Datum		v = r->v[0];
	double		d;

	if (s->fn == GH_AGG_COUNT_STAR)
	{
		st->count++;
		return;
	}
	if (s->expr != GH_AGG_E_COL)
		null = null || r->n[1] || (s->expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && r->n[2]);
	if (null)
		return;
	if (s->fn == GH_AGG_COUNT)
	{
		st->count++;
		return;
	}
	if (s->input_type == NUMERICOID)
	{
		Datum		x = v;
		__int128	f;
		int			ds;

		if (s->expr != GH_AGG_E_COL)
		{
			/* the product as PostgreSQL computes it (core_agg checks that
			 * the core's equals it) */
			Datum		one = NumericGetDatum(int64_to_numeric(1));

			x = DirectFunctionCall2(numeric_mul, v,
									s->expr == GH_AGG_E_MUL ? r->v[1] :
									DirectFunctionCall2(numeric_sub, one, r->v[1]));
			if (s->expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
				x = DirectFunctionCall2(numeric_mul, x,
										DirectFunctionCall2(numeric_add, one, r->v[2]));
		}
		if (numeric_is_nan(DatumGetNumeric(x)))
			st->nan++;
		else if (numeric_is_inf(DatumGetNumeric(x)))
		{
			if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, x,
												  NumericGetDatum(int64_to_numeric(0)))) > 0)
				st->pinf++;
			else
				st->ninf++;
		}
		else if (!numeric_fixed(x, s->scale, &f, &ds))
			st->flags |= GH_AGG_S_FALLBACK;
		else
		{
			if ((uint32) ds > st->dscale)
			{
				st->dscale = ds;
				st->dscale_count = 1;
			}
			else if ((uint32) ds == st->dscale)
				st->dscale_count++;
			state_add128(st, f);
			st->count++;
		}
		return;
	}
	st->count++;
	switch (s->input_type)
	{
		case FLOAT4OID:
		case FLOAT8OID:
			d = s->input_type == FLOAT4OID ? DatumGetFloat4(v) : DatumGetFloat8(v);
			if (s->fn == GH_AGG_MIN || s->fn == GH_AGG_MAX)
			{
				int64		k = float_key(d),
							cur = (int64) st->mm;

				if (st->count == 1 || (s->fn == GH_AGG_MIN ? k < cur : k > cur))
					st->mm = (uint64) k;
			}
			else if (s->input_type == FLOAT4OID && s->fn == GH_AGG_SUM)
			{
				float		o = (float) st->fsum,
							r4 = o + (float) d;

				if (isinf(r4) && !isinf(o) && !isinf(d))
					st->flags |= GH_AGG_S_FLOAT_OVERFLOW;
				st->fsum = r4;
			}
			else
			{
				double		o = st->fsum;

				st->fsum = o + d;
				if (isinf(st->fsum) && !isinf(o) && !isinf(d))
					st->flags |= GH_AGG_S_FLOAT_OVERFLOW;
			}
			return;
		default:
			{
				int64		i = s->input_type == INT2OID ? DatumGetInt16(v) :
					s->input_type == INT4OID ? DatumGetInt32(v) :
					s->input_type == DATEOID ? DatumGetDateADT(v) : DatumGetInt64(v);

				if (s->fn == GH_AGG_MIN)
					st->mm = (uint64) (st->count == 1 || i < (int64) st->mm ? i : (int64) st->mm);
				else if (s->fn == GH_AGG_MAX)
					st->mm = (uint64) (st->count == 1 || i > (int64) st->mm ? i : (int64) st->mm);
				else
					state_add128(st, i);
			}
	}
}

/* float min/max back from their key to a double's bits (after the fold) */
static void
finish_state(const GpuAggSupport *s, gh_agg_state *st)
{
	if ((s->input_type == FLOAT4OID || s->input_type == FLOAT8OID) &&
		(s->fn == GH_AGG_MIN || s->fn == GH_AGG_MAX) && st->count > 0)
	{
		int64		k = (int64) st->mm;

		if (k == PG_INT64_MAX)
			st->mm = UINT64CONST(0x7FF8000000000000);
		else
			st->mm = (uint64) (k >= 0 ? k : k ^ PG_INT64_MAX);
	}
}

/* ---- the aggregate's own combine and final functions ---- */

typedef struct Finisher
{
	AggState   *agg;
	Oid			combinefn,
				deserialfn,
				finalfn;
	bool		combine_strict;
	Datum		state;
	bool		state_null;
} Finisher;

static Datum
call_fn(Finisher *f, Oid fn, int nargs, Datum a0, bool n0, Datum a1, bool n1, bool *isnull)
{
	FmgrInfo	flinfo;
	LOCAL_FCINFO(fcinfo, 2);
	Datum		r;

	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, nargs, InvalidOid, (Node *) f->agg, NULL);
	fcinfo->args[0].value = a0;
	fcinfo->args[0].isnull = n0;
	fcinfo->args[1].value = a1;
	fcinfo->args[1].isnull = n1;
	r = FunctionCallInvoke(fcinfo);
	*isnull = fcinfo->isnull;
	return r;
}

/* One partial state into the running state, as a Finalize Aggregate does. */
static void
combine_partial(Finisher *f, Datum p, bool pnull)
{
	bool		isnull;

	if (!pnull && OidIsValid(f->deserialfn))
		p = call_fn(f, f->deserialfn, 2, p, false, (Datum) 0, false, &isnull);
	if (f->combine_strict)
	{
		if (pnull)
			return;
		if (f->state_null)
		{
			f->state = p;
			f->state_null = false;
			return;
		}
	}
	f->state = call_fn(f, f->combinefn, 2, f->state, f->state_null, p, pnull, &isnull);
	f->state_null = isnull;
}

static Node *
arg_var(Oid type, int32 typmod, AttrNumber attno)
{
	return (Node *) makeVar(1, attno, type, typmod, InvalidOid, 0);
}

static Node *
numeric_op(Oid fn, Node *a, Node *b)
{
	OpExpr	   *op = makeNode(OpExpr);

	op->opfuncid = fn;
	op->opresulttype = NUMERICOID;
	op->args = list_make2(a, b);
	return (Node *) op;
}

Datum
gpuhash_agg_selftest(PG_FUNCTION_ARGS)
{
	Oid			aggfn = PG_GETARG_OID(0);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int32		typmod = PG_GETARG_INT32(2);
	char	   *expr = text_to_cstring(PG_GETARG_TEXT_PP(3));
	int			splits = Max(PG_GETARG_INT32(4), 1);
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(5));
	Oid			argtype = InvalidOid,
				rettype = get_func_rettype(aggfn),
				typinput,
				typioparam;
	Datum	   *elems;
	bool	   *enulls;
	int			nelems;
	Aggref	   *aggref = makeNode(Aggref);
	GpuAggSupport s;
	const char *why;
	HeapTuple	tup;
	Form_pg_aggregate aform;
	Finisher	f;
	Datum		initval;
	bool		initnull;
	SelfRow    *rows;
	Node	   *arg;
	Datum		result;
	bool		rnull;

	if (get_func_nargs(aggfn) == 1)
	{
		Oid		   *types;
		int			n;

		get_func_signature(aggfn, &types, &n);
		argtype = types[0];
	}
	/* count(any): read the values as text */
	if (argtype == ANYOID)
		argtype = TEXTOID;

	/* the aggregate over column 1 (or the product over columns 1, 2, 3) */
	aggref->aggfnoid = aggfn;
	aggref->aggtype = rettype;
	aggref->aggstar = argtype == InvalidOid;
	aggref->aggkind = AGGKIND_NORMAL;
	if (strcmp(expr, "col") == 0)
		arg = arg_var(argtype, typmod, 1);
	else
	{
		Node	   *one = (Node *) makeConst(NUMERICOID, -1, InvalidOid, -1,
											 NumericGetDatum(int64_to_numeric(1)), false, false);

		if (strcmp(expr, "mul") == 0)
			arg = numeric_op(F_NUMERIC_MUL, arg_var(NUMERICOID, typmod, 1),
							 arg_var(NUMERICOID, typmod, 2));
		else
		{
			arg = numeric_op(F_NUMERIC_MUL, arg_var(NUMERICOID, typmod, 1),
							 numeric_op(F_NUMERIC_SUB, one, arg_var(NUMERICOID, typmod, 2)));
			if (strcmp(expr, "mul3") == 0)
				arg = numeric_op(F_NUMERIC_MUL, arg,
								 numeric_op(F_NUMERIC_ADD, one, arg_var(NUMERICOID, typmod, 3)));
		}
		argtype = NUMERICOID;
	}
	if (!aggref->aggstar)
		aggref->args = list_make1(makeTargetEntry((Expr *) arg, 1, NULL, false));
	if (!gpuhash_agg_supported(aggref, 1, &s, &why))
		PG_RETURN_TEXT_P(cstring_to_text(psprintf("declined: %s", why)));

	/* the rows: each element one value, or 'a,b[,c]' for a product */
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
	rows = palloc0(sizeof(SelfRow) * Max(nelems, 1));
	if (OidIsValid(argtype))
		getTypeInputInfo(argtype, &typinput, &typioparam);
	for (int i = 0; i < nelems; i++)
	{
		char	   *str = enulls[i] ? NULL : TextDatumGetCString(elems[i]);
		char	   *part[3] = {str, NULL, NULL};

		if (str && strcmp(expr, "col") != 0)
		{
			for (int k = 1; k < 3 && part[k - 1]; k++)
			{
				part[k] = strchr(part[k - 1], ',');
				if (part[k])
					*part[k]++ = '\0';
			}
		}
		for (int k = 0; k < 3; k++)
		{
			rows[i].n[k] = part[k] == NULL || strcmp(part[k], "null") == 0;
			if (!rows[i].n[k] && OidIsValid(argtype))
				rows[i].v[k] = OidInputFunctionCall(typinput, part[k], typioparam, typmod);
		}
	}

	/* a Finalize Aggregate's state, from the aggregate's initial value */
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfn);
	aform = (Form_pg_aggregate) GETSTRUCT(tup);
	f.agg = makeNode(AggState);
	f.agg->curaggcontext = CreateStandaloneExprContext();
	f.combinefn = aform->aggcombinefn;
	f.deserialfn = aform->aggdeserialfn;
	f.finalfn = aform->aggfinalfn;
	f.combine_strict = func_strict(f.combinefn);
	initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	f.state_null = initnull;
	f.state = (Datum) 0;
	if (!initnull)
	{
		Oid			tin,
					tio;

		getTypeInputInfo(aform->aggtranstype, &tin, &tio);
		f.state = OidInputFunctionCall(tin, TextDatumGetCString(initval), tio, -1);
	}
	ReleaseSysCache(tup);

	if (strcmp(path, "rows") == 0)
	{
		for (int i = 0; i < nelems; i++)
		{
			Datum		p = gpuhash_agg_row_datum(&s, rows[i].v, rows[i].n, &rnull);

			combine_partial(&f, p, rnull);
		}
	}
	else
	{
		for (int k = 0; k < splits; k++)
		{
			gh_agg_state st;
			Datum		p;

			memset(&st, 0, sizeof(st));
			for (int i = k; i < nelems; i += splits)
				fold_row(&s, &st, &rows[i]);
			finish_state(&s, &st);
			if (st.flags & GH_AGG_S_FALLBACK)
				PG_RETURN_TEXT_P(cstring_to_text("fallback"));
			p = gpuhash_agg_state_datum(&s, &st, &rnull);
			combine_partial(&f, p, rnull);
		}
	}

	/* the final function */
	result = f.state;
	rnull = f.state_null;
	if (OidIsValid(f.finalfn) && !(rnull && func_strict(f.finalfn)))
		result = call_fn(&f, f.finalfn, 1, f.state, f.state_null, (Datum) 0, true, &rnull);
	if (rnull)
		PG_RETURN_NULL();
	{
		Oid			tout;
		bool		varlena;

		getTypeOutputInfo(rettype, &tout, &varlena);
		PG_RETURN_TEXT_P(cstring_to_text(OidOutputFunctionCall(tout, result)));
	}
}

/* A packed key of kw words shifted left by n bits (1..64), x's low n bits put in. */
static void
push_bits(uint64 *w, int kw, uint64 x, int n)
{
	if (n < 64)
		x &= (UINT64CONST(1) << n) - 1;
	for (int i = 0; i < kw - 1; i++)
		w[i] = n >= 64 ? w[i + 1] : (w[i] << n) | (w[i + 1] >> (64 - n));
	w[kw - 1] = n >= 64 ? x : (w[kw - 1] << n) | x;
}

/*
 * gpuhash_agg_key_selftest(typ regtype, typmod int4, vals text[]) RETURNS
 * text[]: each value as a group key of a column of that type, in the slot
 * gpuhash_agg_key_slots gives it alone, packed as the core packs it (above
 * an 8-bit neighbour, so that the shift is exercised: in one, two or
 * GH_AGG_KEY_WORDS words, as gh_agg_key_words counts them), then turned back into a
 * Datum by
 * gpuhash_agg_key_datum and output: equal to the value as the column would
 * hold it.  'refused' for a value too long for the key, 'declined: ...'
 * where gpuhash_agg_key_supported declines the type.
 */
PG_FUNCTION_INFO_V1(gpuhash_agg_key_selftest);

Datum
gpuhash_agg_key_selftest(PG_FUNCTION_ARGS)
{
	Oid			type = PG_GETARG_OID(0);
	int32		typmod = PG_GETARG_INT32(1);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(2);
	Oid			coll = get_typcollation(type);
	Var		   *var = makeVar(1, 1, type, typmod, coll, 0);
	uint8		conv,
				cw;
	int			width,
				kw;
	const char *why;
	Datum	   *elems;
	bool	   *enulls;
	int			nelems;
	Datum	   *out;
	Oid			typinput,
				typioparam,
				typoutput;
	bool		varlena;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
	out = palloc0(sizeof(Datum) * Max(nelems, 1));
	if (!gpuhash_agg_key_supported((Expr *) var, 1, &conv, &cw, &why))
	{
		for (int i = 0; i < nelems; i++)
			out[i] = CStringGetTextDatum(psprintf("declined: %s", why));
		PG_RETURN_ARRAYTYPE_P(construct_array(out, nelems, TEXTOID, -1, false, TYPALIGN_INT));
	}
	width = cw;
	if (!gpuhash_agg_key_slots(1, &conv, &typmod, &width))
		elog(ERROR, "gpuhash: no slot for a key of type %u", type);
	kw = width + 8 <= 64 ? 1 : width + 8 <= 128 ? 2 : GH_AGG_KEY_WORDS;
	getTypeInputInfo(type, &typinput, &typioparam);
	getTypeOutputInfo(type, &typoutput, &varlena);
	for (int i = 0; i < nelems; i++)
	{
		Datum		v = OidInputFunctionCall(typinput, TextDatumGetCString(elems[i]),
											 typioparam, typmod);
		uint64		x = 0;
		int			shift = width + 8 <= GH_AGG_KEY_MAX_BITS ? 8 : 0;
		uint64		packed[GH_AGG_KEY_WORDS];
		bool		isnull;

		memset(packed, 0, sizeof(packed));
		if (conv == GH_AGG_KEY_BPCHAR || conv == GH_AGG_KEY_TEXT)
		{
			text	   *t = DatumGetTextPP(v);
			const char *p = VARDATA_ANY(t);
			int			len = VARSIZE_ANY_EXHDR(t);

			while (conv == GH_AGG_KEY_BPCHAR && len > 0 && p[len - 1] == ' ')
				len--;
			if (len * 8 > width)
			{
				out[i] = CStringGetTextDatum("refused");
				continue;
			}
			for (int j = 0; j < width / 8; j++)
				push_bits(packed, kw, j < len ? (uint8) p[j] : 0, 8);
		}
		else
			switch (type)
			{
				case INT2OID:
					x = (uint64) (int64) DatumGetInt16(v);
					break;
				case INT4OID:
				case DATEOID:
					x = (uint64) (int64) DatumGetInt32(v);
					break;
				case OIDOID:
					x = DatumGetObjectId(v);
					break;
				case BOOLOID:
					x = DatumGetBool(v) ? 1 : 0;
					break;
				default:
					x = (uint64) DatumGetInt64(v);
			}
		if (conv != GH_AGG_KEY_BPCHAR && conv != GH_AGG_KEY_TEXT)
			push_bits(packed, kw, x, width);
		if (shift)
			push_bits(packed, kw, 0xAB, 8);
		v = gpuhash_agg_key_datum(conv, type, typmod, packed, kw, shift, width, &isnull);
		out[i] = CStringGetTextDatum(OidOutputFunctionCall(typoutput, v));
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nelems, TEXTOID, -1, false, TYPALIGN_INT));
}
