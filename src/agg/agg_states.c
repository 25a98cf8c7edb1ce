/*
 * agg_states.c
 *		The partial states GpuPreAgg hands PostgreSQL's Finalize Aggregate:
 *		for each supported aggregate, the Datum PostgreSQL 15's own Partial
 *		Aggregate (AGGSPLIT_INITIAL_SERIAL) would produce for the same rows,
 *		so that its deserialize, combine and final functions finish them.
 *
 *	count(*), count(x)		int8, the count (0 for no rows)
 *	sum(int2), sum(int4)	int8 (int2_sum/int4_sum add in int64 without an
 *							overflow check, wrapping under -fwrapv: the low 64
 *							bits of the exact sum are what they end with);
 *							NULL without input
 *	sum/avg(int8)			int8_avg_serialize's bytea: N, then sumX as
 *							numericvar_serialize writes it (scale 0)
 *	sum/avg(numeric)		numeric_avg_serialize's bytea: N (finite inputs),
 *							sumX (numericvar_serialize) at the largest input
 *							display scale (accum_sum_add's, which numeric_sum
 *							shows), maxScale, maxScaleCount, NaNcount,
 *							pInfcount, nInfcount
 *	avg(int2), avg(int4)	int8[2] {count, sum}, int4_avg_accum's (its sum
 *							unchecked as well)
 *	sum(float4/float8)		float4/float8 (float4pl/float8pl raise "value out
 *							of range: overflow" when finite inputs give an
 *							infinite sum: GH_AGG_S_FLOAT_OVERFLOW does too)
 *	avg(float4)				float8[3] {N, Sx, Sxx}.  avg's final function
 *							reads N and Sx only; Sxx is 0 when Sx is finite
 *							and NaN otherwise, as float8_accum leaves it after
 *							an infinite or NaN input (an infinite Sxx would
 *							make float8_combine raise an overflow).  float4
 *							inputs cannot overflow Sx or Sxx in float8 (each
 *							below 2^128, fewer than 2^63 of them), so no error
 *							PostgreSQL would raise is lost.
 *	min/max					the type's Datum; NULL without input
 *
 * A sum or avg over no rows is handed as NULL where PostgreSQL would hand an
 * empty state (int8/numeric): its combine and final functions treat both
 * alike.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "agg_catalog.h"

/* ---- numerics ---- */

/* A 192-bit two's complement integer times 10^-scale as a decimal string
 * with exactly dscale digits after the point (the digits dropped, when
 * dscale < scale, must be zeros). */
static char *
sum_to_string(const uint64 w[3], int scale, int dscale)
{
	uint64		m[3];
	bool		neg = (int64) w[2] < 0;
	int			cap = 64 + Max(dscale, 0) + 2;
	char	   *digits = palloc(cap);	/* least significant first */
	char	   *out = palloc(cap + 2);
	int			nd = 0,
				o = 0;

	memcpy(m, w, sizeof(m));
	if (neg)
	{
		/* the magnitude: two's complement negation across the words */
		uint64		carry = 1;

		for (int i = 0; i < 3; i++)
		{
			m[i] = ~m[i] + carry;
			carry = (carry && m[i] == 0) ? 1 : 0;
		}
	}
	while (m[0] | m[1] | m[2])
	{
		unsigned __int128 r = 0;

		for (int i = 2; i >= 0; i--)
		{
			unsigned __int128 cur = (r << 64) | m[i];

			m[i] = (uint64) (cur / 10);
			r = cur % 10;
		}
		digits[nd++] = (char) ('0' + (int) r);
	}
	if (dscale < scale)
	{
		/* the value has no nonzero digits there: each input had none */
		int			drop = Min(scale - dscale, nd);

		for (int i = 0; i < drop; i++)
			if (digits[i] != '0')
				elog(ERROR, "gpuhash: a numeric sum has digits beyond its display scale");
		memmove(digits, digits + drop, nd - drop);
		nd -= drop;
	}
	else if (dscale > scale && nd > 0)
	{
		memmove(digits + (dscale - scale), digits, nd);
		memset(digits, '0', dscale - scale);
		nd += dscale - scale;
	}
	while (nd <= dscale)
		digits[nd++] = '0';

	if (neg && nd > 0)
		out[o++] = '-';
	for (int i = nd - 1; i >= 0; i--)
	{
		out[o++] = digits[i];
		if (i == dscale && dscale > 0)
			out[o++] = '.';
	}
	out[o] = '\0';
	pfree(digits);
	return out;
}

