/*
 * page_qual.cuh
 *		The qual stack machine of gpuhash_page.h, written once for the GPU
 *		and the host twin (GH_HD).  gh_page_scan_check (host_page.cpp) has
 *		proven the program well-typed, its stack within GH_PAGE_STACK and
 *		its pool references in bounds, so nothing is checked again here
 *		but the values themselves (an overflow, a malformed numeric in the
 *		page, which refuse the page).
 */
#ifndef GPUHASH_PAGE_QUAL_CUH
#define GPUHASH_PAGE_QUAL_CUH

#include "page_types.cuh"

#define GH_PAGE_STACK 16		/* deepest qual stack the walker takes */

/* What a qual program left: the row passes, fails, or the page is refused. */
enum
{
	GH_QUAL_FAIL = 0,
	GH_QUAL_PASS = 1,
	GH_QUAL_REFUSE = 2
};

/*
 * Where by-reference values lie: the page walked, the program's constant
 * pool and, in the aggregate over a join, the dimension's heap (NULL
 * elsewhere: no value refers to it then).
 */
#define GH_VBASE_XHEAPS 3		/* a star's further dimensions' heaps */

struct gh_vbase
{
	const uint8_t *page;
	const uint8_t *pool;
	const uint8_t *heap;
	/* a star's dimension d > 0: its values' pool is GH_IN_HEAP + d */
	const uint8_t *xheap[GH_VBASE_XHEAPS];
};

GH_HD gh_vbase
gh_vbase_of(const uint8_t *page, const uint8_t *pool, const uint8_t *heap = nullptr)
{
	gh_vbase	b;

	b.page = page;
	b.pool = pool;
	b.heap = heap;
	for (int i = 0; i < GH_VBASE_XHEAPS; i++)
		b.xheap[i] = nullptr;
	return b;
}

GH_HD const uint8_t *
gh_pval_ptr(const gh_pval &v, const gh_vbase &b)
{
	return (v.pool == GH_IN_PAGE ? b.page : v.pool == GH_IN_POOL ? b.pool :
			v.pool == GH_IN_HEAP ? b.heap : b.xheap[v.pool - GH_IN_HEAP - 1]) + v.ref;
}

GH_HD double
gh_bits_double(uint64_t b)
{
	double		d;

	memcpy(&d, &b, 8);
	return d;
}

/*
 * Compares two non-NULL values under mode: -1, 0 or 1; 2 when a numeric is
 * malformed (refuse).
 */
GH_HD int
gh_pval_cmp(const gh_pval &l, const gh_pval &r, uint8_t mode, const gh_vbase &vb)
{
	switch (mode)
	{
		case GH_M_FLOAT:
			return gh_float_cmp(gh_bits_double(l.bits), gh_bits_double(r.bits));
		case GH_M_NUMERIC:
			{
				gh_num		a,
							b;

				if (!gh_num_decode(gh_pval_ptr(l, vb), l.len, &a) ||
					!gh_num_decode(gh_pval_ptr(r, vb), r.len, &b))
					return 2;
				return gh_num_cmp(a, b);
			}
		case GH_M_DATE_TS:
			return gh_date_ts_cmp((int32_t) l.bits, (int64_t) r.bits);
		case GH_M_TS_DATE:
			return -gh_date_ts_cmp((int32_t) r.bits, (int64_t) l.bits);
		case GH_M_TEXT:
		case GH_M_BPCHAR:
			{
				const uint8_t *a = gh_pval_ptr(l, vb),
						   *b = gh_pval_ptr(r, vb);
				uint32_t	la = l.len,
							lb = r.len;

				if (mode == GH_M_BPCHAR)
				{
					la = gh_bpchar_len(a, la);
					lb = gh_bpchar_len(b, lb);
				}
				return gh_bytes_cmp(a, la, b, lb);
			}
		default:
			return gh_int_cmp((int64_t) l.bits, (int64_t) r.bits);
	}
}

/*
 * One element of an IN list or a constant at pool offset off, laid out as
 * GH_Q_CONST lays one out for mode: *next is the 8-aligned offset after it.
 */
