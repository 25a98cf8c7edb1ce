/*
 * core_agg.cpp
 *		core_test's checks of partial aggregation (gh_page_agg): heap pages
 *		built as PostgreSQL lays them out (page_builder.h) with NULLs,
 *		numerics of mixed display scales, NaN and infinities, int8 values
 *		whose sums pass int64, floats, dates and timestamps, grouped by
 *		nothing, by a packed (int4, char(1)) key and by 100 000+ groups.
 *		Each result is compared with a reference computed here over the
 *		rows' logical values in exact arithmetic (__int128 at a fixed
 *		scale); on a GPU the GPU's group set must equal the host twin's,
 *		exact states bit for bit (the float inputs are binary fractions
 *		whose sums are exact in any order, so float sums are compared
 *		exactly too).  Also: capacity overflow, merging requests, a page
 *		refused for a key too wide, a value beyond the accumulator's scale.
 */
#include "gpuhash_agg.h"
#include "gpuhash_table.h"
#include "table_internal.h"
#include "agg_gen.h"

#include <atomic>
#include <cmath>
#include <map>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

#include "test_check.h"

using namespace pagetest;
using namespace aggtest;
using std::vector;

namespace
{

int		   *n_checks,
		   *n_failures;

#define ACHECK(cond, ...) GH_TEST_CHECK(n_checks, n_failures, cond, __VA_ARGS__)

typedef __int128 i128;

void
make_scan(gh_page_scan *s, bool qual)
{
	memset(s, 0, sizeof(*s));
	s->mode = GH_PAGE_ALL_ROWS;
	s->natts = NCOLS;
	for (int a = 0; a < NCOLS; a++)
	{
		s->col[a].attlen = ADESC[a].attlen;
		s->col[a].attalign = ADESC[a].attalign;
		s->col[a].type = ADESC[a].type;
	}
	if (qual)
	{
		/* i4 > 0 */
		s->ninsns = 3;
		s->insn[0] = {GH_Q_COL, 0, 0, 0, C_I4};
		s->insn[1] = {GH_Q_CONST, GH_T_INT4, 0, 0, 0};
		s->insn[2] = {GH_Q_CMP, GH_M_INT, GH_GT, 0, 0};
		s->pool_bytes = 8;
	}
}

const gh_agg_spec SPECS[] = {
	{GH_AGG_COUNT_STAR, 0, 0, 0, 0, 0, 0, 0}, {GH_AGG_COUNT, 0, 0, 0, C_I4, 0, 0, 0},
	{GH_AGG_SUM, 0, 0, 0, C_I2, 0, 0, 0}, {GH_AGG_SUM, 0, 0, 0, C_I4, 0, 0, 0},
	{GH_AGG_SUM, 0, 0, 0, C_I8, 0, 0, 0}, {GH_AGG_AVG, 0, 0, 0, C_F4, 0, 0, 0},
	{GH_AGG_SUM, 0, 0, 0, C_F4, 0, 0, 0}, {GH_AGG_SUM, 0, 0, 0, C_F8, 0, 0, 0},
	{GH_AGG_SUM, 0, NUM_SCALE, 0, C_N, 0, 0, 0}, {GH_AGG_MIN, 0, 0, 0, C_D, 0, 0, 0},
	{GH_AGG_MAX, 0, 0, 0, C_TS, 0, 0, 0}, {GH_AGG_MIN, 0, 0, 0, C_F8, 0, 0, 0},
	{GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS, MUL3_SCALE, 0, C_PRICE, C_DISC, C_TAX, 0},
	{GH_AGG_SUM, GH_AGG_E_MUL_ONE_MINUS, MUL_SCALE, 0, C_PRICE, C_DISC, 0, 0},
	{GH_AGG_MAX, 0, 0, 0, C_F8, 0, 0, 0}, {GH_AGG_MIN, 0, 0, 0, C_I8, 0, 0, 0},
};

void
make_prog(gh_agg_prog *p, int keys)
{
	memset(p, 0, sizeof(*p));
	p->naggs = (int16_t) (sizeof(SPECS) / sizeof(SPECS[0]));
	for (int a = 0; a < p->naggs; a++)
		p->agg[a] = SPECS[a];
	p->nkeys = (int16_t) keys;
	if (keys >= 1)
		p->key[0] = {C_G1, 1, 32};
	if (keys >= 2)
		p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 8};
	if (keys == 3)
	{
		/* (txt, g1): a text key whose trailing spaces count */
		p->nkeys = 2;
		p->key[0] = {C_TXT, GH_AGG_KEY_TEXT, 24};
		p->key[1] = {C_G1, 1, 32};
	}
}

