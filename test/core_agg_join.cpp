/*
 * core_agg_join.cpp
 *		core_test's checks of the aggregate over a join (gh_agg_dim_*,
 *		gh_page_agg_join_mapped) and of conditions and constants in any
 *		aggregation program: agg_gen.h's heap pages joined to generated
 *		dimensions (unique keys, duplicate keys, keys the pages lack, a hot
 *		key of many rows, none at all) with inner columns of every
 *		by-value and by-reference kind and NULLs; group keys on inner
 *		columns (text, bpchar) and on both sides; random join quals and
 *		conditions over both sides (page_gen.h's program builder: AND, OR,
 *		NOT, IN lists, LIKE, arithmetic that overflows and refuses a page);
 *		all-visible and listed pages.  Each result is compared with a nested
 *		loop over the rows' logical values (agg_ref.h's exact fold); on a
 *		GPU, the GPU's group set with the host twin's, bit for bit.
 */
#include "gpuhash_agg.h"
#include "table_internal.h"
#include "agg_join_gen.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <map>
#include <stdio.h>
#include <string.h>
#include <vector>

using namespace pagetest;
using namespace aggtest;
using namespace aggref;
using namespace aggjoin;
using std::vector;

/* core_agg_join_bad.cpp */
void		test_agg_join_bad(int gpus, int *checks, int *failures);
/* core_agg_star.cpp */
void		test_agg_star(int gpus, int *checks, int *failures);

