/*
 * host_page.cpp
 *		The page walker's host side: the scan program's check (a static
 *		type and stack check, so that the walk itself trusts the program),
 *		the host twin (page_walk.cuh in a loop, then one probe of the rows'
 *		keys) and gh_page_probe's choice between it and the GPU walk.
 */
#include "page_internal.h"
#include "page_walk.cuh"

#include <string.h>
#include <cstdlib>
#include <vector>

namespace
{

const uint8_t T_NULL = 0xFF;	/* the type of GH_Q_NULL: any */

/* The attribute length a needed column of each type has. */
int
type_attlen(uint8_t t)
{
	switch (t)
	{
		case GH_T_BOOL:
			return 1;
		case GH_T_INT2:
			return 2;
		case GH_T_INT4:
		case GH_T_OID:
		case GH_T_FLOAT4:
		case GH_T_DATE:
			return 4;
		case GH_T_INT8:
		case GH_T_FLOAT8:
		case GH_T_TIME:
		case GH_T_TIMESTAMP:
			return 8;
		default:
			return -1;
	}
}

bool
is_integer(uint8_t t)
{
	return t == GH_T_INT2 || t == GH_T_INT4 || t == GH_T_INT8;
}

/* held as an int64 (GH_M_INT compares these) */
bool
is_int_like(uint8_t t)
{
	return is_integer(t) || t == GH_T_OID || t == GH_T_BOOL || t == GH_T_DATE ||
		t == GH_T_TIME || t == GH_T_TIMESTAMP;
}

bool
is_text(uint8_t t)
{
	return t == GH_T_TEXT || t == GH_T_BPCHAR;
}

/* May values of types l and r meet under comparison mode m? */
bool
cmp_ok(uint8_t m, uint8_t l, uint8_t r)
{
	if (l == T_NULL || r == T_NULL)
		return m <= GH_M_BPCHAR && m != GH_M_INT4 && m != GH_M_INT8 && m != GH_M_DATE_INT;
	switch (m)
	{
		case GH_M_INT:
			return (l == r && is_int_like(l)) || (is_integer(l) && is_integer(r));
		case GH_M_FLOAT:
			return (l == GH_T_FLOAT4 || l == GH_T_FLOAT8) && (r == GH_T_FLOAT4 || r == GH_T_FLOAT8);
		case GH_M_NUMERIC:
			return l == GH_T_NUMERIC && r == GH_T_NUMERIC;
		case GH_M_DATE_TS:
			return l == GH_T_DATE && r == GH_T_TIMESTAMP;
		case GH_M_TS_DATE:
			return l == GH_T_TIMESTAMP && r == GH_T_DATE;
		case GH_M_TEXT:
		case GH_M_BPCHAR:
			return is_text(l) && is_text(r);
		default:
			return false;
	}
}

/* The type a list element of mode m has, for cmp_ok. */
uint8_t
element_type(uint8_t m, uint8_t v)
{
	switch (m)
	{
		case GH_M_FLOAT:
			return GH_T_FLOAT8;
		case GH_M_NUMERIC:
			return GH_T_NUMERIC;
		case GH_M_DATE_TS:
			return GH_T_TIMESTAMP;
		case GH_M_TS_DATE:
			return GH_T_DATE;
		case GH_M_TEXT:
		case GH_M_BPCHAR:
			return GH_T_TEXT;
		default:
			return v == T_NULL ? (uint8_t) GH_T_INT8 : v;
	}
}

/* A constant of mode m at pool offset off lies inside the pool and, for a
 * numeric, decodes; *next is the offset after it (8-aligned). */
bool
pool_value_ok(const gh_page_scan *s, uint32_t off, uint8_t m, uint32_t *next)
{
	uint32_t	n = s->pool_bytes;

	if (off >= n)
		return false;
	if (m == GH_M_TEXT || m == GH_M_BPCHAR)
	{
		if (n - off < 4)
			return false;

		uint32_t	len = gh_ld32(s->pool + off);

		if (len > 0xFFFF || len > n - off - 4)
			return false;
	}
	else if (m == GH_M_NUMERIC)
	{
		uint32_t	b0 = s->pool[off],
					size;

		if (b0 == 0x01)
			return false;
		if (b0 & 1)
			size = b0 >> 1;
		else
		{
			if (n - off < 4 || (b0 & 3) != 0)
				return false;
			size = gh_ld32(s->pool + off) >> 2;
			if (size < 4)
				return false;
		}
		if (size < 1 || size > n - off)
			return false;
	}
	else if (n - off < 8)
		return false;

	gh_pval		v = gh_pool_value(s->pool, off, m, next);

	if (m == GH_M_NUMERIC)
	{
		gh_num		num;

		if (!gh_num_decode(s->pool + v.ref, v.len, &num))
			return false;
	}
	return true;
}

bool
like_pattern_ok(const gh_page_scan *s, uint32_t off)
{
	uint32_t	next;

	if (!pool_value_ok(s, off, GH_M_TEXT, &next))
		return false;

	uint32_t	len = gh_ld32(s->pool + off);
	const uint8_t *p = s->pool + off + 4;

	/* LIKE's error: a pattern may not end in its escape character */
	for (uint32_t i = 0; i < len; i++)
		if (p[i] == '\\' && ++i >= len)
			return false;
	return true;
}

gh_status
bad(const char *what, int i)
{
	return gh_error(GH_ERR_INVALID, "page scan program: %s (at %d)", what, i);
}

gh_status
check_columns(const gh_page_scan *s)
{
	for (int a = 0; a < s->natts; a++)
	{
		const gh_page_column &c = s->col[a];

		if (c.attalign != 1 && c.attalign != 2 && c.attalign != 4 && c.attalign != 8)
			return bad("attalign not 1, 2, 4 or 8", a);
		if (c.attlen == 0 || c.attlen < -2 || c.attlen > GH_PAGE_SIZE)
			return bad("attlen out of range", a);
		if (c.type > GH_T_BPCHAR)
			return bad("unknown column type", a);
		if (c.type == GH_T_SKIP)
			continue;
		if (c.attlen != type_attlen(c.type))
			return bad("attlen does not fit the column type", a);
		if (c.missing > GH_MISSING_REFUSE)
			return bad("unknown missing-value rule", a);
		if (c.missing == GH_MISSING_VALUE && c.attlen < 0)
			return bad("a by-reference missing value must refuse", a);
	}
	return GH_OK;
}

gh_status
check_keys(const gh_page_scan *s)
{
	int			bits = 0;

	if (s->nkeys < 0 || s->nkeys > GH_PAGE_MAX_KEYS)
		return bad("nkeys out of range", s->nkeys);
	for (int i = 0; i < s->nkeys; i++)
	{
		const gh_page_key &k = s->key[i];

		if (k.col < 0 || k.col >= s->natts || !is_int_like(s->col[k.col].type))
			return bad("a key column that is not an integer-like needed column", i);
		if (k.conv > 4 || (k.conv == 4) != (s->col[k.col].type == GH_T_BOOL))
			return bad("a key conversion that does not fit its column", i);
		if (s->nkeys > 1 && (k.width < 1 || k.width > 63))
			return bad("a packed key column's width is not 1 to 63 bits", i);
		bits += k.width;
	}
	if (s->nkeys > 1 && bits > 64)
		return bad("packed key columns wider than 64 bits", bits);
	return GH_OK;
}

/* Runs the program over types instead of values. */
gh_status
check_program(const gh_page_scan *s)
{
	uint8_t		types[GH_PAGE_MAX_ATTS];

	if (s->ninsns < 0 || s->ninsns > GH_PAGE_MAX_INSNS)
		return bad("ninsns out of range", s->ninsns);
	for (int a = 0; a < s->natts; a++)
		types[a] = s->col[a].type;
	return gh_qual_check(s, s->insn, s->ninsns, types, s->natts);
}

}								/* namespace */

