/*
 * core_page.cpp
 *		core_test's checks of the page walker (gh_page_probe): random heap
 *		pages built as PostgreSQL lays them out (page_builder.h), random
 *		scan programs over every column type, qual form and key packing,
 *		every line pointer kind, visible lists and all-visible pages, NULLs,
 *		missing attributes, dropped columns, and values the walker must
 *		refuse.  Each walk is compared with the reference (page_reference.h)
 *		run over the rows' logical values, on tables of every scheme; on a
 *		GPU the GPU walk's output must equal the host twin's, byte for byte.
 *		Malformed pages and programs are checked to be refused or rejected.
 */
#include "gpuhash_page.h"
#include "gpuhash_table.h"
#include "table_internal.h"
#include "page_gen.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <thread>
#include <vector>

#include "test_check.h"

using namespace pagetest;
using std::string;
using std::vector;

/* core_page_dim.cpp */
void		check_page_dim(const char *tag, const gh_page_scan *scan, const vector<gpage> &pages,
						   const vector<row> &rows, const expect &e, const vector<uint8_t> &data,
						   const vector<gh_page_ref> &refs, const vector<uint16_t> &vis, int gpus,
						   int *checks, int *failures);

namespace
{

int		   *n_checks,
		   *n_failures;

#define PCHECK(cond, ...) GH_TEST_CHECK(n_checks, n_failures, cond, __VA_ARGS__)


/* A case: the scan, its constants, its pages and rows, the request. */
struct gcase
{
	gh_page_scan *scan = nullptr;
	consts		k;
	vector<gpage> pages;
	vector<row> rows;
	vector<uint8_t> data;
	vector<gh_page_ref> refs;
	vector<uint16_t> vis;

