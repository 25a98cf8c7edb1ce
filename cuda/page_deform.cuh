/*
 * page_deform.cuh
 *		Reading PostgreSQL heap pages, written once for the GPU kernels and
 *		the host twin (GH_HD): the page header, line pointers, the tuple
 *		header and the deforming of attributes into walker values.
 *
 * Every read is bounds-checked against the page (or the tuple's lp_len)
 * and done bytewise, so nothing here depends on the page's alignment in
 * memory and nothing reads outside it: anything malformed refuses the page
 * (GH_WALK_REFUSE), and the caller reads it through its tuple path.
 *
 * The layout is PostgreSQL 15's on little-endian machines: PageHeaderData
 * (24 bytes, pd_lower at 12, pd_upper at 14, pd_special at 16), ItemIdData
 * as one 32-bit word (lp_off bits 0-14, lp_flags 15-16, lp_len 17-31),
 * HeapTupleHeaderData (t_infomask2 at 18, t_infomask at 20, t_hoff at 22,
 * the null bitmap at 23), varlena headers of 1 byte (low bit set) or 4
 * bytes (low two bits 00 plain, 10 compressed), 0x01 a TOAST pointer.
 */
#ifndef GPUHASH_PAGE_DEFORM_CUH
#define GPUHASH_PAGE_DEFORM_CUH

#include "gpuhash_page.h"
#include "hash.cuh"

#include <string.h>

#define GH_PAGE_HEADER		24		/* SizeofPageHeaderData */
#define GH_TUPLE_HEADER		23		/* offsetof(HeapTupleHeaderData, t_bits) */
#define GH_LP_UNUSED		0
#define GH_LP_NORMAL		1
#define GH_HEAP_HASNULL		0x0001
#define GH_HEAP_NATTS_MASK	0x07FF
#define GH_VARTAG_ONDISK	18		/* a TOAST pointer's tag */
#define GH_TOAST_POINTER	(2 + 16)	/* header, tag, varatt_external */

/* A walk step's answer. */
enum
{
	GH_WALK_REFUSE = -1,		/* the page goes to the CPU */
	GH_WALK_SKIP = 0,			/* no tuple here (not LP_NORMAL) */
	GH_WALK_OK = 1
};

/*
 * One value on the walker's stack or in a deformed column.  bits holds
 * integers (sign- or zero-extended to 64 bits as their type's Datum is),
 * booleans as 0/1 and floats as a double's bits; varlenas (numeric, text)
 * are ref/len: their data after the header, in the page (pool =
 * GH_IN_PAGE), the scan's constant pool (GH_IN_POOL) or a dimension's heap
 * (GH_IN_HEAP: an inner column of the aggregate over a join).
 */
#define GH_IN_PAGE	0
#define GH_IN_POOL	1
#define GH_IN_HEAP	2

struct gh_pval
{
	uint64_t	bits;
	uint32_t	ref;
	uint16_t	len;
	uint8_t		null;
	uint8_t		pool;
};

GH_HD uint32_t
gh_ld16(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8);
}

GH_HD uint32_t
gh_ld32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
}

GH_HD uint64_t
gh_ld64(const uint8_t *p)
{
	return (uint64_t) gh_ld32(p) | ((uint64_t) gh_ld32(p + 4) << 32);
}

GH_HD uint32_t
gh_align(uint32_t off, uint32_t a)
{
	return (off + a - 1) & ~(a - 1);
}

/*
 * The number of line pointers of a page, or -1 if its header is not sane.
 * A new (all-zero) page has none, as heapgetpage treats it.
 */
GH_HD int
gh_page_nitems(const uint8_t *page)
{
	uint32_t	lower = gh_ld16(page + 12),
				upper = gh_ld16(page + 14),
				special = gh_ld16(page + 16);

	if (upper == 0)
		return 0;
	if (lower < GH_PAGE_HEADER || lower > upper || upper > special || special > GH_PAGE_SIZE ||
		(lower - GH_PAGE_HEADER) % 4 != 0)
		return -1;
	int			n = (int) (lower - GH_PAGE_HEADER) / 4;

	return n > GH_PAGE_MAX_TUPLES ? -1 : n;
}

/*
 * Line pointer lp (1-based) of a page with nitems of them: GH_WALK_OK with
 * the tuple's place for LP_NORMAL, SKIP for unused, redirect and dead items,
 * REFUSE for one that points outside the page or at less than a header.
 */
GH_HD int
gh_page_item(const uint8_t *page, int nitems, int lp, uint32_t *off, uint32_t *len)
{
	if (lp < 1 || lp > nitems)
		return GH_WALK_REFUSE;

	uint32_t	w = gh_ld32(page + GH_PAGE_HEADER + 4 * (lp - 1));
	uint32_t	flags = (w >> 15) & 3;

	if (flags != GH_LP_NORMAL)
		return GH_WALK_SKIP;
	*off = w & 0x7FFF;
	*len = w >> 17;
	if (*off < GH_PAGE_HEADER + 4 * (uint32_t) nitems || *len < GH_TUPLE_HEADER ||
		*off + *len > GH_PAGE_SIZE)
		return GH_WALK_REFUSE;
	return GH_WALK_OK;
}