i128
pow10i(int e)
{
	i128		r = 1;

	while (e-- > 0)
		r *= 10;
	return r;
}

/* The reference state of one aggregate in one group. */
struct ref_state
{
	int64_t		count = 0;
	i128		sum = 0;
	double		fsum = 0;
	float		fsum4 = 0;
	bool		have = false;
	int64_t		mi = 0;
	double		mf = 0;
	int64_t		nan = 0,
				pinf = 0,
				ninf = 0;
	int			dscale = 0;
	int64_t		dscale_count = 0;
	bool		fallback = false;
};

/* float8_cmp_internal */
int
fcmp(double a, double b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) && std::isnan(b) ? 0 : std::isnan(a) ? 1 : -1;
	return a < b ? -1 : a > b ? 1 : 0;
}

void
ref_fold(const gh_agg_spec &sp, ref_state &st, const vector<cell> &row)
{
	if (sp.fn == GH_AGG_COUNT_STAR)
	{
		st.count++;
		return;
	}

	const lval &v = row[sp.col].v;

	if (v.null || (sp.expr != GH_AGG_E_COL && row[sp.col2].v.null) ||
		(sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS && row[sp.col3].v.null))
		return;
	if (sp.fn == GH_AGG_COUNT)
	{
		st.count++;
		return;
	}

	uint8_t		t = ADESC[sp.col].type;

	if (t == GH_T_NUMERIC)
	{
		i128		x = v.n.m;
		int			ds = v.n.dscale,
					sc = v.n.scale;

		if (sp.expr == GH_AGG_E_MUL_ONE_MINUS || sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
		{
			const num &d = row[sp.col2].v.n;

			x = x * (pow10i(d.scale) - d.m);
			sc += d.scale;
			ds += d.dscale;
		}
		if (sp.expr == GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS)
		{
			const num &t = row[sp.col3].v.n;

			x = x * (pow10i(t.scale) + t.m);
			sc += t.scale;
			ds += t.dscale;
		}
		if (v.n.cls != 0)
		{
			(v.n.cls == 2 ? st.nan : v.n.cls == 1 ? st.pinf : st.ninf)++;
			return;
		}
		if (sc > sp.scale)
		{
			/* exact only if the extra digits are zero */
			if (x % pow10i(sc - sp.scale) != 0)
			{
				st.fallback = true;
				return;
			}
			x /= pow10i(sc - sp.scale);
		}
		else
			x *= pow10i(sp.scale - sc);
		if (ds > st.dscale)
		{
			st.dscale = ds;
			st.dscale_count = 1;
		}
		else if (ds == st.dscale)
			st.dscale_count++;
		st.sum += x;
		st.count++;
		return;
	}
	st.count++;
	if (t == GH_T_FLOAT4 || t == GH_T_FLOAT8)
	{
		double		f = t == GH_T_FLOAT4 ? (double) (float) v.f : v.f;

		if (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
		{
			int			c = st.have ? fcmp(f, st.mf) : 0;

			if (!st.have || (sp.fn == GH_AGG_MIN ? c < 0 : c > 0))
				st.mf = f;
			st.have = true;
		}
		else if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
			st.fsum4 += (float) f;
		else
			st.fsum += f;
		return;
	}
	if (sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX)
	{
		if (!st.have || (sp.fn == GH_AGG_MIN ? v.i < st.mi : v.i > st.mi))
			st.mi = v.i;
		st.have = true;
	}
	else
		st.sum += v.i;
}

struct gkey
{
	uint8_t		nulls;
	uint64_t	key;
	bool		operator<(const gkey &o) const
	{
		return nulls != o.nulls ? nulls < o.nulls : key < o.key;
	}
};

typedef std::map<gkey, vector<ref_state>> ref_groups;

ref_groups
reference(const dataset &ds, const gh_agg_prog &p, bool qual, const vector<uint8_t> &refused)
{
	ref_groups	g;

	for (size_t i = 0; i < ds.rows.size(); i++)
	{
		const vector<cell> &row = ds.rows[i];

		if (refused[ds.row_page[i]])
			continue;
		if (qual && (row[C_I4].v.null || row[C_I4].v.i <= 0))
			continue;

		gkey		k = {0, 0};

		for (int j = 0; j < p.nkeys; j++)
		{
			const lval &v = row[p.key[j].col].v;
			uint64_t	x = 0;

			if (v.null)
				k.nulls |= (uint8_t) (1 << j);
			else if (p.key[j].conv == GH_AGG_KEY_BPCHAR || p.key[j].conv == GH_AGG_KEY_TEXT)
			{
				std::string b = v.s;

				while (p.key[j].conv == GH_AGG_KEY_BPCHAR && !b.empty() && b.back() == ' ')
					b.pop_back();
				for (int c = 0; c < p.key[j].width / 8; c++)
					x = (x << 8) | (c < (int) b.size() ? (uint8_t) b[c] : 0);
			}
			else
				x = (uint64_t) (int64_t) (int32_t) v.i;
			k.key = p.nkeys == 1 ? x : (k.key << p.key[j].width) |
				(x & ((UINT64_C(1) << p.key[j].width) - 1));
		}

		vector<ref_state> &s = g[k];

		s.resize(p.naggs);
		for (int a = 0; a < p.naggs; a++)
			ref_fold(p.agg[a], s[a], row);
	}
	return g;
}

i128
state_sum(const gh_agg_state &s)
{
	/* the 192-bit sum as an __int128, when its top word is the sign */
	return (i128) (((unsigned __int128) s.sum[1] << 64) | s.sum[0]);
}

bool
sum_fits_128(const gh_agg_state &s)
{
	uint64_t	sign = (int64_t) s.sum[1] < 0 ? ~UINT64_C(0) : 0;

	return s.sum[2] == sign;
}

bool
same_double(double a, double b)
{
	return (std::isnan(a) && std::isnan(b)) || a == b;
}

void
compare_ref(const char *tag, const gh_agg_groups &out, const ref_groups &want, const gh_agg_prog &p)
{
	ACHECK(out.n_groups == want.size(), "%s: %llu groups, the reference %zu", tag,
		   (unsigned long long) out.n_groups, want.size());

	size_t		gi = 0;
	int			bad = 0;

	for (const auto &kv : want)
	{
		if (gi >= out.n_groups)
			break;
		if (out.keys[gi] != kv.first.key || out.nulls[gi] != kv.first.nulls)
		{
			ACHECK(false, "%s: group %zu key %llx/%x, the reference %llx/%x", tag, gi,
				   (unsigned long long) out.keys[gi], out.nulls[gi],
				   (unsigned long long) kv.first.key, kv.first.nulls);
			return;
		}
		for (int a = 0; a < p.naggs && bad < 5; a++)
		{
			const gh_agg_spec &sp = p.agg[a];
			const gh_agg_state &s = out.states[gi * p.naggs + a];
			const ref_state &r = kv.second[a];
			uint8_t		t = ADESC[sp.col].type;
			bool		ok;

			if (r.fallback)
			{
				ok = (s.flags & GH_AGG_S_FALLBACK) != 0;
			}
			else
			{
				ok = s.count == r.count && !(s.flags & GH_AGG_S_FALLBACK);
				if (sp.fn == GH_AGG_SUM || sp.fn == GH_AGG_AVG)
				{
					if (t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM)
						ok &= same_double(s.fsum, r.fsum4);
					else if (t == GH_T_FLOAT4 || t == GH_T_FLOAT8)
						ok &= same_double(s.fsum, r.fsum);
					else
						ok &= sum_fits_128(s) && state_sum(s) == r.sum;
					if (t == GH_T_NUMERIC)
						ok &= s.nan == r.nan && s.pinf == r.pinf && s.ninf == r.ninf &&
							(int) s.dscale == r.dscale && s.dscale_count == r.dscale_count;
				}
				else if ((sp.fn == GH_AGG_MIN || sp.fn == GH_AGG_MAX) && r.count > 0)
				{
					if (t == GH_T_FLOAT8 || t == GH_T_FLOAT4)
					{
						double		f;

						memcpy(&f, &s.mm, 8);
						ok &= same_double(f, r.mf);
					}
					else
						ok &= (int64_t) s.mm == r.mi;
				}
			}
			if (!ok)
			{
				bad++;
				ACHECK(false, "%s: group %zu aggregate %d (fn %d type %d): count %lld/%lld "
					   "flags %x fsum %g/%g dscale %u/%d", tag, gi, a, sp.fn, t,
					   (long long) s.count, (long long) r.count, s.flags, s.fsum,
					   t == GH_T_FLOAT4 && sp.fn == GH_AGG_SUM ? r.fsum4 : r.fsum,
					   s.dscale, r.dscale);
			}
		}
		gi++;
	}
	(*n_checks)++;
}

/* Two group sets equal: keys, and every state field bit for bit. */
void
compare_sets(const char *tag, const gh_agg_groups &a, const gh_agg_groups &b)
{
	bool		ok = a.n_groups == b.n_groups && a.fallback_groups == b.fallback_groups;

	if (ok)
		ok = !memcmp(a.keys, b.keys, 8 * a.n_groups) && !memcmp(a.nulls, b.nulls, a.n_groups);
	for (uint64_t i = 0; ok && i < a.n_groups * a.naggs; i++)
	{
		const gh_agg_state &x = a.states[i],
				   &y = b.states[i];

		ok = x.count == y.count && !memcmp(x.sum, y.sum, sizeof(x.sum)) &&
			same_double(x.fsum, y.fsum) && x.nan == y.nan && x.pinf == y.pinf &&
			x.ninf == y.ninf && x.dscale == y.dscale && x.dscale_count == y.dscale_count &&
			x.flags == y.flags;
		if (ok && x.mm != y.mm)
		{
			double		f,
						g;

			memcpy(&f, &x.mm, 8);
			memcpy(&g, &y.mm, 8);
			ok = std::isnan(f) && std::isnan(g);
		}
		if (!ok)
			fprintf(stderr, "%s: state %llu differs\n", tag, (unsigned long long) i);
	}
	ACHECK(ok, "%s: group sets differ", tag);
}

/* One request on a device into a fresh set; the status. */
gh_status
run_agg(int device, const gh_page_scan &s, const gh_agg_prog &p, const dataset &ds,
		uint32_t first, uint32_t n, uint64_t max_groups, gh_agg_groups *out,
		vector<uint8_t> &refused, gh_agg_stats *st, bool init = true,
		const uint8_t *mapped = nullptr)
{
	if (init)
		gh_agg_groups_init(out, &p, max_groups);
	refused.resize(ds.n_pages);
	if (mapped)
		return gh_page_agg_mapped(device, &s, &p, ds.refs.data() + first, n, mapped,
								  ds.data.size(), nullptr, 0, refused.data() + first, out, st);
	return gh_page_agg(device, &s, &p, ds.refs.data() + first, n, ds.data.data(), ds.data.size(),
					   nullptr, 0, refused.data() + first, out, st);
}

/*
 * Host memory registered once for the GPU's in-place reads (as the
 * service registers the buffer pool, for the process's life): ds's pages
 * copied into it, or NULL when they do not fit.
 */
const uint8_t *
mapped_copy(const dataset &ds)
{
	static uint8_t *arena;
	const size_t arena_bytes = (size_t) 256 << 20;

	if (arena == nullptr)
	{
		arena = (uint8_t *) aligned_alloc(4096, arena_bytes);
		if (arena == nullptr || gh_page_register_host(arena, arena_bytes) != GH_OK)
		{
			fprintf(stderr, "  cannot register host memory: %s\n", gh_last_error());
			free(arena);
			arena = nullptr;
			return nullptr;
		}
	}
	if (ds.data.size() > arena_bytes)
		return nullptr;
	memcpy(arena, ds.data.data(), ds.data.size());
	return arena;
}

void
run_case(const char *tag, int gpus, const options &o, int keys, bool qual, uint64_t seed,
		 uint64_t max_groups = 1u << 24)
{
	dataset		ds = make_data(o, seed);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	gh_agg_groups host,
				gpu;
	vector<uint8_t> refused;
	gh_agg_stats st;
	double		t0 = gh_now_ms();

	make_scan(s, qual);
	make_prog(&p, keys);
	ACHECK(gh_agg_prog_check(s, &p) == GH_OK, "%s: program rejected: %s", tag, gh_last_error());

	gh_status	r = run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, max_groups, &host, refused, &st);

	ACHECK(r == GH_OK, "%s: host twin: %s", tag, gh_last_error());
	if (r == GH_OK)
	{
		compare_ref(tag, host, reference(ds, p, qual, refused), p);
		ACHECK(st.pages == ds.n_pages, "%s: pages %llu", tag, (unsigned long long) st.pages);
		if (o.wide_flag_rows > 0 && keys >= 2)
			ACHECK(refused[0] == 1 && st.refused >= 1, "%s: a page with a key too wide not refused", tag);
		else
			ACHECK(st.refused == 0, "%s: %llu pages refused", tag, (unsigned long long) st.refused);
	}

	/* in place: the host twin reads the pages where they lie */
	if (r == GH_OK)
	{
		gh_agg_groups m;
		vector<uint8_t> rm;

		ACHECK(run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, max_groups, &m, rm, nullptr, true,
					   ds.data.data()) == GH_OK, "%s: host twin in place: %s", tag, gh_last_error());
		compare_sets(tag, m, host);
		ACHECK(rm == refused, "%s: in place refused other pages", tag);
		gh_agg_groups_free(&m);
	}

	/* the same pages in two requests, merged, are the same set */
	if (ds.n_pages >= 2 && r == GH_OK)
	{
		gh_agg_groups a,
					b;
		vector<uint8_t> ra,
					rb;
		uint32_t	half = ds.n_pages / 2;

		run_agg(GH_AGG_HOST, *s, p, ds, 0, half, max_groups, &a, ra, nullptr);
		run_agg(GH_AGG_HOST, *s, p, ds, half, ds.n_pages - half, max_groups, &b, rb, nullptr);
		ACHECK(gh_agg_merge(&a, &b, s, &p) == GH_OK, "%s: merge: %s", tag, gh_last_error());
		compare_sets(tag, a, host);
		gh_agg_groups_free(&a);
		gh_agg_groups_free(&b);
	}
	if (gpus > 0)
	{
		vector<uint8_t> rg;
		gh_status	g = run_agg(0, *s, p, ds, 0, ds.n_pages, max_groups, &gpu, rg, &st);

		ACHECK(g == r, "%s: GPU status %s, host %s (%s)", tag, gh_status_name(g),
			   gh_status_name(r), gh_last_error());
		if (g == GH_OK && r == GH_OK)
		{
			compare_sets(tag, gpu, host);
			ACHECK(rg == refused, "%s: GPU refused other pages", tag);
		}
		gh_agg_groups_free(&gpu);

		/* in place: the kernel reads registered host memory through its mapping */
		const uint8_t *mp = mapped_copy(ds);

		ACHECK(mp != nullptr, "%s: no registered host memory for %zu bytes of pages", tag,
			   ds.data.size());
		if (mp != nullptr)
		{
			g = run_agg(0, *s, p, ds, 0, ds.n_pages, max_groups, &gpu, rg, &st, true, mp);
			ACHECK(g == r, "%s: GPU in place status %s, host %s (%s)", tag, gh_status_name(g),
				   gh_status_name(r), gh_last_error());
			if (g == GH_OK && r == GH_OK)
			{
				compare_sets(tag, gpu, host);
				ACHECK(rg == refused, "%s: GPU in place refused other pages", tag);
			}
			gh_agg_groups_free(&gpu);
		}
	}
	printf("  %-34s rows %7zu pages %5u groups %7llu  %6.2f s\n", tag, o.rows, ds.n_pages,
		   (unsigned long long) host.n_groups, (gh_now_ms() - t0) / 1000.0);
	fflush(stdout);
	gh_agg_groups_free(&host);
	delete s;
}