	gcase() : scan(new gh_page_scan()) {}
	~gcase()
	{
		delete scan;
	}
	gcase(const gcase &) = delete;
	gcase &operator=(const gcase &) = delete;
};

row
gen_row(prng &r, bool refusals, bool dense)
{
	row			rw;

	rw.natts = dense ? 0 : r.chance(0.1) ? 12 + (int) r.below(4) : (int) DESC.size();
	for (size_t a = 0; a < DESC.size(); a++)
	{
		cell		c;

		if (!r.chance(a == 0 ? 0.05 : 0.15))
			c.v = gen_value(r, (int) a == CSTRING ? (uint8_t) GH_T_TEXT : DESC[a].type);
		if ((int) a == CSTRING && !c.v.null)
		{
			/* a cstring holds no zero byte */
			c.v.s.erase(std::remove(c.v.s.begin(), c.v.s.end(), '\0'), c.v.s.end());
		}
		else if (DESC[a].attlen == -1 && !c.v.null)
		{
			if (refusals && r.chance(0.01))
				c.st = r.chance(0.5) ? V_COMPRESSED : V_EXTERNAL;
			else if (r.chance(0.15))
				c.st = V_LONG;
			c.long_numeric = r.chance(0.3);
		}
		rw.cells.push_back(c);
	}
	return rw;
}

void
gen_pages(prng &r, gcase &c, bool refusals)
{
	size_t		npages = 1 + r.below(10);

	for (size_t p = 0; p < npages; p++)
	{
		gpage		g;
		uint64_t	kind = r.below(20);

		if (kind == 0)
		{
			g.raw_zero = true;
			g.pg.b.assign(GH_PAGE_SIZE, 0);
		}
		else if (kind != 1)
		{
			bool		dense = kind == 2;
			size_t		want = dense ? 300 : 1 + r.below(80);

			for (size_t i = 0; i < want; i++)
			{
				uint64_t	f = r.below(20);

				if (g.pg.nitems() >= GH_PAGE_MAX_TUPLES)
					break;		/* MaxHeapTuplesPerPage line pointers at most */
				if (f == 0 || f == 1 || (f == 2 && g.pg.nitems() == 0))
				{
					if (g.pg.lower + 4 > g.pg.upper)
						break;
					g.pg.add(f == 0 ? 3 : 0, {});
					g.item_row.push_back(-1);
					continue;
				}
				if (f == 2)
				{
					if (g.pg.lower + 4 > g.pg.upper)
						break;
					g.pg.add(2, {}, 1 + (uint32_t) r.below(g.pg.nitems()));
					g.item_row.push_back(-1);
					continue;
				}

				row			rw = gen_row(r, refusals, dense);
				uint16_t	hot = f == 3 ? 0x4000 : f == 4 ? 0x8000 : 0;
				vector<uint8_t> t = heap_tuple(DESC, rw.cells, rw.natts, hot, r.next());

				if (!g.pg.fits(t.size()) || g.pg.nitems() >= GH_PAGE_MAX_TUPLES)
					break;
				g.pg.add(1, t);
				g.item_row.push_back((int) c.rows.size());
				c.rows.push_back(rw);
			}
		}

		int			n = g.raw_zero ? 0 : g.pg.nitems();

		g.ref.offset = 0;
		g.ref.vis_start = 0;
		if (r.chance(0.6))
		{
			g.ref.nvis = GH_PAGE_ALL_VISIBLE;
			g.ref.maxoff = (uint16_t) (r.chance(0.2) ? r.below(n + 1) : n);
		}
		else
		{
			for (int lp = 1; lp <= n; lp++)
				if (g.item_row[lp - 1] >= 0 && r.chance(0.7))
					g.vis.push_back((uint16_t) lp);
			g.ref.nvis = (uint16_t) g.vis.size();
			g.ref.maxoff = (uint16_t) n;
		}
		c.pages.push_back(std::move(g));
	}

	/* the pages lie in the request's data in reverse order, after a gap */
	c.data.assign((npages + 1) * GH_PAGE_SIZE, 0xEE);
	for (size_t p = 0; p < npages; p++)
	{
		gh_page_ref ref = c.pages[p].ref;

		ref.offset = (npages - p) * GH_PAGE_SIZE;
		memcpy(&c.data[ref.offset], c.pages[p].pg.b.data(), GH_PAGE_SIZE);
		if (ref.nvis != GH_PAGE_ALL_VISIBLE)
		{
			ref.vis_start = (uint32_t) c.vis.size();
			c.vis.insert(c.vis.end(), c.pages[p].vis.begin(), c.pages[p].vis.end());
		}
		c.refs.push_back(ref);
	}
}

void
gen_scan(prng &r, gcase &c)
{
	gh_page_scan &s = *c.scan;
	const vector<gh_page_key> &keys = KEYS[r.below(KEYS.size())];

	s.mode = r.chance(0.5) ? GH_PAGE_MATCHES : GH_PAGE_ALL_ROWS;
	s.natts = (int16_t) DESC.size();
	for (size_t a = 0; a < DESC.size(); a++)
	{
		gh_page_column &col = s.col[a];
		bool		key = false;

		for (const gh_page_key &k : keys)
			key |= k.col == (int) a;
		col.attlen = DESC[a].attlen;
		col.attalign = DESC[a].attalign;
		col.type = ((int) a == DROPPED || (int) a == CSTRING || (!key && r.chance(0.15)))
			? (uint8_t) GH_T_SKIP : DESC[a].type;
		col.missing = (uint8_t) (r.chance(0.6) ? GH_MISSING_NULL
								 : (DESC[a].attlen > 0 && r.chance(0.7)) ? GH_MISSING_VALUE
								 : GH_MISSING_REFUSE);
		col.missing_value = DESC[a].type == GH_T_BOOL ? 1 : DESC[a].type == GH_T_INT2 ? -3 : 42;
		if (DESC[a].type == GH_T_FLOAT4 || DESC[a].type == GH_T_FLOAT8)
			col.missing = GH_MISSING_NULL;	/* a float's Datum is its bits: not drawn here */
	}
	/* the scan walks up to its last needed column */
	while (s.natts > 0 && s.col[s.natts - 1].type == GH_T_SKIP)
		s.natts--;
	s.nkeys = (int16_t) keys.size();
	for (size_t i = 0; i < keys.size(); i++)
		s.key[i] = keys[i];

	progbuilder pb{&s, consts(), r, {}};

	for (int a = 0; a < s.natts; a++)
		if (s.col[a].type != GH_T_SKIP)
			pb.need_of[s.col[a].type].push_back(a);
	if (!r.chance(0.15))
		pb.predicate(0);
	c.k = pb.k;
}

/* The table's keys: some of the rows' keys, repeated, and others. */
vector<uint64_t>
table_keys(prng &r, const expect &e)
{
	vector<uint64_t> keys;

	for (size_t i = 0; i < e.keys.size(); i++)
		if (!(e.rows[i].flags & GH_PM_NULL_KEY) && r.chance(0.5))
			for (uint64_t k = 1 + r.below(3); k > 0; k--)
				keys.push_back(e.keys[i]);
	for (int i = (int) r.below(20); i > 0; i--)
		keys.push_back(r.next() % 50);
	return keys;
}

struct walk_result
{
	gh_status	st;
	vector<gh_page_match> out;
	vector<uint8_t> refused;
	gh_page_stats stats;
};

walk_result
walk(gh_table *t, const gcase &c, bool host_twin)
{
	walk_result w;
	size_t		n = 0,
				cap = c.pages.size() * GH_PAGE_MAX_TUPLES;

	w.out.resize(cap + 1);
	w.refused.assign(c.pages.size(), 7);
	memset(&w.stats, 0, sizeof(w.stats));
	w.st = (host_twin ? gh_page_probe_host : gh_page_probe) (t, c.scan, c.refs.data(),
		(uint32_t) c.refs.size(), c.data.data(), c.data.size(), c.vis.data(),
		(uint32_t) c.vis.size(), w.out.data(), cap, &n, w.refused.data(), &w.stats);
	w.out.resize(n);
	return w;
}

/*
 * The in-place mode's request over c's pages (page_scan.c): the pages where
 * they lie in a long-lived buffer (registered with the GPUs once, as the
 * service registers the buffer pool), each all-visible page sent as the
 * list of its LP_NORMAL offsets up to maxoff, read from its line pointers.
 * Then, as concurrent inserts may once the share lock is released, every
 * page's unused line pointers are refilled and one is added (pointing at a
 * tuple the page holds): the walk must read the listed items alone.
 */
const size_t IN_PLACE_PAGES = 16;
uint8_t    *in_place_data;
bool		in_place_mapped;

/* Unused line pointers of page made LP_NORMAL, and one more added. */
void
refill(uint8_t *page)
{
	uint32_t	lower = page[12] | (page[13] << 8),
				upper = page[14] | (page[15] << 8),
				normal = 0;
	int			nitems = lower >= 24 && upper > 0 ? (int) (lower - 24) / 4 : 0;

	for (int lp = 1; lp <= nitems && !normal; lp++)
	{
		uint32_t	w;

		memcpy(&w, page + 24 + 4 * (lp - 1), 4);
		if (((w >> 15) & 3) == 1)
			normal = w;
	}
	if (!normal)
		return;
	for (int lp = 1; lp <= nitems; lp++)
	{
		uint32_t	w;

		memcpy(&w, page + 24 + 4 * (lp - 1), 4);
		if (((w >> 15) & 3) == 0)
			memcpy(page + 24 + 4 * (lp - 1), &normal, 4);
	}
	if (lower + 4 <= upper && nitems < GH_PAGE_MAX_TUPLES)
	{
		memcpy(page + lower, &normal, 4);
		lower += 4;
		page[12] = (uint8_t) lower;
		page[13] = (uint8_t) (lower >> 8);
	}
}

walk_result
walk_in_place(gh_table *t, const gcase &c, bool host_twin, vector<gh_page_ref> *refs_used = nullptr,
			  vector<uint16_t> *vis_used = nullptr)
{
	vector<gh_page_ref> refs;
	vector<uint16_t> vis;
	walk_result w;
	size_t		n = 0,
				cap = c.pages.size() * GH_PAGE_MAX_TUPLES;

	if (c.data.size() > IN_PLACE_PAGES * GH_PAGE_SIZE)
	{
		w.st = GH_ERR_INVALID;
		return w;
	}
	memcpy(in_place_data, c.data.data(), c.data.size());
	for (const gh_page_ref &cr : c.refs)
	{
		gh_page_ref ref = cr;
		uint32_t	start = (uint32_t) vis.size();

		if (cr.nvis == GH_PAGE_ALL_VISIBLE)
		{
			const uint8_t *page = c.data.data() + cr.offset;
			uint32_t	lower = page[12] | (page[13] << 8);
			int			nitems = lower >= 24 ? (int) (lower - 24) / 4 : 0;

			for (int lp = 1; lp <= cr.maxoff && lp <= nitems; lp++)
			{
				const uint8_t *w4 = page + 24 + 4 * (lp - 1);
				uint32_t	word = w4[0] | (w4[1] << 8) | (w4[2] << 16) | ((uint32_t) w4[3] << 24);

				if (((word >> 15) & 3) == 1)
					vis.push_back((uint16_t) lp);
			}
		}
		else
			vis.insert(vis.end(), c.vis.begin() + cr.vis_start,
					   c.vis.begin() + cr.vis_start + cr.nvis);
		ref.vis_start = start;
		ref.nvis = (uint16_t) (vis.size() - start);
		refs.push_back(ref);
		refill(in_place_data + cr.offset);
	}
	w.out.resize(cap + 1);
	w.refused.assign(c.pages.size(), 7);
	memset(&w.stats, 0, sizeof(w.stats));
	w.st = (host_twin ? gh_page_probe_host : gh_page_probe_mapped) (t, c.scan, refs.data(),
		(uint32_t) refs.size(), in_place_data, IN_PLACE_PAGES * GH_PAGE_SIZE, vis.data(),
		(uint32_t) vis.size(), w.out.data(), cap, &n, w.refused.data(), &w.stats);
	w.out.resize(n);
	if (refs_used)
		*refs_used = refs;
	if (vis_used)
		*vis_used = vis;
	return w;
}

/* A walk's result against the reference, t built from keys. */
void
check_walk(const char *tag, const walk_result &w, const gcase &c, const expect &e,
		   gh_table *t, const vector<uint64_t> &keys)
{
	PCHECK(w.st == GH_OK, "%s: walk failed: %s", tag, gh_last_error());
	if (w.st != GH_OK)
		return;
	PCHECK(w.refused == e.refused, "%s: refused pages differ", tag);
	PCHECK(w.stats.tuples == e.tuples && w.stats.passed == e.passed &&
		   w.stats.pages == c.pages.size() && w.stats.written == w.out.size(),
		   "%s: stats differ: tuples %llu/%llu passed %llu/%llu", tag,
		   (unsigned long long) w.stats.tuples, (unsigned long long) e.tuples,
		   (unsigned long long) w.stats.passed, (unsigned long long) e.passed);

	const uint32_t *rowids = t ? (const uint32_t *) gh_sorted_rowids(t) : nullptr;
	vector<gh_page_match> want;
	vector<uint64_t> want_keys;

	for (size_t i = 0; i < e.rows.size(); i++)
	{
		gh_page_match m = e.rows[i];

		if (t && !(m.flags & GH_PM_NULL_KEY))
			m.range.count = (uint32_t) std::count(keys.begin(), keys.end(), e.keys[i]);
		if (t && c.scan->mode == GH_PAGE_MATCHES && m.range.count == 0)
			continue;
		want.push_back(m);
		want_keys.push_back(e.keys[i]);
	}
	PCHECK(w.out.size() == want.size(), "%s: %zu match records, the reference %zu", tag,
		   w.out.size(), want.size());
	for (size_t i = 0; i < w.out.size() && i < want.size(); i++)
	{
		const gh_page_match &a = w.out[i],
				   &b = want[i];
		bool		ok = a.page == b.page && a.lp == b.lp && a.flags == b.flags &&
			a.range.count == b.range.count && (a.range.count > 0 || a.range.offset == 0);

		for (uint32_t j = 0; ok && rowids && j < a.range.count; j++)
			ok = keys[rowids[a.range.offset + j]] == want_keys[i];
		PCHECK(ok, "%s: record %zu: (%u, %u, %u, %u) the reference (%u, %u, %u, %u)", tag, i,
			   a.page, a.lp, a.flags, a.range.count, b.page, b.lp, b.flags, b.range.count);
		if (!ok)
			break;
	}
}

bool
same_walk(const walk_result &a, const walk_result &b)
{
	return a.st == b.st && a.refused == b.refused && a.out.size() == b.out.size() &&
		(a.out.empty() || memcmp(a.out.data(), b.out.data(), a.out.size() * sizeof(gh_page_match)) == 0) &&
		a.stats.tuples == b.stats.tuples && a.stats.passed == b.stats.passed &&
		a.stats.refused == b.stats.refused && a.stats.written == b.stats.written;
}

/*
 * The walk by address (gh_page_probe_at, the service's page cache): the
 * pages of walk_in_place, on ordinal (-1: the host twin), first the even
 * ones copied into a store by fills and the odd ones read where they lie,
 * then the odd ones filled and the even ones read from the store, then
 * every page from the store with no fill.  Each walk equals want.
 */
int			at_walks;

void
walk_at_check(const char *tag, gh_table *t, int ordinal, const gcase &c, const walk_result &want)
{
	vector<gh_page_ref> refs;
	vector<uint16_t> vis;
	walk_result ip = walk_in_place(t, c, ordinal < 0, &refs, &vis);
	uint8_t    *store = nullptr;
	uint64_t	base = 0;
	size_t		cap = c.pages.size() * GH_PAGE_MAX_TUPLES;

	if (ip.st != GH_OK || refs.empty())
		return;
	PCHECK(gh_page_store_alloc(ordinal, refs.size(), &store) == GH_OK &&
		   gh_page_mapped_address(ordinal, in_place_data, &base) == GH_OK,
		   "%s: page store: %s", tag, gh_last_error());
	if (!store)
		return;
	for (int round = 0; round < 3; round++)
	{
		vector<gh_page_ref> at = refs;
		vector<gh_page_fill> fills;
		walk_result w;
		size_t		n = 0;

		for (size_t i = 0; i < refs.size(); i++)
		{
			uint64_t	copy = (uint64_t) (uintptr_t) (store + i * GH_PAGE_SIZE),
						lies = base + refs[i].offset;

			if (round < 2 && (int) (i % 2) == round)
				fills.push_back({lies, copy});
			at[i].offset = round < 2 && (int) (i % 2) != round ? (round == 0 ? lies : copy) : copy;
		}
		w.out.resize(cap + 1);
		w.refused.assign(c.pages.size(), 7);
		memset(&w.stats, 0, sizeof(w.stats));
		w.st = gh_page_probe_at(t, nullptr, fills.data(), (uint32_t) fills.size(), c.scan,
								at.data(), (uint32_t) at.size(), vis.data(), (uint32_t) vis.size(),
								w.out.data(), cap, &n, w.refused.data(), &w.stats);
		w.out.resize(n);
		at_walks++;
		PCHECK(same_walk(w, want), "%s: the walk by address (round %d, %zu fills) differs: %s",
			   tag, round, fills.size(), w.st == GH_OK ? "records" : gh_last_error());
	}
	gh_page_store_free(ordinal, store);
}

/*
 * A table's walk again: with one record less room than it writes (the
 * records that fit, GH_ERR_OUTPUT_FULL and the count), then its first page
 * alone and all of it again (scratch reused, grown, reused), then no page.
 */
void
request_edges(const char *tag, gh_table *t, const gcase &c, const walk_result &full)
{
	size_t		n = 0;
	vector<gh_page_match> out(full.out.size() + 1);
	vector<uint8_t> refused(c.pages.size());
	gh_page_stats st;

	if (!full.out.empty())
	{
		gh_status	s = gh_page_probe(t, c.scan, c.refs.data(), (uint32_t) c.refs.size(),
									  c.data.data(), c.data.size(), c.vis.data(),
									  (uint32_t) c.vis.size(), out.data(), full.out.size() - 1,
									  &n, refused.data(), &st);

		PCHECK(s == GH_ERR_OUTPUT_FULL && n == full.out.size() && refused == full.refused &&
			   memcmp(out.data(), full.out.data(), (n - 1) * sizeof(gh_page_match)) == 0,
			   "%s: a walk over its capacity: status %d, %zu records of %zu", tag, s, n,
			   full.out.size());
	}

	gh_status	s = gh_page_probe(t, c.scan, c.refs.data(), 1, c.data.data(), c.data.size(),
								  c.vis.data(), (uint32_t) c.vis.size(), out.data(), out.size(),
								  &n, refused.data(), &st);
	size_t		first = 0;

	while (first < full.out.size() && full.out[first].page == 0)
		first++;
	PCHECK(s == GH_OK && n == first && refused[0] == full.refused[0] &&
		   memcmp(out.data(), full.out.data(), n * sizeof(gh_page_match)) == 0,
		   "%s: its first page alone differs", tag);

	walk_result again = walk(t, c, false);

	PCHECK(same_walk(again, full), "%s: walked again, it differs", tag);
	s = gh_page_probe(t, c.scan, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0, &n, nullptr, &st);
	PCHECK(s == GH_OK && n == 0 && st.pages == 0, "%s: a walk of no page: status %d", tag, s);
}

/*
 * Walks of one table at once, each on a lane of its own (as the service's
 * threads walk a parallel plan's requests): LANE_THREADS threads, each
 * taking a lane under one lock, walking without it (the copied pages, or the
 * in-place ones: every thread reads the same registered pages), giving it
 * back; every walk must equal the table's own.  A table that is not on a
 * GPU has no lanes: take answers NULL.
 */
const int	LANE_THREADS = 4,
			LANE_ROUNDS = 3;
uint64_t	lane_walks = 0;

void
lanes_check(const char *tag, gh_table *t, const gcase &c, const walk_result &ref, bool in_place,
			const vector<gh_page_ref> &refs, const vector<uint16_t> &vis)
{
	std::mutex	lock;
	std::atomic<int> bad{0},
				walks{0};
	const uint8_t *data = in_place ? in_place_data : c.data.data();
	size_t		bytes = in_place ? IN_PLACE_PAGES * GH_PAGE_SIZE : c.data.size();
	size_t		cap = c.pages.size() * GH_PAGE_MAX_TUPLES;
	vector<std::thread> th;

	if (t->device != GH_DEVICE_GPU)
	{
		gh_page_lane *lane = reinterpret_cast<gh_page_lane *>(&lock);

		PCHECK(gh_page_lane_take(t, c.data.size(), (uint32_t) refs.size(), (uint32_t) vis.size(),
								 &lane) == GH_OK && lane == nullptr,
			   "%s: a table not on a GPU gave a lane", tag);
		return;
	}
	for (int i = 0; i < LANE_THREADS; i++)
		th.emplace_back([&]() {
			for (int r = 0; r < LANE_ROUNDS; r++)
			{
				gh_page_lane *lane = nullptr;
				gh_status	st;
				walk_result w;
				size_t		n = 0;

				{
					std::lock_guard<std::mutex> g(lock);

					st = gh_page_lane_take(t, in_place ? 0 : bytes, (uint32_t) refs.size(),
										   (uint32_t) vis.size(), &lane);
				}
				if (st != GH_OK || lane == nullptr)
				{
					bad++;
					return;
				}
				w.out.resize(cap + 1);
				w.refused.assign(c.pages.size(), 7);
				memset(&w.stats, 0, sizeof(w.stats));
				w.st = gh_page_probe_lane(lane, in_place, c.scan, refs.data(), (uint32_t) refs.size(),
										  data, bytes, vis.data(), (uint32_t) vis.size(),
										  w.out.data(), cap, &n, w.refused.data(), &w.stats);
				w.out.resize(n);
				{
					std::lock_guard<std::mutex> g(lock);

					gh_page_lane_give(t, lane, w.st == GH_OK ? &w.stats : nullptr);
				}
				if (!same_walk(w, ref))
					bad++;
				walks++;
			}
		});
	for (std::thread &x : th)
		x.join();
	lane_walks += (uint64_t) walks.load();
	PCHECK(bad.load() == 0 && walks.load() == LANE_THREADS * LANE_ROUNDS,
		   "%s: %d of %d walks on lanes (%s pages) differ from the table's own walk or failed",
		   tag, bad.load(), LANE_THREADS * LANE_ROUNDS, in_place ? "in-place" : "copied");
}

void
random_cases(int gpus, int n_cases)
{
	const gh_scheme schemes[] = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR,
	GH_SCHEME_CUCKOO, GH_SCHEME_HASHGRAPH, GH_SCHEME_DYCUCKOO};
	uint64_t	refused = 0,
				pages = 0,
				written = 0,
				tuples = 0;