gh_status
gh_qual_check(const gh_page_scan *s, const gh_qinsn *insn, int ninsns, const uint8_t *types,
			  int ntypes)
{
	uint8_t		st[GH_PAGE_STACK];
	int			sp = 0;

	for (int i = 0; i < ninsns; i++)
	{
		const gh_qinsn &in = insn[i];
		uint32_t	next;

		switch (in.op)
		{
			case GH_Q_COL:
			case GH_Q_CONST:
			case GH_Q_NULL:
				if (sp >= GH_PAGE_STACK)
					return bad("qual stack deeper than the walker takes", i);
				if (in.op == GH_Q_COL)
				{
					if (in.a >= (uint32_t) ntypes || types[in.a] == GH_T_SKIP)
						return bad("a column that is not a needed column", i);
					st[sp++] = types[in.a];
				}
				else if (in.op == GH_Q_CONST)
				{
					uint8_t		m = in.b == GH_T_NUMERIC ? GH_M_NUMERIC
						: is_text(in.b) ? GH_M_TEXT : GH_M_INT;

					if (in.b == GH_T_SKIP || in.b > GH_T_BPCHAR ||
						!pool_value_ok(s, in.a, m, &next))
						return bad("a constant of no type or outside the pool", i);
					st[sp++] = in.b;
				}
				else
					st[sp++] = T_NULL;
				break;
			case GH_Q_CMP:
				if (sp < 2 || in.c > GH_GT || !cmp_ok(in.b, st[sp - 2], st[sp - 1]))
					return bad("a comparison of types its mode does not take", i);
				st[--sp - 1] = GH_T_BOOL;
				break;
			case GH_Q_IN:
				{
					if (sp < 1 || in.a > s->pool_bytes || s->pool_bytes - in.a < 8)
						return bad("an IN list outside the pool", i);

					uint32_t	n = gh_ld32(s->pool + in.a),
								off = in.a + 8;

					if (n > s->pool_bytes)
						return bad("an IN list outside the pool", i);
					if (!cmp_ok(in.b, st[sp - 1], element_type(in.b, st[sp - 1])))
						return bad("an IN list of types its mode does not take", i);
					for (uint32_t k = 0; k < n; k++)
						if (!pool_value_ok(s, off, in.b, &off))
							return bad("an IN list element outside the pool", i);
					st[sp - 1] = GH_T_BOOL;
					break;
				}
			case GH_Q_LIKE:
				if (sp < 1 || (!is_text(st[sp - 1]) && st[sp - 1] != T_NULL) || in.b > 1 ||
					in.c > 1)
					return bad("LIKE on a value that is not text", i);
				if (!like_pattern_ok(s, in.a))
					return bad("a LIKE pattern outside the pool or ending in its escape", i);
				st[sp - 1] = GH_T_BOOL;
				break;
			case GH_Q_IS_NULL:
			case GH_Q_IS_NOT_NULL:
			case GH_Q_IS_TRUE:
			case GH_Q_IS_FALSE:
			case GH_Q_NOT:
				if (sp < 1)
					return bad("a test of an empty stack", i);
				if (in.op >= GH_Q_IS_TRUE && st[sp - 1] != GH_T_BOOL && st[sp - 1] != T_NULL)
					return bad("a boolean test of a value that is not boolean", i);
				st[sp - 1] = in.op == GH_Q_NOT && st[sp - 1] == T_NULL ? T_NULL : (uint8_t) GH_T_BOOL;
				break;
			case GH_Q_AND:
			case GH_Q_OR:
				if (in.a < 1 || in.a > (uint32_t) sp)
					return bad("AND/OR of more values than the stack holds", i);
				for (uint32_t k = 0; k < in.a; k++)
					if (st[sp - 1 - k] != GH_T_BOOL && st[sp - 1 - k] != T_NULL)
						return bad("AND/OR of a value that is not boolean", i);
				sp -= (int) in.a - 1;
				st[sp - 1] = GH_T_BOOL;
				break;
			case GH_Q_ADD:
			case GH_Q_SUB:
			case GH_Q_MUL:
				{
					if (sp < 2)
						return bad("arithmetic on an empty stack", i);

					uint8_t		l = st[sp - 2],
								r = st[sp - 1],
								res;
					bool		ok;

					/*
					 * PostgreSQL's operator takes the wider operand's type and
					 * overflows there: int2 + int2 is int2pl, int4 + int4
					 * int4pl, so a mode wider than both operands would miss
					 * their overflow error
					 */
					if (in.b == GH_M_INT4)
					{
						ok = (l == T_NULL || l == GH_T_INT2 || l == GH_T_INT4) &&
							(r == T_NULL || r == GH_T_INT2 || r == GH_T_INT4) &&
							(l == GH_T_INT4 || r == GH_T_INT4 || l == T_NULL || r == T_NULL);
						res = GH_T_INT4;
					}
					else if (in.b == GH_M_INT8)
					{
						ok = (l == T_NULL || is_integer(l)) && (r == T_NULL || is_integer(r)) &&
							(l == GH_T_INT8 || r == GH_T_INT8 || l == T_NULL || r == T_NULL);
						res = GH_T_INT8;
					}
					else if (in.b == GH_M_DATE_INT)
					{
						ok = in.op != GH_Q_MUL && (l == T_NULL || l == GH_T_DATE) &&
							(r == T_NULL || r == GH_T_INT2 || r == GH_T_INT4);
						res = GH_T_DATE;
					}
					else
						ok = false;
					if (!ok)
						return bad("arithmetic of types its mode does not take", i);
					st[--sp - 1] = res;
					break;
				}
			default:
				return bad("unknown qual operation", i);
		}
	}
	if (ninsns > 0 && (sp != 1 || (st[0] != GH_T_BOOL && st[0] != T_NULL)))
		return bad("the program does not leave one boolean", ninsns);
	return GH_OK;
}