/* More groups than allowed: OUTPUT_FULL, the set unchanged, on both sides. */
void
test_overflow(int gpus)
{
	options		o;

	o.rows = 3000;
	o.groups = 200;
	dataset		ds = make_data(o, 77);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	vector<uint8_t> refused;

	make_scan(s, false);
	make_prog(&p, 1);
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0); dev++)
	{
		gh_agg_groups g;
		gh_status	r = run_agg(dev, *s, p, ds, 0, ds.n_pages, 50, &g, refused, nullptr);

		ACHECK(r == GH_ERR_OUTPUT_FULL && g.n_groups == 0, "overflow (device %d): %s, %llu groups",
			   dev, gh_status_name(r), (unsigned long long) g.n_groups);

		/* a set near its bound refuses a request that would pass it */
		r = run_agg(dev, *s, p, ds, 0, 1, 205, &g, refused, nullptr);
		uint64_t	before = g.n_groups;

		ACHECK(r == GH_OK, "overflow (device %d): first page: %s", dev, gh_last_error());
		g.max_groups = before + 1;
		r = run_agg(dev, *s, p, ds, 1, ds.n_pages - 1, 0, &g, refused, nullptr, false);
		ACHECK(r == GH_ERR_OUTPUT_FULL && g.n_groups == before,
			   "overflow (device %d): merge past the bound: %s, %llu groups", dev,
			   gh_status_name(r), (unsigned long long) g.n_groups);
		gh_agg_groups_free(&g);
	}
	delete s;
}