namespace
{

#define JCHECK(cond, ...) RCHECK(cond, __VA_ARGS__)

/* What the random programs have held: each form must have come up. */
struct coverage
{
	int			like_inner = 0,
				in_inner = 0,
				cmp_both = 0,
				and_or = 0,
				nots = 0,
				arith = 0;
};

static coverage cov;

void
tally(const gh_agg_prog &p)
{
	for (int i = 0; i < p.ninsns; i++)
	{
		const gh_qinsn &in = p.insn[i];
		bool		after_inner = i > 0 && p.insn[i - 1].op == GH_Q_COL &&
			p.insn[i - 1].a >= GH_AGG_INNER_COL0;

		cov.like_inner += in.op == GH_Q_LIKE && after_inner;
		cov.in_inner += in.op == GH_Q_IN && after_inner;
		cov.cmp_both += in.op == GH_Q_CMP && i > 1 && p.insn[i - 1].op == GH_Q_COL &&
			p.insn[i - 2].op == GH_Q_COL &&
			(p.insn[i - 1].a >= GH_AGG_INNER_COL0) != (p.insn[i - 2].a >= GH_AGG_INNER_COL0);
		cov.and_or += in.op == GH_Q_AND || in.op == GH_Q_OR;
		cov.nots += in.op == GH_Q_NOT;
		cov.arith += in.op == GH_Q_ADD || in.op == GH_Q_SUB || in.op == GH_Q_MUL;
	}
}

struct jcase
{
	const char *tag;
	options		o;
	dim_opts	d;
	bool		join = true;
	bool		qual = false;
	int			keys = K_NONE;
	bool		join_qual = false;
	bool		conds = false;
	double		listed_p = 0;
	uint64_t	seed = 1;
	bool		some_refused = false;	/* the case must refuse some pages, not all */
	bool		hand = false;	/* hand_programs */
	bool		key2 = false;	/* a join key of two columns */
};

/* A dimension's matched flags, all of them (empty on failure). */
vector<uint8_t>
matched_of(const gh_agg_dim *d)
{
	vector<uint8_t> m(gh_agg_dim_rows(d));

	if (gh_agg_dim_matched(d, 0, m.size(), m.data()) != GH_OK)
		m.clear();
	return m;
}

void
run_case(const jcase &c, int gpus)
{
	double		t0 = gh_now_ms();
	dataset		ds = make_data(c.o, c.seed);
	vector<uint64_t> key2s;

	if (c.key2)
	{
		/* packed keys of some of the pages' rows, and some no row has */
		gh_page_scan *k2 = new gh_page_scan();
		prng		kr{c.seed};

		make_scan(k2, false, true);
		for (const vector<cell> &row : ds.rows)
		{
			vector<lval> oc(NCOLS);
			uint64_t	key;

			for (int c2 = 0; c2 < NCOLS; c2++)
				oc[c2] = row[c2].v;
			if (kr.chance(0.05) && ref_key(*k2, oc, &key) &&
				std::find(key2s.begin(), key2s.end(), key) == key2s.end())
				key2s.push_back(key);
		}
		for (int i = 0; i < 20; i++)
			key2s.push_back(kr.next());
		delete k2;
	}

	dim_rows	dr = make_dim(c.d, c.o.groups, c.seed * 31 + 7, c.key2 ? &key2s : nullptr);
	pages		pg = make_pages(ds, c.listed_p, c.seed * 17 + 3);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	preds		pr;
	prng		r{c.seed * 1009 + 11};

	make_scan(s, c.qual, c.key2);
	make_prog(&p, c.keys, c.join);
	/* every join marks its matched rows (an outer join's flags) */
	if (c.join)
		p.join.flags = GH_AGG_JOIN_MARK;

	/*
	 * Random programs: one the check takes, and which neither passes nor
	 * refuses (an overflow on every page) nearly everything, so that the
	 * case folds something.
	 */
	jexpect		want;
	const int	attempts = c.join_qual || c.conds ? 40 : 1;

	const gh_agg_prog p0 = p;
	gh_page_scan *s0 = new gh_page_scan(*s);

	for (int attempt = 0; attempt < attempts; attempt++)
	{
		gh_agg_prog q = p0;
		gh_page_scan *sc = new gh_page_scan(*s0);
		bool		ok = true;

		pr.k = consts();
		pr.clear();
		if (c.join_qual)
			ok &= gen_pred(sc, pr, r, &q, c.join, 24, &q.join.jq_start, &q.join.jq_len);
		for (size_t i = 0; i < sizeof(COND_AGG) / sizeof(COND_AGG[0]) && c.conds && ok; i++)
		{
			gh_agg_spec &sp = q.agg[COND_AGG[i]];

			sp.else_kind = COND_ELSE[i];
			ok &= gen_pred(sc, pr, r, &q, c.join, 6, &sp.cond_start, &sp.cond_len);
		}
		if (!ok || gh_agg_prog_check(sc, &q) != GH_OK)
		{
			if (getenv("JDEBUG"))
				fprintf(stderr, "attempt %d: %s\n", attempt, ok ? gh_last_error() : "too long");
			delete sc;
			continue;
		}
		want = reference(*sc, ds, pg, c.qual, c.join ? &dr : nullptr, q, pr);
		p = q;
		*s = *sc;
		delete sc;
		if (getenv("JDEBUG")) fprintf(stderr, "attempt %d pairs %llu\n", attempt, (unsigned long long) want.pairs);
		if (want.pairs > 0 &&
			2 * std::count(want.refused.begin(), want.refused.end(), 1) < (long) ds.n_pages)
			break;
	}
	delete s0;
	if (c.hand)
	{
		hand_programs(s, pr, &p);
		want = reference(*s, ds, pg, c.qual, &dr, p, pr);
	}
	JCHECK(gh_agg_prog_check(s, &p) == GH_OK, "%s: program rejected: %s", c.tag, gh_last_error());
	if (c.join_qual || c.conds)
		tally(p);
	else if (!c.hand)
		want = reference(*s, ds, pg, c.qual, c.join ? &dr : nullptr, p, pr);

	gh_agg_dim *hd = nullptr;

	if (c.join)
	{
		gh_status	b = gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(),
										 NIN, dr.heap.data(), dr.heap.size(), 0, &hd);

		JCHECK(b == GH_OK && hd != nullptr, "%s: host dimension: %s", c.tag, gh_last_error());
		if (hd)
			JCHECK(gh_agg_dim_rows(hd) == dr.keys.size() && gh_agg_dim_device(hd) == GH_AGG_HOST &&
				   (dr.keys.empty() || gh_agg_dim_bytes(hd) > 0), "%s: dimension's answers", c.tag);
	}

