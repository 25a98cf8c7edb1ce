/*
 * page_builder.h
 *		core_test's PostgreSQL heap pages, made the way heap_form_tuple and
 *		PageAddItem make them (PostgreSQL 15, little-endian): a page header,
 *		line pointers of every kind, tuple headers with null bitmaps,
 *		alignment padding, short and long varlenas, numerics in both
 *		header forms, and the values the page walker must refuse.
 *		Each row is also kept as logical values for the reference.
 */
#ifndef GPUHASH_TEST_PAGE_BUILDER_H
#define GPUHASH_TEST_PAGE_BUILDER_H

#include "gpuhash_page.h"

#include <stdint.h>
#include <string.h>
#include <string>
#include <vector>

namespace pagetest
{

/* A numeric: class (-1 -Inf, 0 finite, 1 +Inf, 2 NaN), m * 10^-scale. */
struct num
{
	int			cls = 0;
	int64_t		m = 0;
	int			scale = 0;
	int			dscale = 0;		/* display scale, >= scale (trailing zeros) */
};

/* A logical value of a column or a constant. */
struct lval
{
	bool		null = true;
	int64_t		i = 0;			/* integers, oid, bool, date, time, timestamp */
	double		f = 0;
	std::string s;				/* text, bpchar */
	num			n;
};

/* How a varlena value is stored (the walker refuses the last two if needed). */
enum vstore
{
	V_AUTO = 0,					/* 1-byte header when it fits, as PostgreSQL packs */
	V_LONG,						/* 4-byte header even when short */
	V_COMPRESSED,				/* a 4-byte compressed header over junk */
	V_EXTERNAL					/* a TOAST pointer */
};

struct col_desc
{
	int16_t		attlen;
	uint8_t		attalign;
	uint8_t		type;			/* gh_col_type of the value (dropped: its old type) */
};

static inline void
put16(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	b[at] = (uint8_t) v;
	b[at + 1] = (uint8_t) (v >> 8);
}

static inline void
put32(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[at + i] = (uint8_t) (v >> (8 * i));
}

/* Numeric data (after the varlena header) in short or long form. */
static inline std::vector<uint8_t>
numeric_data(const num &n, bool force_long)
{
	std::vector<uint8_t> d;

	if (n.cls != 0)
	{
		uint32_t	h = n.cls == 2 ? 0xC000 : n.cls == 1 ? 0xD000 : 0xF000;

		d.resize(2);
		put16(d, 0, h);
		return d;
	}

	/* decimal digits of |m|, the point `scale` digits from the right */
	uint64_t	a = n.m < 0 ? (uint64_t) -(n.m + 1) + 1 : (uint64_t) n.m;
	std::string ds = std::to_string(a);

	while ((int) ds.size() <= n.scale)
		ds = "0" + ds;

	std::string ip = ds.substr(0, ds.size() - n.scale),
				fp = ds.substr(ds.size() - n.scale);

	while (ip.size() % 4)
		ip = "0" + ip;
	while (fp.size() % 4)
		fp += "0";

	std::vector<int> g;

	for (size_t i = 0; i < ip.size(); i += 4)
		g.push_back(std::stoi(ip.substr(i, 4)));

	int			weight = (int) g.size() - 1;

	for (size_t i = 0; i < fp.size(); i += 4)
		g.push_back(std::stoi(fp.substr(i, 4)));
	while (!g.empty() && g.front() == 0)
	{
		g.erase(g.begin());
		weight--;
	}
	while (!g.empty() && g.back() == 0)
		g.pop_back();

	bool		neg = n.m < 0;

	if (g.empty())
	{
		weight = 0;
		neg = false;
	}
	if (!force_long && n.dscale <= 63 && weight >= -64 && weight <= 63)
	{
		d.resize(2 + 2 * g.size());
		put16(d, 0, 0x8000 | (neg ? 0x2000 : 0) | (n.dscale << 7) | (weight < 0 ? 0x40 : 0) |
			  (weight & 0x3F));
		for (size_t i = 0; i < g.size(); i++)
			put16(d, 2 + 2 * i, (uint32_t) g[i]);
	}
	else
	{
		d.resize(4 + 2 * g.size());
		put16(d, 0, (neg ? 0x4000 : 0) | n.dscale);
		put16(d, 2, (uint32_t) (uint16_t) (int16_t) weight);
		for (size_t i = 0; i < g.size(); i++)
			put16(d, 4 + 2 * i, (uint32_t) g[i]);
	}
	return d;
}

/* A varlena of data, with its header as st says. */
static inline std::vector<uint8_t>
varlena(const std::vector<uint8_t> &data, vstore st)
{
	std::vector<uint8_t> v;

	if (st == V_EXTERNAL)
	{
		v.assign(18, 0x5A);
		v[0] = 0x01;
		v[1] = 18;				/* VARTAG_ONDISK */
		return v;
	}
	if (st == V_AUTO && data.size() + 1 <= 127)
	{
		v.push_back((uint8_t) (((data.size() + 1) << 1) | 1));
		v.insert(v.end(), data.begin(), data.end());
		return v;
	}
	v.resize(4);
	put32(v, 0, (uint32_t) ((data.size() + 4) << 2) | (st == V_COMPRESSED ? 2 : 0));
	v.insert(v.end(), data.begin(), data.end());
	return v;
}

/* A value's bytes in a tuple: fixed (attlen) or a varlena. */
static inline std::vector<uint8_t>
value_bytes(const col_desc &c, const lval &v, vstore st, bool force_long_numeric)
{
	std::vector<uint8_t> b;

	if (c.attlen > 0)
	{
		b.assign(c.attlen, 0);
		uint64_t	x = (uint64_t) v.i;

		if (c.type == GH_T_FLOAT4)
		{
			float		f = (float) v.f;

			memcpy(&x, &f, 4);
		}
		else if (c.type == GH_T_FLOAT8)
			memcpy(&x, &v.f, 8);
		for (int i = 0; i < c.attlen && i < 8; i++)
			b[i] = (uint8_t) (x >> (8 * i));
		return b;
	}
	if (c.attlen == -2)
	{
		b.assign(v.s.begin(), v.s.end());
		b.push_back(0);
		return b;
	}

	std::vector<uint8_t> data;

	if (c.type == GH_T_NUMERIC)
		data = numeric_data(v.n, force_long_numeric);
	else
		data.assign(v.s.begin(), v.s.end());
	return varlena(data, st);
}

/* A cell of a row: its value and how it is stored. */
struct cell
{
	lval		v;
	vstore		st = V_AUTO;
	bool		long_numeric = false;
};

/*
 * A heap tuple of natts attributes (heap_fill_tuple's layout): header,
 * bitmap when any is NULL, t_hoff maxaligned, each value aligned to its
 * attalign except varlenas with 1-byte headers.
 */
static inline std::vector<uint8_t>
heap_tuple(const std::vector<col_desc> &desc, const std::vector<cell> &row, int natts,
		   uint16_t extra_infomask2, uint64_t junk)
{
	bool		hasnull = false;

	for (int a = 0; a < natts; a++)
		hasnull |= row[a].v.null;

	size_t		hoff = 23 + (hasnull ? (natts + 7) / 8 : 0);

	hoff = (hoff + 7) & ~(size_t) 7;

	std::vector<uint8_t> t(hoff, 0);

	for (int i = 0; i < 18; i++)	/* xmin, xmax, cid, ctid: anything */
		t[i] = (uint8_t) (junk >> (8 * (i % 8)));
	put16(t, 18, (uint32_t) natts | extra_infomask2);
	put16(t, 20, (hasnull ? 1 : 0) | 0x0002 | 0x0100);	/* + HASVARWIDTH, XMIN_COMMITTED */
	t[22] = (uint8_t) hoff;
	for (int a = 0; a < natts; a++)
	{
		if (hasnull && !row[a].v.null)
			t[23 + a / 8] |= (uint8_t) (1 << (a % 8));
		if (row[a].v.null)
			continue;

		std::vector<uint8_t> b = value_bytes(desc[a], row[a].v, row[a].st, row[a].long_numeric);
		size_t		off = t.size() - hoff;
		bool		short_vl = desc[a].attlen == -1 && (b[0] & 1);

		if (!short_vl)
		{
			size_t		al = desc[a].attalign;

			while (off % al)
			{
				t.push_back(0);
				off++;
			}
		}
		t.insert(t.end(), b.begin(), b.end());
	}
	return t;
}

/* An 8 kB page, filled from the end like PageAddItem. */
struct page
{
	std::vector<uint8_t> b = std::vector<uint8_t>(GH_PAGE_SIZE, 0);
	uint32_t	lower = 24,
				upper = GH_PAGE_SIZE;

	page()
	{
		sync();
	}
	void		sync()
	{
		put16(b, 12, lower);
		put16(b, 14, upper);
		put16(b, 16, GH_PAGE_SIZE);
		put16(b, 18, GH_PAGE_SIZE | 4);
	}
	bool		fits(size_t len) const
	{
		return lower + 4 + ((len + 7) & ~(size_t) 7) <= upper;
	}
	/* Adds an item (flags 1 normal with data; 0, 2, 3 without); its lp. */
	int			add(int flags, const std::vector<uint8_t> &data, uint32_t redirect_to = 0)
	{
		uint32_t	off = 0,
					len = 0;

		if (flags == 1)
		{
			len = (uint32_t) data.size();
			upper -= (len + 7) & ~7U;
			off = upper;
			memcpy(&b[off], data.data(), len);
		}
		else if (flags == 2)
			off = redirect_to;
		put32(b, lower, off | ((uint32_t) flags << 15) | (len << 17));
		lower += 4;
		sync();
		return (int) (lower - 24) / 4;
	}
	int			nitems() const
	{
		return (int) (lower - 24) / 4;
	}
};

}								/* namespace pagetest */

#endif							/* GPUHASH_TEST_PAGE_BUILDER_H */