/*
 * Requests on several threads at once, as the GPU service folds them: each
 * thread's own device memory and stream, grown from small requests to
 * large ones, copied and in place in turn; every answer the host twin's.
 */
void
test_threads(int gpus)
{
	options		o;

	o.rows = 20000;
	o.groups = 40;
	dataset		ds = make_data(o, 12);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	gh_agg_groups host;
	vector<uint8_t> refused;
	const uint8_t *mp = gpus > 0 ? mapped_copy(ds) : ds.data.data();

	make_scan(s, true);
	make_prog(&p, 2);
	ACHECK(run_agg(GH_AGG_HOST, *s, p, ds, 0, ds.n_pages, 1u << 24, &host, refused, nullptr) ==
		   GH_OK, "threads: host twin: %s", gh_last_error());
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0) && mp != nullptr; dev++)
	{
		const int	nthreads = 4;
		std::atomic<int> bad(0);
		vector<std::thread> th;

		for (int k = 0; k < nthreads; k++)
			th.emplace_back([&, k]() {
				for (int round = 0; round < 6; round++)
				{
					gh_agg_groups g;
					vector<uint8_t> r;
					uint32_t	n = round < 2 ? 1 + k : ds.n_pages;
					gh_status	st = run_agg(dev, *s, p, ds, 0, n, 1u << 24, &g, r, nullptr, true,
											 (round + k) % 2 ? mp : nullptr);

					if (st != GH_OK ||
						(n == ds.n_pages && (g.n_groups != host.n_groups ||
											 memcmp(g.keys, host.keys, 8 * g.n_groups) != 0)))
						bad++;
					gh_agg_groups_free(&g);
				}
			});
		for (std::thread &t : th)
			t.join();
		ACHECK(bad == 0, "threads (device %d): %d answers wrong or failed", dev, bad.load());
	}
	printf("  %-34s threads 4, rounds 6\n", "concurrent requests");
	gh_agg_groups_free(&host);
	delete s;
}

}								/* namespace */

