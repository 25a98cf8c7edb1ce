/*
 * page_types.cuh
 *		The walker's comparisons, written once for the GPU and the host twin
 *		(GH_HD): each gives exactly the answer of the PostgreSQL 15 operator
 *		that gh_qmode names.
 */
#ifndef GPUHASH_PAGE_TYPES_CUH
#define GPUHASH_PAGE_TYPES_CUH

#include "page_deform.cuh"

/* numeric.c's on-disk header (the uint16 after the varlena header) */
#define GH_NUM_SIGN_MASK	0xC000
#define GH_NUM_NEG			0x4000
#define GH_NUM_SHORT		0x8000
#define GH_NUM_SPECIAL		0xC000
#define GH_NUM_EXT_MASK		0xF000
#define GH_NUM_NAN			0xC000
#define GH_NUM_PINF			0xD000
#define GH_NUM_NINF			0xF000
#define GH_NUM_SHORT_NEG	0x2000
#define GH_NUM_SHORT_WSIGN	0x0040
#define GH_NUM_SHORT_WMASK	0x003F

/* date.h / timestamp.h bounds */
#define GH_DATE_NOBEGIN		INT32_MIN
#define GH_DATE_NOEND		INT32_MAX
#define GH_DATE_MIN			(-2451545)	/* DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE */
#define GH_DATE_END			(2147483494 - 2451545)	/* DATE_END_JULIAN - epoch */
#define GH_DATE_TS_END		(109203528 - 2451545)	/* TIMESTAMP_END_JULIAN - epoch */
#define GH_USECS_PER_DAY	INT64_C(86400000000)

/* A numeric decoded: its class, and for a finite one sign, weight, digits. */
struct gh_num
{
	int			cls;			/* -1 -Inf, 0 finite, 1 +Inf, 2 NaN */
	bool		neg;
	int			weight;
	int			ndigits;
	const uint8_t *digits;		/* ndigits int16 NBASE digits, unaligned */
};

/* Decodes numeric data (after its varlena header) of len bytes; false if
 * it is shorter than its header says. */
GH_HD bool
gh_num_decode(const uint8_t *p, uint32_t len, gh_num *n)
{
	if (len < 2)
		return false;

	uint32_t	h = gh_ld16(p);

	n->neg = false;
	n->weight = 0;
	n->ndigits = 0;
	n->digits = p;
	n->cls = 0;
	if ((h & GH_NUM_SIGN_MASK) == GH_NUM_SPECIAL)
	{
		uint32_t	e = h & GH_NUM_EXT_MASK;

		n->cls = e == GH_NUM_NAN ? 2 : e == GH_NUM_PINF ? 1 : e == GH_NUM_NINF ? -1 : 3;
		return n->cls != 3;
	}
	if (h & GH_NUM_SHORT)
	{
		n->neg = (h & GH_NUM_SHORT_NEG) != 0;
		n->weight = (h & GH_NUM_SHORT_WSIGN) ? (int) (h | ~(uint32_t) GH_NUM_SHORT_WMASK)
			: (int) (h & GH_NUM_SHORT_WMASK);
		n->digits = p + 2;
		n->ndigits = (int) (len - 2) / 2;
		return true;
	}
	if (len < 4)
		return false;
	n->neg = (h & GH_NUM_SIGN_MASK) == GH_NUM_NEG;
	n->weight = (int) (int16_t) gh_ld16(p + 2);
	n->digits = p + 4;
	n->ndigits = (int) (len - 4) / 2;
	return true;
}

GH_HD int
gh_num_digit(const gh_num &n, int i)
{
	return (int) (int16_t) gh_ld16(n.digits + 2 * i);
}

/* cmp_abs_common: magnitudes, any leading or trailing zero digits allowed. */
GH_HD int
gh_num_cmp_abs(const gh_num &a, const gh_num &b)
{
	int			i1 = 0,
				i2 = 0,
				w1 = a.weight,
				w2 = b.weight;

	while (w1 > w2 && i1 < a.ndigits)
	{
		if (gh_num_digit(a, i1++) != 0)
			return 1;
		w1--;
	}
	while (w2 > w1 && i2 < b.ndigits)
	{
		if (gh_num_digit(b, i2++) != 0)
			return -1;
		w2--;
	}
	if (w1 == w2)
	{
		while (i1 < a.ndigits && i2 < b.ndigits)
		{
			int			d = gh_num_digit(a, i1++) - gh_num_digit(b, i2++);

			if (d != 0)
				return d > 0 ? 1 : -1;
		}
	}
	while (i1 < a.ndigits)
		if (gh_num_digit(a, i1++) != 0)
			return 1;
	while (i2 < b.ndigits)
		if (gh_num_digit(b, i2++) != 0)
			return -1;
	return 0;
}

GH_HD bool
gh_num_zero(const gh_num &n)
{
	for (int i = 0; i < n.ndigits; i++)
		if (gh_num_digit(n, i) != 0)
			return false;
	return true;
}