namespace
{

/* A page's walk on the host: its rows in slot order, or false (refused). */
bool
walk_page(const gh_page_scan *scan, const uint8_t *page, const gh_page_ref &ref,
		  const uint16_t *visible, uint32_t p, std::vector<gh_page_match> &rows,
		  std::vector<uint64_t> &keys, uint64_t *tuples, uint64_t *passed)
{
	gh_pval		cols[GH_PAGE_MAX_ATTS];
	int			nitems,
				n = gh_walk_slots(page, ref, &nitems);
	size_t		start = rows.size();
	uint64_t	nt = 0,
				np = 0;

	if (n < 0)
		return false;
	for (int s = 0; s < n; s++)
	{
		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, s, cols, &o);

		if (r == GH_WALK_REFUSE)
		{
			rows.resize(start);
			keys.resize(start);
			return false;
		}
		if (r == GH_WALK_SKIP)
			continue;
		nt++;
		if (!o.passed)
			continue;
		np++;

		gh_page_match m;

		m.page = p;
		m.lp = o.lp;
		m.flags = o.null_key ? GH_PM_NULL_KEY : 0;
		m.range.offset = 0;
		m.range.count = 0;
		rows.push_back(m);
		keys.push_back(o.key);
	}
	*tuples += nt;
	*passed += np;
	return true;
}

}								/* namespace */