GH_HD gh_pval
gh_pool_value(const uint8_t *pool, uint32_t off, uint8_t mode, uint32_t *next)
{
	gh_pval		v;
	uint32_t	end;

	v.null = 0;
	v.pool = GH_IN_POOL;
	v.bits = 0;
	v.ref = 0;
	v.len = 0;
	if (mode == GH_M_TEXT || mode == GH_M_BPCHAR)
	{
		v.len = (uint16_t) gh_ld32(pool + off);
		v.ref = off + 4;
		end = off + 4 + v.len;
	}
	else if (mode == GH_M_NUMERIC)
	{
		uint32_t	b0 = pool[off];

		if (b0 & 1)
		{
			v.len = (uint16_t) ((b0 >> 1) - 1);
			v.ref = off + 1;
		}
		else
		{
			v.len = (uint16_t) ((gh_ld32(pool + off) >> 2) - 4);
			v.ref = off + 4;
		}
		end = v.ref + v.len;
	}
	else
	{
		v.bits = gh_ld64(pool + off);
		end = off + 8;
	}
	*next = gh_align(end, 8);
	return v;
}

/* Integer arithmetic of op in mode; false on PostgreSQL's overflow error
 * (int4pl and friends, int8pl and friends, date_pli, date_mii). */
GH_HD bool
gh_arith(uint8_t op, uint8_t mode, int64_t l, int64_t r, int64_t *res)
{
	if (mode == GH_M_DATE_INT)
	{
		/* an infinite date stays; a result outside the valid dates is an
		 * error (l is the date, r the days: gh_page_scan_check) */
		int64_t		x;

		if (l == GH_DATE_NOBEGIN || l == GH_DATE_NOEND)
		{
			*res = l;
			return true;
		}
		x = op == GH_Q_ADD ? l + r : l - r;
		if (x < GH_DATE_MIN || x >= GH_DATE_END)
			return false;
		*res = x;
		return true;
	}

	uint64_t	ul = (uint64_t) l,
				ur = (uint64_t) r;
	int64_t		x;
	bool		ovf;

	if (op == GH_Q_ADD)
	{
		x = (int64_t) (ul + ur);
		ovf = (l < 0) == (r < 0) && (x < 0) != (l < 0);
	}
	else if (op == GH_Q_SUB)
	{
		x = (int64_t) (ul - ur);
		ovf = (l < 0) != (r < 0) && (x < 0) != (l < 0);
	}
	else
	{
		x = (int64_t) (ul * ur);
		ovf = (l == -1 && r == INT64_MIN) || (r == -1 && l == INT64_MIN) ||
			(r != 0 && x / r != l);
	}
	if (ovf || (mode == GH_M_INT4 && x != (int64_t) (int32_t) x))
		return false;
	*res = x;
	return true;
}

/*
 * Runs the qual program insn[0 .. ninsns) (the scan's, or a range of an
 * aggregation program's: its join qual, a condition) over a row's columns,
 * its constants in b.pool.  An empty program passes every row.
 */