	for (int ci = 0; ci < n_cases; ci++)
	{
		prng		r{0x9a6e000 + (uint64_t) ci};
		gcase		c;
		int			before = *n_failures;

		gen_scan(r, c);
		gen_pages(r, c, ci % 3 == 0);
		PCHECK(gh_page_scan_check(c.scan) == GH_OK, "case %d: a generated program was rejected: %s",
			   ci, gh_last_error());

		expect		e = reference_walk(*c.scan, c.k, c.pages, c.rows);
		vector<uint64_t> keys = table_keys(r, e);
		walk_result none = walk(nullptr, c, false);
		char		tag[96];

		snprintf(tag, sizeof(tag), "case %d/no table", ci);
		check_walk(tag, none, c, e, nullptr, keys);
		check_page_dim(tag, c.scan, c.pages, c.rows, e, c.data, c.refs, c.vis, gpus, n_checks,
					   n_failures);
		for (gh_scheme sc : schemes)
		{
			gh_build_options opt;
			gh_table   *t = nullptr;

			if (sc != GH_SCHEME_GPH && ci % 4 != 0)
				continue;
			gh_default_options(&opt);
			opt.scheme = sc;
			PCHECK(gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &t) == GH_OK,
				   "case %d: host build: %s", ci, gh_last_error());
			if (!t)
				continue;

			walk_result h = walk(t, c, false);

			snprintf(tag, sizeof(tag), "case %d/host %s", ci, gh_scheme_name(sc));
			check_walk(tag, h, c, e, t, keys);
			if (sc == GH_SCHEME_GPH)
			{
				walk_result ip = walk_in_place(t, c, false);

				PCHECK(same_walk(ip, h), "%s: the in-place walk (pages listed) differs: %s",
					   tag, ip.st == GH_OK ? "records" : gh_last_error());
				walk_at_check(tag, t, -1, c, h);
			}
			if (sc == GH_SCHEME_GPH && ci % 8 == 0)
				request_edges(tag, t, c, h);
			if (sc == GH_SCHEME_GPH && ci % 8 == 0)
				lanes_check(tag, t, c, h, false, c.refs, c.vis);
			if (sc == GH_SCHEME_GPH)
			{
				refused += h.stats.refused;
				pages += h.stats.pages;
				written += h.stats.written;
				tuples += h.stats.tuples;
			}
			gh_free(t);
			if (gpus > 0)
			{
				opt.device = GH_DEVICE_GPU;
				PCHECK(gh_build(&opt, keys.data(), nullptr, 4, keys.size(), &t) == GH_OK,
					   "case %d: GPU build: %s", ci, gh_last_error());
				if (!t)
					continue;

				walk_result g = walk(t, c, false),
							tw = walk(t, c, true);

				snprintf(tag, sizeof(tag), "case %d/GPU %s", ci, gh_scheme_name(sc));
				check_walk(tag, g, c, e, t, keys);
				PCHECK(same_walk(g, tw), "%s: the GPU walk and the host twin differ", tag);
				if (in_place_mapped)
				{
					vector<gh_page_ref> refs;
					vector<uint16_t> vis;
					walk_result gm = walk_in_place(t, c, false),
								tm = walk_in_place(t, c, true, &refs, &vis);

					PCHECK(same_walk(gm, g) && same_walk(tm, g),
						   "%s: the GPU's in-place walk (mapped pages) differs: %s", tag,
						   gm.st == GH_OK ? "records" : gh_last_error());
					lanes_check(tag, t, c, g, true, refs, vis);
					walk_at_check(tag, t, 0, c, g);
				}
				lanes_check(tag, t, c, g, false, c.refs, c.vis);
				if (sc == GH_SCHEME_GPH)
					request_edges(tag, t, c, g);
				gh_free(t);
			}
		}
		if (*n_failures != before && getenv("GH_PAGE_DEBUG"))
		{
			for (int i = 0; i < c.scan->ninsns; i++)
				fprintf(stderr, "  insn %d: op %u b %u c %u a %u\n", i, c.scan->insn[i].op,
						c.scan->insn[i].b, c.scan->insn[i].c, c.scan->insn[i].a);
			for (int a = 0; a < c.scan->natts; a++)
				fprintf(stderr, "  col %d: type %u missing %u\n", a, c.scan->col[a].type,
						c.scan->col[a].missing);
		}
		if (*n_failures != before)
			fprintf(stderr, "page walk: case %d failed (seed %#llx)\n", ci,
					(unsigned long long) (0x9a6e000 + (uint64_t) ci));
	}
	printf("page walk: %d random cases, %llu pages (%llu refused), %llu tuples, %llu records: %s; "
		   "%d walks by address (page store fills); "
		   "%llu walks on lanes, %d threads at once: %s\n",
		   n_cases, (unsigned long long) pages, (unsigned long long) refused,
		   (unsigned long long) tuples, (unsigned long long) written,
		   gpus > 0 ? "reference, every scheme, GPU = host twin, in place (mapped) = copied" :
		   "reference, every scheme (host twin), in place = copied", at_walks,
		   (unsigned long long) lane_walks, LANE_THREADS,
		   gpus > 0 ? "each equal to the table's own walk" :
		   "none (no GPU: the host twin's tables have no lanes, checked)");
}

}								/* namespace */