/* cmp_numerics: -Inf < finite < +Inf < NaN, NaN = NaN; dscale ignored. */
GH_HD int
gh_num_cmp(const gh_num &a, const gh_num &b)
{
	if (a.cls != 0 || b.cls != 0)
	{
		/* a finite value sits at 0 in this order */
		return a.cls < b.cls ? -1 : a.cls > b.cls ? 1 : 0;
	}

	bool		za = gh_num_zero(a),
				zb = gh_num_zero(b);

	if (za && zb)
		return 0;
	if (za)
		return b.neg ? 1 : -1;
	if (zb)
		return a.neg ? -1 : 1;
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;

	int			c = gh_num_cmp_abs(a, b);

	return a.neg ? -c : c;
}

/* float8_cmp_internal: NaN equals NaN and sorts above everything. */
GH_HD int
gh_float_cmp(double a, double b)
{
	bool		na = a != a,
				nb = b != b;

	if (na || nb)
		return na && nb ? 0 : na ? 1 : -1;
	return a < b ? -1 : a > b ? 1 : 0;
}

GH_HD int
gh_int_cmp(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/* date_cmp_timestamp_internal: a date past timestamp's range is above
 * every finite timestamp and below +infinity. */
GH_HD int
gh_date_ts_cmp(int32_t d, int64_t ts)
{
	int64_t		dt;

	if (d == GH_DATE_NOBEGIN)
		dt = INT64_MIN;
	else if (d == GH_DATE_NOEND)
		dt = INT64_MAX;
	else if (d >= GH_DATE_TS_END)
		return ts == INT64_MAX ? -1 : 1;
	else
		dt = (int64_t) d * GH_USECS_PER_DAY;
	return gh_int_cmp(dt, ts);
}

/* varstr_cmp under "C" (and equality under any deterministic collation):
 * memcmp over the common length, then the length. */
GH_HD int
gh_bytes_cmp(const uint8_t *a, uint32_t la, const uint8_t *b, uint32_t lb)
{
	uint32_t	n = la < lb ? la : lb;

	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return la < lb ? -1 : la > lb ? 1 : 0;
}

/* bcTruelen: char(n) without its trailing spaces */
GH_HD uint32_t
gh_bpchar_len(const uint8_t *p, uint32_t len)
{
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/* Bytes of the UTF-8 character led by b (pg_utf_mblen). */
GH_HD uint32_t
gh_utf8_len(uint8_t b)
{
	return (b & 0x80) == 0 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3
		: (b & 0xF8) == 0xF0 ? 4 : 1;
}

/*
 * like_match.c's MatchText: '%' any run of characters, '_' one character
 * (one byte, or one UTF-8 character with utf8), '\' makes the next pattern
 * byte literal; everything else compares bytewise.  Iterative, with one
 * backtrack point: the last '%' seen, which is enough for patterns of these
 * two wildcards.  The pattern never ends in '\' (gh_page_scan_check).
 */
GH_HD bool
gh_like(const uint8_t *t, uint32_t tl, const uint8_t *p, uint32_t pl, bool utf8)
{
	uint32_t	ti = 0,
				pi = 0,
				star_p = UINT32_MAX,
				star_t = 0;

	for (;;)
	{
		if (pi < pl)
		{
			uint8_t		c = p[pi];

			if (c == '%')
			{
				star_p = ++pi;
				star_t = ti;
				continue;
			}
			if (ti < tl)
			{
				if (c == '_')
				{
					uint32_t	n = utf8 ? gh_utf8_len(t[ti]) : 1;

					ti = ti + n > tl ? tl : ti + n;
					pi++;
					continue;
				}
				if (c == '\\' && pi + 1 < pl)
				{
					if (t[ti] == p[pi + 1])
					{
						ti++;
						pi += 2;
						continue;
					}
				}
				else if (t[ti] == c)
				{
					ti++;
					pi++;
					continue;
				}
			}
		}
		else if (ti == tl)
			return true;
		/* mismatch: let the last '%' take one more character */
		if (star_p == UINT32_MAX || star_t >= tl)
			return false;
		{
			uint32_t	n = utf8 ? gh_utf8_len(t[star_t]) : 1;

			star_t = star_t + n > tl ? tl : star_t + n;
		}
		ti = star_t;
		pi = star_p;
	}
}

GH_HD bool
gh_cmp_holds(int cmp, uint8_t op)
{
	switch (op)
	{
		case GH_LT:
			return cmp < 0;
		case GH_LE:
			return cmp <= 0;
		case GH_EQ:
			return cmp == 0;
		case GH_NE:
			return cmp != 0;
		case GH_GE:
			return cmp >= 0;
		default:
			return cmp > 0;
	}
}

#endif							/* GPUHASH_PAGE_TYPES_CUH */