	gh_agg_groups host;
	vector<uint8_t> refused;
	gh_agg_stats st;
	gh_status	h = run(GH_AGG_HOST, *s, p, hd, pg, ds.data.data(), ds.data.size(), 1u << 24, &host,
						refused, &st);

	JCHECK(h == GH_OK, "%s: host twin: %s", c.tag, gh_last_error());
	if (h == GH_OK)
	{
		JCHECK(refused == want.refused, "%s: refused %llu pages, the reference %zu", c.tag,
			   (unsigned long long) st.refused,
			   (size_t) std::count(want.refused.begin(), want.refused.end(), 1));
		if (refused == want.refused)
		{
			compare_ref(c.tag, host, want.g, p, col_type);
			if (hd)
				JCHECK(matched_of(hd) == want.matched,
					   "%s: host twin's matched flags differ from the nested loop's", c.tag);
		}
		if (c.some_refused)
			JCHECK(st.refused > 0 && st.refused < ds.n_pages, "%s: %llu of %u pages refused",
				   c.tag, (unsigned long long) st.refused, ds.n_pages);
		JCHECK(st.tuples == want.tuples && st.passed == want.pairs,
			   "%s: tuples %llu pairs %llu, the reference %llu and %llu", c.tag,
			   (unsigned long long) st.tuples, (unsigned long long) st.passed,
			   (unsigned long long) want.tuples, (unsigned long long) want.pairs);
	}
	/* the pages in two requests, merged, are the same set */
	if (h == GH_OK && ds.n_pages >= 2)
	{
		pages		a = pg,
					b = pg;
		gh_agg_groups ga,
					gb;
		vector<uint8_t> ra,
					rb;
		size_t		half = ds.n_pages / 2;

		a.refs.resize(half);
		b.refs.erase(b.refs.begin(), b.refs.begin() + half);
		JCHECK(run(GH_AGG_HOST, *s, p, hd, a, ds.data.data(), ds.data.size(), 1u << 24, &ga, ra,
				   nullptr) == GH_OK &&
			   run(GH_AGG_HOST, *s, p, hd, b, ds.data.data(), ds.data.size(), 1u << 24, &gb, rb,
				   nullptr) == GH_OK, "%s: halves: %s", c.tag, gh_last_error());
		JCHECK(gh_agg_merge(&ga, &gb, s, &p) == GH_OK, "%s: merge: %s", c.tag, gh_last_error());
		compare_sets(c.tag, ga, host);
		gh_agg_groups_free(&ga);
		gh_agg_groups_free(&gb);
	}
	if (gpus > 0)
	{
		gh_agg_dim *gd = nullptr;
		const uint8_t *mp = mapped_copy(ds.data.data(), ds.data.size());

		if (c.join)
			JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
									dr.heap.data(), dr.heap.size(), 0, &gd) == GH_OK,
				   "%s: GPU dimension: %s", c.tag, gh_last_error());
		JCHECK(mp != nullptr, "%s: no registered host memory", c.tag);
		if ((gd || !c.join) && mp)
		{
			gh_agg_groups gpu;
			vector<uint8_t> rg;
			gh_agg_stats gs;
			gh_status	g = run(0, *s, p, gd, pg, mp, ds.data.size(), 1u << 24, &gpu, rg, &gs);

			JCHECK(g == h, "%s: GPU status %s, host %s (%s)", c.tag, gh_status_name(g),
				   gh_status_name(h), gh_last_error());
			if (g == GH_OK && h == GH_OK)
			{
				compare_sets(c.tag, gpu, host);
				JCHECK(rg == refused, "%s: GPU refused other pages", c.tag);
				if (gd && rg == want.refused)
					JCHECK(matched_of(gd) == want.matched,
						   "%s: GPU's matched flags differ from the nested loop's", c.tag);
				JCHECK(gs.tuples == st.tuples && gs.passed == st.passed,
					   "%s: GPU tuples %llu pairs %llu, host %llu and %llu", c.tag,
					   (unsigned long long) gs.tuples, (unsigned long long) gs.passed,
					   (unsigned long long) st.tuples, (unsigned long long) st.passed);
			}
			gh_agg_groups_free(&gpu);
		}
		gh_agg_dim_free(gd);
	}
	printf("  %-40s rows %6zu inner %5zu pages %4u (%3llu refused) pairs %6llu groups %5llu  %5.2f s\n",
		   c.tag, c.o.rows, dr.keys.size(), ds.n_pages, (unsigned long long) st.refused,
		   (unsigned long long) st.passed, (unsigned long long) host.n_groups,
		   (gh_now_ms() - t0) / 1000.0);
	fflush(stdout);
	gh_agg_groups_free(&host);
	gh_agg_dim_free(hd);
	delete s;
}