gh_status
gh_page_scan_check(const gh_page_scan *scan)
{
	if (!scan)
		return gh_error(GH_ERR_INVALID, "page scan program: NULL");
	if (scan->mode > GH_PAGE_ALL_ROWS)
		return bad("unknown mode", (int) scan->mode);
	if (scan->natts < 0 || scan->natts > GH_PAGE_MAX_ATTS)
		return bad("natts out of range", scan->natts);
	if (scan->pool_bytes > GH_PAGE_POOL_BYTES)
		return bad("pool larger than GH_PAGE_POOL_BYTES", (int) scan->pool_bytes);
	GH_PAGE_CHECK(check_columns(scan));
	GH_PAGE_CHECK(check_keys(scan));
	return check_program(scan);
}

gh_status
gh_page_check_request(const gh_page_scan *scan, const gh_page_ref *refs, uint32_t n_pages,
					  const uint8_t *page_data, size_t page_data_bytes,
					  const uint16_t *visible, uint32_t n_visible, const gh_page_match *out,
					  size_t capacity, const size_t *n_out, const uint8_t *refused)
{
	/* by address (gh_page_probe_at): no page data, each page where it lies */
	bool		at = !page_data && page_data_bytes == GH_PAGE_DATA_AT;

	if (!n_out || (n_pages > 0 && (!refs || (!page_data && !at) || !refused)) ||
		(capacity > 0 && !out))
		return gh_error(GH_ERR_INVALID, "page walk: a required pointer is NULL");
	GH_PAGE_CHECK(gh_page_scan_check(scan));
	for (uint32_t i = 0; i < n_pages; i++)
	{
		const gh_page_ref &r = refs[i];

		if (at ? r.offset == 0 :
			(page_data_bytes < GH_PAGE_SIZE || r.offset > page_data_bytes - GH_PAGE_SIZE))
			return gh_error(GH_ERR_INVALID, "page walk: page %u lies outside the page data", i);
		if (r.nvis != GH_PAGE_ALL_VISIBLE &&
			((r.nvis > 0 && !visible) || r.vis_start > n_visible || r.nvis > n_visible - r.vis_start))
			return gh_error(GH_ERR_INVALID, "page walk: page %u's visible offsets lie outside "
							"the list", i);
	}
	return GH_OK;
}