static Datum
numeric_from_string(const char *s)
{
	return DirectFunctionCall3(numeric_in, CStringGetDatum(s),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * A numeric as numeric.c's numericvar_serialize writes it inside PostgreSQL
 * 15's serialized aggregate states: int32 ndigits, weight, sign and dscale,
 * then the base-10000 digits as int16s.  These are numeric_send's fields
 * (which it writes as int16s), so they are taken from its output.
 */
static void
send_numeric(StringInfo buf, Datum num)
{
	bytea	   *b = DatumGetByteaPP(DirectFunctionCall1(numeric_send, num));
	StringInfoData in;
	int			ndigits;

	in.data = VARDATA_ANY(b);
	in.len = VARSIZE_ANY_EXHDR(b);
	in.maxlen = in.len;
	in.cursor = 0;
	ndigits = (uint16) pq_getmsgint(&in, 2);
	pq_sendint32(buf, ndigits);
	pq_sendint32(buf, (int16) pq_getmsgint(&in, 2));	/* weight, signed */
	pq_sendint32(buf, (uint16) pq_getmsgint(&in, 2));	/* sign */
	pq_sendint32(buf, (uint16) pq_getmsgint(&in, 2));	/* dscale */
	for (int i = 0; i < ndigits; i++)
		pq_sendint16(buf, (uint16) pq_getmsgint(&in, 2));
	pq_getmsgend(&in);
}

/* int8_avg_serialize's layout (PostgreSQL 15, int128 or not alike). */
static Datum
int8_state(int64 n, Datum sumx)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, n);
	send_numeric(&buf, sumx);
	return PointerGetDatum(pq_endtypsend(&buf));
}

/* numeric_avg_serialize's layout (PostgreSQL 15). */
static Datum
numeric_state(int64 n, Datum sumx, int32 max_scale, int64 max_scale_count,
			  int64 nan, int64 pinf, int64 ninf)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, n);
	send_numeric(&buf, sumx);
	pq_sendint32(&buf, max_scale);
	pq_sendint64(&buf, max_scale_count);
	pq_sendint64(&buf, nan);
	pq_sendint64(&buf, pinf);
	pq_sendint64(&buf, ninf);
	return PointerGetDatum(pq_endtypsend(&buf));
}

/* ---- arrays ---- */