GH_HD int
gh_qual_exec(const gh_qinsn *insn, int ninsns, const gh_pval *cols, const gh_vbase &b)
{
	gh_pval		st[GH_PAGE_STACK];
	int			sp = 0;
	const uint8_t *pool = b.pool;

	if (ninsns == 0)
		return GH_QUAL_PASS;
	for (int i = 0; i < ninsns; i++)
	{
		gh_qinsn	in = insn[i];

		switch (in.op)
		{
			case GH_Q_COL:
				st[sp++] = cols[in.a];
				break;
			case GH_Q_CONST:
				{
					uint32_t	next;
					uint8_t		mode = in.b == GH_T_NUMERIC ? GH_M_NUMERIC
						: (in.b == GH_T_TEXT || in.b == GH_T_BPCHAR) ? GH_M_TEXT : GH_M_INT;

					st[sp] = gh_pool_value(pool, in.a, mode, &next);
					if (in.b == GH_T_BOOL)
						st[sp].bits = st[sp].bits != 0;
					sp++;
					break;
				}
			case GH_Q_NULL:
				st[sp].null = 1;
				st[sp].bits = 0;
				sp++;
				break;
			case GH_Q_CMP:
				{
					gh_pval    &l = st[sp - 2];
					const gh_pval &r = st[sp - 1];

					sp--;
					if (l.null || r.null)
					{
						l.null = 1;
						break;
					}
					int			c = gh_pval_cmp(l, r, in.b, b);

					if (c == 2)
						return GH_QUAL_REFUSE;
					l.bits = gh_cmp_holds(c, in.c);
					l.pool = 0;
					break;
				}
			case GH_Q_IN:
				{
					gh_pval    &v = st[sp - 1];

					if (v.null)
						break;

					uint32_t	n = gh_ld32(pool + in.a),
								has_null = gh_ld32(pool + in.a + 4),
								off = in.a + 8;
					bool		found = false;

					for (uint32_t k = 0; k < n && !found; k++)
					{
						gh_pval		e = gh_pool_value(pool, off, in.b, &off);
						int			c = gh_pval_cmp(v, e, in.b, b);

						if (c == 2)
							return GH_QUAL_REFUSE;
						found = c == 0;
					}
					v.null = !found && has_null;
					v.bits = found;
					v.pool = 0;
					break;
				}
			case GH_Q_LIKE:
				{
					gh_pval    &v = st[sp - 1];

					if (v.null)
						break;

					uint32_t	pl = gh_ld32(pool + in.a);
					bool		m = gh_like(gh_pval_ptr(v, b), v.len, pool + in.a + 4, pl,
											in.b == 1);

					v.bits = m != (in.c == 1);
					v.pool = 0;
					break;
				}
			case GH_Q_IS_NULL:
			case GH_Q_IS_NOT_NULL:
			case GH_Q_IS_TRUE:
			case GH_Q_IS_FALSE:
				{
					gh_pval    &v = st[sp - 1];
					bool		r;

					if (in.op == GH_Q_IS_NULL)
						r = v.null;
					else if (in.op == GH_Q_IS_NOT_NULL)
						r = !v.null;
					else if (in.op == GH_Q_IS_TRUE)
						r = !v.null && v.bits;
					else
						r = !v.null && !v.bits;
					v.null = 0;
					v.bits = r;
					v.pool = 0;
					break;
				}
			case GH_Q_AND:
			case GH_Q_OR:
				{
					/* AND: any FALSE wins, else any NULL; OR: any TRUE wins */
					bool		is_and = in.op == GH_Q_AND,
								decided = false,
								any_null = false;

					for (uint32_t k = 0; k < in.a; k++)
					{
						const gh_pval &v = st[sp - 1 - k];

						if (v.null)
							any_null = true;
						else if ((v.bits != 0) != is_and)
							decided = true;
					}
					sp -= (int) in.a - 1;
					gh_pval    &o = st[sp - 1];

					o.pool = 0;
					if (decided)
					{
						o.null = 0;
						o.bits = !is_and;
					}
					else
					{
						o.null = any_null;
						o.bits = is_and;
					}
					break;
				}
			case GH_Q_NOT:
				st[sp - 1].bits = !st[sp - 1].bits;
				break;
			default:			/* GH_Q_ADD, GH_Q_SUB, GH_Q_MUL */
				{
					gh_pval    &l = st[sp - 2];
					const gh_pval &r = st[sp - 1];
					int64_t		x;

					sp--;
					if (l.null || r.null)
					{
						l.null = 1;
						break;
					}
					if (!gh_arith(in.op, in.b, (int64_t) l.bits, (int64_t) r.bits, &x))
						return GH_QUAL_REFUSE;
					l.bits = (uint64_t) x;
					l.pool = 0;
					break;
				}
		}
	}
	return !st[0].null && st[0].bits ? GH_QUAL_PASS : GH_QUAL_FAIL;
}

/* The scan program's quals over a tuple of page. */
GH_HD int
gh_qual_run(const gh_page_scan *scan, const gh_pval *cols, const uint8_t *page)
{
	return gh_qual_exec(scan->insn, scan->ninsns, cols, gh_vbase_of(page, scan->pool));
}

#endif							/* GPUHASH_PAGE_QUAL_CUH */