gh_status
gh_page_probe_host(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs,
				   uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
				   const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
				   size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats)
{
	std::vector<gh_page_match> rows;
	std::vector<uint64_t> keys;
	gh_page_stats s;

	memset(&s, 0, sizeof(s));
	GH_PAGE_CHECK(gh_page_check_request(scan, refs, n_pages, page_data, page_data_bytes, visible,
										n_visible, out, capacity, n_out, refused));
	*n_out = 0;
	for (uint32_t p = 0; p < n_pages; p++)
	{
		refused[p] = !walk_page(scan, gh_page_src(page_data, refs[p]), refs[p], visible, p, rows,
								keys, &s.tuples, &s.passed);
		s.refused += refused[p];
	}
	s.pages = n_pages;

	/* one probe of every passing row's key; a NULL key's answer is unused */
	std::vector<gh_range> ranges(rows.size());
	size_t		n = 0;

	if (t && !rows.empty())
	{
		uint64_t	total;

		GH_PAGE_CHECK(gh_probe_ranges(t, keys.data(), keys.size(), ranges.data(), &total));
	}
	for (size_t i = 0; i < rows.size(); i++)
	{
		gh_page_match m = rows[i];

		if (t && !(m.flags & GH_PM_NULL_KEY) && ranges[i].count > 0)
			m.range = ranges[i];
		if (t && scan->mode == GH_PAGE_MATCHES && m.range.count == 0)
			continue;
		if (n < capacity)
			out[n] = m;
		n++;
	}
	*n_out = n;
	s.written = n;
	if (stats)
		*stats = s;
	if (n > capacity)
		return gh_error(GH_ERR_OUTPUT_FULL, "page walk: %zu match records exceed the capacity "
						"of %zu", n, capacity);
	return GH_OK;
}

gh_status
gh_page_probe(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs, uint32_t n_pages,
			  const uint8_t *page_data, size_t page_data_bytes, const uint16_t *visible,
			  uint32_t n_visible, gh_page_match *out, size_t capacity, size_t *n_out,
			  uint8_t *refused, gh_page_stats *stats)
{
	if (t && t->n_parts > 0)
	{
		gh_set_last_error("page walk: the page walk takes single tables, not a partitioned one");
		return GH_ERR_INVALID;
	}
	if (t && t->device == GH_DEVICE_GPU)
		return gh_gpu_page_probe(t, scan, refs, n_pages, page_data, page_data_bytes, visible,
								 n_visible, out, capacity, n_out, refused, stats);
	return gh_page_probe_host(t, scan, refs, n_pages, page_data, page_data_bytes, visible,
							  n_visible, out, capacity, n_out, refused, stats);
}