static Datum
int8_pair(int64 count, int64 sum)
{
	Datum		e[2] = {Int64GetDatum(count), Int64GetDatum(sum)};

	return PointerGetDatum(construct_array(e, 2, INT8OID, sizeof(int64),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
float8_triple(float8 n, float8 sx, float8 sxx)
{
	Datum		e[3] = {Float8GetDatum(n), Float8GetDatum(sx), Float8GetDatum(sxx)};

	return PointerGetDatum(construct_array(e, 3, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* ---- min/max ---- */

static Datum
minmax_datum(Oid type, uint64 mm)
{
	double		d;

	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) (int64) mm);
		case INT4OID:
			return Int32GetDatum((int32) (int64) mm);
		case DATEOID:
			return DateADTGetDatum((DateADT) (int64) mm);
		case FLOAT4OID:
			memcpy(&d, &mm, sizeof(d));
			return Float4GetDatum((float4) d);
		case FLOAT8OID:
			memcpy(&d, &mm, sizeof(d));
			return Float8GetDatum(d);
		default:				/* int8, time, timestamp(tz) */
			return Int64GetDatum((int64) mm);
	}
}

Datum
gpuhash_agg_state_datum(const GpuAggSupport *s, const gh_agg_state *st,
						bool *isnull)
{
	*isnull = false;
	if (st->flags & GH_AGG_S_FALLBACK)
		elog(ERROR, "gpuhash: a GPU aggregate state that must be recomputed on the CPU");
	if (st->flags & GH_AGG_S_FLOAT_OVERFLOW)
		float_overflow_error();

	switch (s->fn)
	{
		case GH_AGG_COUNT_STAR:
		case GH_AGG_COUNT:
			return Int64GetDatum(st->count);
		case GH_AGG_MIN:
		case GH_AGG_MAX:
			if (st->count == 0)
				break;
			return minmax_datum(s->input_type, st->mm);
		default:
			break;
	}
	if (s->fn != GH_AGG_SUM && s->fn != GH_AGG_AVG)
	{
		*isnull = true;
		return (Datum) 0;
	}

	switch (s->input_type)
	{
		case INT2OID:
		case INT4OID:
			if (s->fn == GH_AGG_AVG)
				return int8_pair(st->count, (int64) st->sum[0]);
			if (st->count == 0)
				break;
			return Int64GetDatum((int64) st->sum[0]);
		case INT8OID:
			if (st->count == 0)
				break;
			return int8_state(st->count,
							  numeric_from_string(sum_to_string(st->sum, 0, 0)));
		case NUMERICOID:
			if (st->count + st->nan + st->pinf + st->ninf == 0)
				break;
			return numeric_state(st->count,
								 numeric_from_string(sum_to_string(st->sum, s->scale,
																   (int) st->dscale)),
								 (int32) st->dscale, st->dscale_count,
								 st->nan, st->pinf, st->ninf);
		case FLOAT4OID:
			if (s->fn == GH_AGG_AVG)
				return float8_triple((float8) st->count, st->fsum,
									 isfinite(st->fsum) ? 0.0 : get_float8_nan());
			if (st->count == 0)
				break;
			return Float4GetDatum((float4) st->fsum);
		case FLOAT8OID:
			if (st->count == 0)
				break;
			return Float8GetDatum(st->fsum);
		default:
			elog(ERROR, "gpuhash: no GPU aggregate state for type %u", s->input_type);
	}
	*isnull = true;
	return (Datum) 0;
}

/* The numeric value a row folds: the column, or the product it names,
 * computed by PostgreSQL's own operators in PostgreSQL's order. */
static Datum
row_numeric(const GpuAggSupport *s, const Datum *vals)
{
	Datum		one = NumericGetDatum(int64_to_numeric(1));
	Datum		x = vals[0];

	switch (s->expr)
	{
		case GH_AGG_E_MUL:
			return DirectFunctionCall2(numeric_mul, x, vals[1]);
		case GH_AGG_E_MUL_ONE_MINUS:
			return DirectFunctionCall2(numeric_mul, x,
									   DirectFunctionCall2(numeric_sub, one, vals[1]));
		case GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS:
			x = DirectFunctionCall2(numeric_mul, x,
									DirectFunctionCall2(numeric_sub, one, vals[1]));
			return DirectFunctionCall2(numeric_mul, x,
									   DirectFunctionCall2(numeric_add, one, vals[2]));
		default:
			return x;
	}
}

Datum
gpuhash_agg_row_datum(const GpuAggSupport *s, const Datum *vals,
					  const bool *nulls, bool *isnull)
{
	bool		null = s->fn != GH_AGG_COUNT_STAR && nulls[0];
	Datum		v;

	*isnull = false;
	if (s->expr != GH_AGG_E_COL)
		null = null || nulls[1] || (s->expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && nulls[2]);
	/*
	 * Integer arithmetic by PostgreSQL's own operator (strict: a NULL operand
	 * is a NULL input), under COUNT too, so that its overflow is its error;
	 * its C function, looked up once by the catalog, not per row.
	 */
	if (GH_AGG_E_IS_INT(s->expr) && !null)
	{
		v = DirectFunctionCall2(s->opfn, vals[0], vals[1]);
		vals = &v;
	}

	if (s->fn == GH_AGG_COUNT_STAR || s->fn == GH_AGG_COUNT)
		return Int64GetDatum(null ? 0 : 1);
	if (s->fn == GH_AGG_AVG && !null)
	{
		if (s->input_type == INT2OID)
			return int8_pair(1, DatumGetInt16(vals[0]));
		if (s->input_type == INT4OID)
			return int8_pair(1, DatumGetInt32(vals[0]));
	}
	if (s->fn == GH_AGG_AVG && s->input_type == FLOAT4OID)
	{
		float8		f = null ? 0.0 : (float8) DatumGetFloat4(vals[0]);

		/* float8_accum's first input: Sxx 0, or NaN for NaN and infinities */
		return float8_triple(null ? 0.0 : 1.0, f,
							 isfinite(f) ? 0.0 : get_float8_nan());
	}
	if (s->fn == GH_AGG_AVG && (s->input_type == INT2OID || s->input_type == INT4OID))
		return int8_pair(0, 0);
	if (null)
	{
		*isnull = true;
		return (Datum) 0;
	}
	if (s->fn == GH_AGG_MIN || s->fn == GH_AGG_MAX)
		return vals[0];

	switch (s->input_type)
	{
		case INT2OID:
			return Int64GetDatum(DatumGetInt16(vals[0]));
		case INT4OID:
			return Int64GetDatum(DatumGetInt32(vals[0]));
		case INT8OID:
			return int8_state(1, NumericGetDatum(int64_to_numeric(DatumGetInt64(vals[0]))));
		case FLOAT4OID:
		case FLOAT8OID:
			return vals[0];
		case NUMERICOID:
			v = row_numeric(s, vals);
			if (numeric_is_nan(DatumGetNumeric(v)))
				return numeric_state(0, NumericGetDatum(int64_to_numeric(0)), 0, 0, 1, 0, 0);
			if (numeric_is_inf(DatumGetNumeric(v)))
			{
				bool		neg = DatumGetInt32(DirectFunctionCall2(numeric_cmp, v,
																	NumericGetDatum(int64_to_numeric(0)))) < 0;

				return numeric_state(0, NumericGetDatum(int64_to_numeric(0)), 0, 0, 0,
									 neg ? 0 : 1, neg ? 1 : 0);
			}
			return numeric_state(1, v,
								 DatumGetInt32(DirectFunctionCall1(numeric_scale, v)),
								 1, 0, 0, 0);
		default:
			elog(ERROR, "gpuhash: no GPU aggregate state for type %u", s->input_type);
	}
	return (Datum) 0;
}

/*
 * n (1..64) bits of a packed key of kw words (the most significant first)
 * from bit pos up, pos 0 being the last word's lowest bit.
 */
static uint64
key_bits(const uint64 *key, int kw, int pos, int n)
{
	int			w = kw - 1 - pos / 64,
				b = pos % 64;
	uint64		x = key[w] >> b;

	if (b > 0 && w > 0)
		x |= key[w - 1] << (64 - b);
	return n < 64 ? x & ((UINT64CONST(1) << n) - 1) : x;
}

Datum
gpuhash_agg_key_datum(uint8 conv, Oid type, int32 typmod, const uint64 *key, int kw,
					  int shift, int width, bool *isnull)
{
	uint64		x = key_bits(key, kw, shift, Min(width, 64));

	*isnull = false;
	switch (conv)
	{
		case 0:
			return Int16GetDatum((int16) x);
		case 1:
			return type == DATEOID ? DateADTGetDatum((DateADT) (int32) x)
				: Int32GetDatum((int32) x);
		case 2:
			return Int64GetDatum((int64) x);
		case 3:
			return ObjectIdGetDatum((Oid) x);
		case 4:
			return BoolGetDatum(x != 0);
		case GH_AGG_KEY_BPCHAR:
		case GH_AGG_KEY_TEXT:
			{
				int			nbytes = width / 8,
							len = 0;
				StringInfoData buf;

				initStringInfo(&buf);
				for (int j = 0; j < nbytes; j++)
				{
					char		c = (char) key_bits(key, kw, shift + 8 * (nbytes - 1 - j), 8);

					if (c == '\0')
						break;
					appendStringInfoChar(&buf, c);
					len++;
				}
				/* char(n) stores n characters, padded with spaces */
				if (conv == GH_AGG_KEY_BPCHAR && typmod >= (int32) VARHDRSZ)
				{
					int			pad = (typmod - VARHDRSZ) - pg_mbstrlen_with_len(buf.data, len);

					while (pad-- > 0)
						appendStringInfoChar(&buf, ' ');
				}
				return PointerGetDatum(cstring_to_text_with_len(buf.data, buf.len));
			}
		default:
			elog(ERROR, "gpuhash: unknown GPU group key conversion %d", conv);
	}
	return (Datum) 0;
}