/*
 * Join requests on several threads at once over one dimension, as the GPU
 * service folds them: every answer the single thread's.
 */
void
test_threads(int gpus)
{
	options		o;
	dim_opts	dopt;

	o.rows = 8000;
	o.groups = 40;
	dopt.max_dup = 3;

	dataset		ds = make_data(o, 41);
	dim_rows	dr = make_dim(dopt, o.groups, 42);
	pages		pg = make_pages(ds, 0.3, 43);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	const uint8_t *data = gpus > 0 ? mapped_copy(ds.data.data(), ds.data.size()) : ds.data.data();

	make_scan(s, true);
	make_prog(&p, K_INNER_BPCHAR_OUTER_BPCHAR, true);
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0) && data; dev++)
	{
		gh_agg_dim *d = nullptr;
		gh_agg_groups one;
		vector<uint8_t> refused;
		std::atomic<int> bad(0);
		vector<std::thread> th;

		JCHECK(gh_agg_dim_build(dev, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK,
			   "threads (device %d): dimension: %s", dev, gh_last_error());
		if (!d)
			continue;
		JCHECK(run(dev, *s, p, d, pg, data, ds.data.size(), 1u << 24, &one, refused, nullptr) ==
			   GH_OK, "threads (device %d): %s", dev, gh_last_error());
		for (int k = 0; k < 4; k++)
			th.emplace_back([&]() {
				for (int round = 0; round < 3; round++)
				{
					gh_agg_groups g;
					vector<uint8_t> r;

					if (run(dev, *s, p, d, pg, data, ds.data.size(), 1u << 24, &g, r, nullptr) !=
						GH_OK || g.n_groups != one.n_groups ||
						memcmp(g.keys, one.keys, 8 * g.n_groups) != 0 ||
						memcmp(g.states, one.states, sizeof(gh_agg_state) * g.n_groups * p.naggs))
						bad++;
					gh_agg_groups_free(&g);
				}
			});
		for (std::thread &t : th)
			t.join();
		JCHECK(bad == 0, "threads (device %d): %d answers wrong or failed", dev, bad.load());
		gh_agg_groups_free(&one);
		gh_agg_dim_free(d);
	}
	printf("  %-40s threads 4, rounds 3\n", "concurrent join requests");
	delete s;
}

/*
 * The by-value inner types the other cases lack, handed over as Datums
 * may be (an int2 zero-extended, a bool of 7, an oid sign-extended): the
 * walker holds them as its own deforming does.  Group keys on an inner bool
 * and int2; min, max, sums and counts of them against a reference here.
 */