gh_status
gh_page_probe_mapped(gh_table *t, const gh_page_scan *scan, const gh_page_ref *refs,
					 uint32_t n_pages, const uint8_t *page_data, size_t page_data_bytes,
					 const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
					 size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats)
{
	if (t && t->n_parts > 0)
	{
		gh_set_last_error("page walk: the page walk takes single tables, not a partitioned one");
		return GH_ERR_INVALID;
	}
	if (t && t->device == GH_DEVICE_GPU)
		return gh_gpu_page_probe_mapped(t, scan, refs, n_pages, page_data, page_data_bytes,
										visible, n_visible, out, capacity, n_out, refused, stats);
	/* the host twin reads pages where they lie in either mode */
	return gh_page_probe_host(t, scan, refs, n_pages, page_data, page_data_bytes, visible,
							  n_visible, out, capacity, n_out, refused, stats);
}

/*
 * The page store (gpuhash_page.h): on the host twin, host memory and
 * memcpy, so that CI walks the service's page cache as a GPU does.
 */
gh_status
gh_page_store_alloc(int ordinal, size_t n_pages, uint8_t **store)
{
	*store = nullptr;
	if (ordinal >= 0)
		return gh_gpu_page_store_alloc(ordinal, n_pages, store);
	*store = (uint8_t *) malloc(n_pages * GH_PAGE_SIZE);
	if (!*store)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory for %zu stored pages", n_pages);
	return GH_OK;
}

void
gh_page_store_free(int ordinal, uint8_t *store)
{
	if (ordinal >= 0)
		gh_gpu_page_store_free(ordinal, store);
	else
		free(store);
}

gh_status
gh_page_mapped_address(int ordinal, const void *ptr, uint64_t *addr)
{
	if (ordinal >= 0)
		return gh_gpu_page_mapped_address(ordinal, ptr, addr);
	*addr = (uint64_t) (uintptr_t) ptr;
	return GH_OK;
}

/* Fills as the caller gave them: each with both addresses, at most n_max. */
static gh_status
check_fills(const gh_page_fill *fills, uint32_t n_fills, uint32_t n_max)
{
	if (n_fills && !fills)
		return gh_error(GH_ERR_INVALID, "page walk: %u fills given without their list", n_fills);
	if (n_fills > n_max)
		return gh_error(GH_ERR_INVALID, "page walk: %u fills for %u pages", n_fills, n_max);
	for (uint32_t i = 0; i < n_fills; i++)
		if (!fills[i].src || !fills[i].dst)
			return gh_error(GH_ERR_INVALID, "page walk: fill %u has no address", i);
	return GH_OK;
}

/* The host twin's fills: copies in host memory. */
static void
host_fills(const gh_page_fill *fills, uint32_t n_fills)
{
	for (uint32_t i = 0; i < n_fills; i++)
		memcpy((void *) (uintptr_t) fills[i].dst, (const void *) (uintptr_t) fills[i].src,
			   GH_PAGE_SIZE);
}

gh_status
gh_page_fill_pages(int ordinal, const gh_page_fill *fills, uint32_t n_fills)
{
	GH_PAGE_CHECK(check_fills(fills, n_fills, UINT32_MAX));
	if (ordinal >= 0)
		return gh_gpu_page_fill_pages(ordinal, fills, n_fills);
	host_fills(fills, n_fills);
	return GH_OK;
}

gh_status
gh_page_probe_at(gh_table *t, gh_page_lane *lane, const gh_page_fill *fills, uint32_t n_fills,
				 const gh_page_scan *scan, const gh_page_ref *refs, uint32_t n_pages,
				 const uint16_t *visible, uint32_t n_visible, gh_page_match *out,
				 size_t capacity, size_t *n_out, uint8_t *refused, gh_page_stats *stats)
{
	if (t && t->n_parts > 0)
	{
		gh_set_last_error("page walk: the page walk takes single tables, not a partitioned one");
		return GH_ERR_INVALID;
	}
	GH_PAGE_CHECK(check_fills(fills, n_fills, n_pages));
	if (lane || (t && t->device == GH_DEVICE_GPU))
		return gh_gpu_page_probe_at(t, lane, fills, n_fills, scan, refs, n_pages, visible,
									n_visible, out, capacity, n_out, refused, stats);
	host_fills(fills, n_fills);
	return gh_page_probe_host(t, scan, refs, n_pages, nullptr, GH_PAGE_DATA_AT, visible,
							  n_visible, out, capacity, n_out, refused, stats);
}