void
test_agg(int gpus, bool quick, int *checks, int *failures)
{
	n_checks = checks;
	n_failures = failures;
	printf("partial aggregation over heap pages (%s):\n", gpus > 0 ? "GPU + host twin" : "host twin");

	options		o;

	o.rows = 0;
	run_case("empty input", gpus, o, 2, false, 1);
	o.rows = quick ? 5000 : 30000;
	run_case("one group", gpus, o, 0, false, 2);
	run_case("one group, quals", gpus, o, 0, true, 3);
	o.groups = 40;
	run_case("(int4, char(1)) groups", gpus, o, 2, false, 4);
	o.null_p = 0.3;
	run_case("(int4, char(1)), many NULLs", gpus, o, 2, true, 5);
	run_case("(text, int4) groups", gpus, o, 3, false, 10);
	o.null_p = 0.05;
	o.big_i8 = true;
	run_case("int8 sums past int64", gpus, o, 1, false, 6);
	o.big_i8 = false;
	o.max_dscale = NUM_SCALE + 3;	/* some values beyond the accumulator */
	run_case("numeric beyond the scale", gpus, o, 1, false, 7);
	o.max_dscale = NUM_SCALE;
	o.wide_flag_rows = 1;
	run_case("key too wide: page refused", gpus, o, 2, false, 8);
	o.wide_flag_rows = 0;
	o.rows = quick ? 150000 : 300000;
	o.groups = quick ? 1000000 : 2000000;
	run_case("100k+ groups", gpus, o, 1, false, 9);
	test_overflow(gpus);
	test_threads(gpus);
}