void
test_inner_types(int gpus)
{
	options		o;

	o.rows = 3000;
	o.groups = 12;

	dataset		ds = make_data(o, 61);
	pages		pg = make_pages(ds, 0, 62);
	gh_page_scan *s = new gh_page_scan();
	const uint8_t tt[] = {GH_T_INT2, GH_T_OID, GH_T_BOOL, GH_T_FLOAT4, GH_T_TIMESTAMP, GH_T_TIME};
	const int	nt = 6;
	vector<uint64_t> keys;
	vector<gh_agg_inval> in;
	std::map<int64_t, vector<int64_t>> val;	/* key -> int2, oid, bool, f4 * 4, ts, time */
	gh_agg_prog p;

	make_scan(s, false);
	for (int k = -3; k < o.groups - 3; k++)
	{
		int16_t		i2 = (int16_t) (k * 1000 - 7);
		uint32_t	oid = k % 2 ? 4294967295u - (uint32_t) (k + 3) : (uint32_t) (k + 3);
		float		f4 = (float) k / 4;
		double		f4d = f4;
		int64_t		ts = (int64_t) k * 86400000000LL,
					tm = (int64_t) (k + 3) * 1000000;
		gh_agg_inval v[nt];

		memset(v, 0, sizeof(v));
		v[0].bits = (uint16_t) i2;	/* zero-extended */
		v[1].bits = (uint64_t) (int64_t) (int32_t) oid;	/* sign-extended */
		v[2].bits = k % 3 == 0 ? 7 : 0;
		memcpy(&v[3].bits, &f4d, 8);
		v[4].bits = (uint64_t) ts;
		v[5].bits = (uint64_t) tm;
		v[5].null = k == 4;
		keys.push_back((uint64_t) (int64_t) (int32_t) k);
		in.insert(in.end(), v, v + nt);
		val[k] = {i2, oid, k % 3 == 0, (int64_t) k, ts, tm, k == 4};
	}
	memset(&p, 0, sizeof(p));
	p.join.ninner = nt;
	memcpy(p.join.inner_type, tt, nt);
	p.nkeys = 2;
	p.key[0] = {(int16_t) IC(2), 4, 1};
	p.key[1] = {(int16_t) IC(0), 0, 16};
	p.naggs = 6;
	p.agg[0] = spec(GH_AGG_MIN, IC(0));
	p.agg[1] = spec(GH_AGG_COUNT, IC(1));

	/* join qual: i.oid > 4000000000 (true only if the oid is zero-extended) */
	const int64_t big = 4000000000LL;

	memcpy(s->pool + 8, &big, 8);
	s->pool_bytes = 16;
	p.ninsns = 3;
	p.insn[0] = {GH_Q_COL, 0, 0, 0, (uint32_t) IC(1)};
	p.insn[1] = {GH_Q_CONST, GH_T_OID, 0, 0, 8};
	p.insn[2] = {GH_Q_CMP, GH_M_INT, GH_GT, 0, 0};
	p.join.jq_len = 3;
	p.agg[2] = spec(GH_AGG_SUM, IC(3));
	p.agg[3] = spec(GH_AGG_MAX, IC(4));
	p.agg[4] = spec(GH_AGG_MIN, IC(5));
	p.agg[5] = spec(GH_AGG_COUNT, IC(5));
	JCHECK(gh_agg_prog_check(s, &p) == GH_OK, "inner types: program: %s", gh_last_error());

	/* the reference: each row of key k folds k's values into group (bool, int2) */
	std::map<std::pair<int, int>, std::pair<int64_t, float>> rows_f4;	/* second: the float4 sum */
	std::map<std::pair<int, int>, int64_t> cnt,
				cnt_tm;

	for (const vector<cell> &row : ds.rows)
	{
		if (row[C_G1].v.null || !val.count(row[C_G1].v.i))
			continue;

		const vector<int64_t> &v = val[row[C_G1].v.i];
		std::pair<int, int> g = {(int) v[2], (int) v[0]};

		if (v[1] <= big)
			continue;

		rows_f4[g].second += (float) v[3] / 4;
		cnt[g]++;
		cnt_tm[g] += !v[6];
	}
	for (int dev = GH_AGG_HOST; dev < (gpus > 0 ? 1 : 0); dev++)
	{
		gh_agg_dim *d = nullptr;
		gh_agg_groups out;
		vector<uint8_t> refused;
		const uint8_t *data = dev == GH_AGG_HOST ? ds.data.data()
			: mapped_copy(ds.data.data(), ds.data.size());

		JCHECK(gh_agg_dim_build(dev, keys.data(), keys.size(), in.data(), nt, nullptr, 0, 0, &d) ==
			   GH_OK, "inner types (device %d): dimension: %s", dev, gh_last_error());
		if (!d || !data)
			continue;
		JCHECK(run(dev, *s, p, d, pg, data, ds.data.size(), 1000, &out, refused, nullptr) == GH_OK,
			   "inner types (device %d): %s", dev, gh_last_error());
		JCHECK(out.n_groups == cnt.size(), "inner types (device %d): %llu groups, the reference %zu",
			   dev, (unsigned long long) out.n_groups, cnt.size());
		for (uint64_t i = 0; i < out.n_groups && out.n_groups == cnt.size(); i++)
		{
			int			b = (int) (out.keys[i] >> 16),
						i2 = (int) (int16_t) (out.keys[i] & 0xFFFF);
			std::pair<int, int> g = {b, i2};
			int			k = -100;

			for (auto &kv : val)
				if (kv.second[0] == i2)
					k = (int) kv.first;

			const vector<int64_t> &v = val[k];
			const gh_agg_state *st = &out.states[i * p.naggs];
			JCHECK(cnt.count(g) && out.nulls[i] == 0 && (int64_t) st[0].mm == v[0] &&
				   st[1].count == cnt[g] && st[2].fsum == (double) rows_f4[g].second &&
				   (int64_t) st[3].mm == v[4] && st[0].count == cnt[g] &&
				   st[5].count == cnt_tm[g] && (cnt_tm[g] == 0 || (int64_t) st[4].mm == v[5]),
				   "inner types (device %d): group (%d, %d): min %lld max %llu sum %g count %lld",
				   dev, b, i2, (long long) st[0].mm, (unsigned long long) st[1].mm, st[2].fsum,
				   (long long) st[0].count);
		}
		gh_agg_groups_free(&out);
		gh_agg_dim_free(d);
	}
	printf("  %-40s\n", "inner int2, oid, bool, float4, timestamp, time");
	delete s;
}

}								/* namespace */