void		test_page_malformed(int gpus, int *checks, int *failures);

/* core_test --agg-only: the dimension's rows from pages alone, on the random cases */
void
test_page_dim(int gpus, bool quick, int *checks, int *failures)
{
	int			n_cases = quick ? 150 : 600;

	n_checks = checks;
	n_failures = failures;
	for (int ci = 0; ci < n_cases; ci++)
	{
		prng		r{0x9a6e000 + (uint64_t) ci};
		gcase		c;
		char		tag[64];

		gen_scan(r, c);
		gen_pages(r, c, ci % 3 == 0);

		expect		e = reference_walk(*c.scan, c.k, c.pages, c.rows);

		snprintf(tag, sizeof(tag), "case %d/dimension", ci);
		check_page_dim(tag, c.scan, c.pages, c.rows, e, c.data, c.refs, c.vis, gpus, checks,
					   failures);
	}
	printf("dimension pages: %d random cases: %s\n", n_cases,
		   gpus > 0 ? "reference, GPU = host twin" : "reference (host twin)");
}

void
test_page(int gpus, bool quick, int *checks, int *failures)
{
	n_checks = checks;
	n_failures = failures;
	/* lives as long as the process, as the buffer pool does: never freed */
	in_place_data = (uint8_t *) aligned_alloc(4096, IN_PLACE_PAGES * GH_PAGE_SIZE);
	PCHECK(in_place_data != nullptr, "page walk: no memory for the in-place pages");
	if (!in_place_data)
		return;
	if (gpus > 0)
	{
		in_place_mapped = gh_page_register_host(in_place_data,
												IN_PLACE_PAGES * GH_PAGE_SIZE) == GH_OK;
		PCHECK(in_place_mapped, "page walk: registering the in-place pages: %s", gh_last_error());
	}
	else
		PCHECK(gh_page_register_host(in_place_data, IN_PLACE_PAGES * GH_PAGE_SIZE) == GH_ERR_NO_GPU,
			   "page walk: registering host memory without a GPU did not say so");
	random_cases(gpus, quick ? 150 : 600);
	test_page_malformed(gpus, checks, failures);
}