/* A by-value column's Datum (a missing value) as a walker value. */
GH_HD uint64_t
gh_datum_bits(uint8_t type, uint64_t d)
{
	switch (type)
	{
		case GH_T_INT2:
			return (uint64_t) (int64_t) (int16_t) d;
		case GH_T_INT4:
		case GH_T_DATE:
			return (uint64_t) (int64_t) (int32_t) d;
		case GH_T_OID:
			return (uint32_t) d;
		case GH_T_BOOL:
			return (d & 0xFF) != 0;
		case GH_T_FLOAT4:
			{
				uint32_t	u = (uint32_t) d;
				float		f;
				double		x;
				uint64_t	r;

				memcpy(&f, &u, 4);
				x = f;
				memcpy(&r, &x, 8);
				return r;
			}
		default:
			return d;
	}
}

/* A fixed-length column's value at p (attlen bytes) as a walker value. */
GH_HD uint64_t
gh_fixed_bits(uint8_t type, const uint8_t *p)
{
	switch (type)
	{
		case GH_T_INT2:
			return gh_datum_bits(type, gh_ld16(p));
		case GH_T_BOOL:
			return p[0] != 0;
		case GH_T_INT4:
		case GH_T_DATE:
		case GH_T_OID:
		case GH_T_FLOAT4:
			return gh_datum_bits(type, gh_ld32(p));
		default:
			return gh_ld64(p);
	}
}

/*
 * Deforms the tuple at page[off .. off + len) into vals[0 .. scan->natts):
 * the columns the scan needs (type not GH_T_SKIP) get their value or NULL;
 * the others are only walked over.  REFUSE for a malformed tuple, a needed
 * value compressed or stored out of line, or a needed missing attribute
 * without a by-value default.
 */
GH_HD int
gh_deform(const gh_page_scan *scan, const uint8_t *page, uint32_t off, uint32_t len,
		  gh_pval *vals)
{
	const uint8_t *tup = page + off;
	uint32_t	infomask2 = gh_ld16(tup + 18),
				infomask = gh_ld16(tup + 20),
				hoff = tup[22];
	int			natts = (int) (infomask2 & GH_HEAP_NATTS_MASK);
	bool		hasnull = (infomask & GH_HEAP_HASNULL) != 0;
	uint32_t	minhoff = GH_TUPLE_HEADER + (hasnull ? (uint32_t) (natts + 7) / 8 : 0);

	if (hoff < minhoff || hoff > len || (hoff & 7) != 0)
		return GH_WALK_REFUSE;

	const uint8_t *bits = tup + GH_TUPLE_HEADER;
	const uint8_t *data = tup + hoff;
	uint32_t	dlen = len - hoff,
				pos = 0;

	for (int a = 0; a < scan->natts; a++)
	{
		const gh_page_column *c = &scan->col[a];
		bool		need = c->type != GH_T_SKIP;
		gh_pval    *v = &vals[a];

		if (a >= natts)
		{
			/* added after this tuple was written: its missing value */
			if (!need)
				continue;
			if (c->missing == GH_MISSING_REFUSE)
				return GH_WALK_REFUSE;
			v->null = c->missing == GH_MISSING_NULL;
			v->bits = v->null ? 0 : gh_datum_bits(c->type, (uint64_t) c->missing_value);
			v->pool = 0;
			continue;
		}
		if (hasnull && !(bits[a >> 3] & (1 << (a & 7))))
		{
			if (need)
			{
				v->null = 1;
				v->bits = 0;
			}
			continue;
		}
		if (c->attlen > 0)
		{
			pos = gh_align(pos, c->attalign);
			if (pos + (uint32_t) c->attlen > dlen)
				return GH_WALK_REFUSE;
			if (need)
			{
				v->null = 0;
				v->pool = 0;
				v->bits = gh_fixed_bits(c->type, data + pos);
			}
			pos += (uint32_t) c->attlen;
		}
		else if (c->attlen == -1)
		{
			/* a nonzero byte where the value may start is a 1-byte header:
			 * such values are not aligned (padding bytes are zero) */
			if (pos >= dlen)
				return GH_WALK_REFUSE;
			if (data[pos] == 0)
				pos = gh_align(pos, c->attalign);
			if (pos >= dlen)
				return GH_WALK_REFUSE;

			uint32_t	b0 = data[pos],
						size,
						hdr;

			if (b0 == 0x01)
			{
				/* a TOAST pointer: walked over, never read */
				if (need || pos + 2 > dlen || data[pos + 1] != GH_VARTAG_ONDISK)
					return GH_WALK_REFUSE;
				size = GH_TOAST_POINTER;
				hdr = size;
			}
			else if (b0 & 1)
			{
				size = b0 >> 1;
				hdr = 1;
				if (size < 1)
					return GH_WALK_REFUSE;
			}
			else
			{
				if (pos + 4 > dlen)
					return GH_WALK_REFUSE;
				uint32_t	h = gh_ld32(data + pos);

				size = h >> 2;
				hdr = 4;
				if (size < 4 || ((h & 3) == 2 && need))
					return GH_WALK_REFUSE;	/* compressed and needed */
			}
			if (pos + size > dlen)
				return GH_WALK_REFUSE;
			if (need)
			{
				v->null = 0;
				v->pool = 0;
				v->bits = 0;
				v->ref = (uint32_t) (data - page) + pos + hdr;
				v->len = (uint16_t) (size - hdr);
			}
			pos += size;
		}
		else
		{
			/* cstring: up to its terminating zero (never needed: checked) */
			pos = gh_align(pos, c->attalign);
			uint32_t	e = pos;

			while (e < dlen && data[e] != 0)
				e++;
			if (e >= dlen)
				return GH_WALK_REFUSE;
			pos = e + 1;
		}
	}
	return GH_WALK_OK;
}

#endif							/* GPUHASH_PAGE_DEFORM_CUH */