void
test_agg_join(int gpus, bool quick, int *checks, int *failures)
{
	aggref::checks = checks;
	aggref::failures = failures;
	printf("aggregates over a join, conditions and constants (%s):\n",
		   gpus > 0 ? "GPU + host twin" : "host twin");
	test_agg_join_bad(gpus, checks, failures);
	test_agg_star(gpus, checks, failures);

	jcase		c;

	c.o.rows = quick ? 4000 : 20000;
	c.o.groups = 40;
	c.o.null_p = 0.1;

	c.tag = "unique keys, one group";
	c.seed = 1;
	run_case(c, gpus);
	c.tag = "unique keys, inner int groups, qual";
	c.keys = K_INNER_INT;
	c.qual = true;
	c.seed = 2;
	run_case(c, gpus);
	c.tag = "duplicates, bpchar keys on both sides";
	c.qual = false;
	c.d.max_dup = 4;
	c.keys = K_INNER_BPCHAR_OUTER_BPCHAR;
	c.seed = 3;
	run_case(c, gpus);
	c.tag = "duplicates, text and int keys, listed";
	c.keys = K_INNER_TEXT_OUTER_INT;
	c.listed_p = 0.5;
	c.seed = 4;
	run_case(c, gpus);
	c.tag = "text key too wide: pages refused";
	c.d.long_txt_p = 0.03;
	c.some_refused = true;
	c.seed = 5;
	run_case(c, gpus);
	c.d.long_txt_p = 0;
	c.some_refused = false;
	c.tag = "wide keys: (int8, text, int4, date)";
	c.keys = K_WIDE;
	c.seed = 12;
	run_case(c, gpus);
	c.tag = "wide keys, a text too long: refused";
	c.d.long_txt_p = 0.03;
	c.some_refused = true;
	c.seed = 13;
	run_case(c, gpus);
	c.d.long_txt_p = 0;
	c.some_refused = false;
	c.keys = K_INNER_TEXT_OUTER_INT;
	c.tag = "a hot key of 70 rows";
	c.d.max_dup = 2;
	c.d.hot_dup = 70;
	c.keys = K_INNER_INT;
	c.seed = 6;
	run_case(c, gpus);
	c.d.hot_dup = 0;
	c.tag = "a 70 kB inner value: pages refused";
	c.d.huge = true;
	c.d.miss_p = 0;
	c.some_refused = true;
	c.seed = 10;
	run_case(c, gpus);
	c.d.huge = false;
	c.d.miss_p = 0.3;
	c.some_refused = false;
	c.tag = "a join key of two columns, duplicates";
	c.key2 = true;
	c.d.max_dup = 3;
	c.d.miss_p = 0.2;
	c.keys = K_INNER_INT;
	c.seed = 11;
	run_case(c, gpus);
	c.key2 = false;
	c.d.max_dup = 2;
	c.d.miss_p = 0.3;
	c.tag = "an empty dimension";
	c.d.empty = true;
	c.seed = 7;
	run_case(c, gpus);
	c.d.empty = false;
	c.tag = "outer keys, most keys missing";
	c.d.miss_p = 0.8;
	c.keys = K_OUTER;
	c.seed = 8;
	run_case(c, gpus);
	c.d.miss_p = 0.3;

	c.tag = "IN, LIKE, NOT, overflow (by hand)";
	c.hand = true;
	c.some_refused = true;
	c.keys = K_INNER_BPCHAR_OUTER_BPCHAR;
	c.d.max_dup = 2;
	c.listed_p = 0.3;
	c.seed = 9;
	run_case(c, gpus);
	c.hand = false;
	c.some_refused = false;
	c.listed_p = 0;

	/* random join quals and conditions over both sides */
	for (int i = 0; i < (quick ? 4 : 12); i++)
	{
		static char tags[12][64];

		snprintf(tags[i], sizeof(tags[i]), "join qual + conditions, seed %d", 100 + i);
		c.tag = tags[i];
		c.join_qual = true;
		c.conds = true;
		c.keys = i % 5;
		c.d.max_dup = 1 + i % 3;
		c.listed_p = i % 2 ? 0.4 : 0;
		c.qual = i % 3 == 0;
		c.seed = 100 + i;
		run_case(c, gpus);
	}

	JCHECK(cov.like_inner > 0 && cov.in_inner > 0 && cov.cmp_both > 0 && cov.and_or > 0 &&
		   cov.nots > 0 && cov.arith > 0, "random programs lacked a form: LIKE %d IN %d "
		   "outer-inner comparisons %d AND/OR %d NOT %d arithmetic %d", cov.like_inner,
		   cov.in_inner, cov.cmp_both, cov.and_or, cov.nots, cov.arith);

	test_threads(gpus);
	test_inner_types(gpus);

	/* conditions and constants without a join: gh_page_agg */
	c.join = false;
	c.join_qual = false;
	for (int i = 0; i < (quick ? 2 : 6); i++)
	{
		static char tags[6][64];

		snprintf(tags[i], sizeof(tags[i]), "no join, conditions, seed %d", 200 + i);
		c.tag = tags[i];
		c.keys = i % 2 ? K_OUTER : K_NONE;
		c.listed_p = i % 2 ? 0.4 : 0;
		c.seed = 200 + i;
		run_case(c, gpus);
	}
}
