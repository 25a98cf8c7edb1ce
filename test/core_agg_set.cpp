/*
 * core_agg_set.cpp
 *		core_test's checks of resident groups (gpuhash_agg_set.h): a scan's
 *		pages folded request by request (gh_page_agg) and each answer merged
 *		into a set, whose finish must equal the whole scan's group set bit
 *		for bit (NULL keys, numerics with NaN and infinities, int8 sums past
 *		int64, 100 000+ groups, growth by rehash); HAVING terms against a
 *		reference evaluated here in exact arithmetic (constants exact and
 *		between two values of the accumulator's scale, NULL values); the
 *		cap refusing a merge whole.  On a GPU the GPU's set must answer as
 *		the host twin's.
 */
#include "gpuhash_agg_set.h"
#include "agg_set_internal.h"
#include "table_internal.h"
#include "gpuhash_table.h"
#include "agg_gen.h"
#include "agg_ref.h"

#include <stdio.h>
#include <string.h>
#include <vector>

#include "test_check.h"

using namespace aggtest;
using namespace aggref;
using std::vector;

namespace
{

int		   *n_checks,
		   *n_failures;

#define SCHECK(cond, ...) GH_TEST_CHECK(n_checks, n_failures, cond, __VA_ARGS__)

enum
{
	A_COUNT = 0, A_SUM_I4, A_SUM_N, A_MIN_D, A_MAX_TS, A_MIN_I8, A_SUM_I8, A_AVG_F8, NAGGS
};

void
make_scan(gh_page_scan *s)
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
}

gh_agg_spec
S(int fn, int scale, int col)
{
	gh_agg_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.fn = (uint8_t) fn;
	sp.scale = (uint8_t) scale;
	sp.col = (int16_t) col;
	return sp;
}

void
make_prog(gh_agg_prog *p, int keys)
{
	memset(p, 0, sizeof(*p));
	p->naggs = NAGGS;
	p->agg[A_COUNT] = S(GH_AGG_COUNT_STAR, 0, 0);
	p->agg[A_SUM_I4] = S(GH_AGG_SUM, 0, C_I4);
	p->agg[A_SUM_N] = S(GH_AGG_SUM, NUM_SCALE, C_N);
	p->agg[A_MIN_D] = S(GH_AGG_MIN, 0, C_D);
	p->agg[A_MAX_TS] = S(GH_AGG_MAX, 0, C_TS);
	p->agg[A_MIN_I8] = S(GH_AGG_MIN, 0, C_I8);
	p->agg[A_SUM_I8] = S(GH_AGG_SUM, 0, C_I8);
	p->agg[A_AVG_F8] = S(GH_AGG_AVG, 0, C_F8);
	p->nkeys = (int16_t) keys;
	if (keys >= 1)
		p->key[0] = {C_G1, 1, 32};
	if (keys >= 2)
		p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 8};
	if (keys == 4)
	{
		/* a key of two words: (int4, int8), 96 bits */
		p->nkeys = 2;
		p->key[1] = {C_I8, 2, 64};
	}
	if (keys == 3)
	{
		/* a wide key: (int4, char(1) in 9 bytes, int8), 168 bits */
		p->key[1] = {C_FLAG, GH_AGG_KEY_BPCHAR, 0};
		p->key_bytes[1] = 9;
		p->key[2] = {C_I8, 2, 64};
	}
}

/* a term over konst (192-bit from an __int128) */
gh_agg_having_term
T(int agg, int kind, int op, i128 k, bool exact = true)
{
	gh_agg_having_term t;

	memset(&t, 0, sizeof(t));
	t.agg = (int16_t) agg;
	t.kind = (uint8_t) kind;
	t.op = (uint8_t) op;
	t.exact = exact;
	t.konst[0] = (uint64_t) (unsigned __int128) k;
	t.konst[1] = (uint64_t) ((unsigned __int128) k >> 64);
	t.konst[2] = k < 0 ? ~UINT64_C(0) : 0;
	return t;
}

bool
op_holds(int op, int c)
{
	switch (op)
	{
		case GH_HV_LT:
			return c < 0;
		case GH_HV_LE:
			return c <= 0;
		case GH_HV_EQ:
			return c == 0;
		case GH_HV_GE:
			return c >= 0;
		case GH_HV_GT:
			return c > 0;
		default:
			return c != 0;
	}
}

int
cmp_i128(i128 a, i128 b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/*
 * The reference: does term x keep state st?  A SUM term's constant is
 * given here as the rational num / 10^(scale + 1) (one digit finer than
 * the accumulator), compared exactly: sum * 10 against num.
 */
bool
ref_keeps(const gh_agg_having_term &x, i128 num_fine, const gh_agg_state &st)
{
	int			c;

	if (st.flags)
		return true;
	if (x.kind == GH_HV_COUNT)
		c = cmp_i128(st.count, num_fine);
	else if (x.kind == GH_HV_MINMAX)
	{
		if (st.count == 0)
			return false;
		c = cmp_i128((int64_t) st.mm, num_fine);
	}
	else
	{
		if (st.count == 0 && st.nan == 0 && st.pinf == 0 && st.ninf == 0)
			return false;
		if (st.nan > 0 || st.pinf > 0)
			c = 1;
		else if (st.ninf > 0)
			c = -1;
		else
			c = cmp_i128(state_sum(st) * 10, num_fine);
	}
	return op_holds(x.op, c);
}

/* floor(num / 10) and whether it is exact: the core's form of a SUM constant */
gh_agg_having_term
sum_term(int agg, int op, i128 num_fine)
{
	i128		f = num_fine / 10;

	if (num_fine % 10 != 0 && num_fine < 0)
		f -= 1;
	return T(agg, GH_HV_SUM, op, f, num_fine % 10 == 0);
}

/* The scan in requests of `per` pages, each merged into a set on device. */
gh_status
merge_all(int device, const gh_page_scan *s, const gh_agg_prog *p, const dataset &ds,
		  uint32_t per, size_t cap, gh_agg_set **out, int *refusals)
{
	gh_status	st = gh_agg_set_create(device, s, p, cap, out);

	*refusals = 0;
	for (uint32_t first = 0; st == GH_OK && first < ds.n_pages; first += per)
	{
		uint32_t	n = std::min(per, ds.n_pages - first);
		gh_agg_groups g;
		vector<uint8_t> refused(n);

		gh_agg_groups_init(&g, p, 1u << 24);
		st = gh_page_agg(GH_AGG_HOST, s, p, ds.refs.data() + first, n, ds.data.data(),
						 ds.data.size(), nullptr, 0, refused.data(), &g, nullptr);
		if (st == GH_OK)
			st = gh_agg_set_merge(*out, &g);
		if (st == GH_ERR_OUTPUT_FULL)
		{
			(*refusals)++;
			st = GH_OK;
		}
		gh_agg_groups_free(&g);
	}
	return st;
}

void
run_case(const char *tag, int gpus, const options &o, int keys, uint64_t seed, uint32_t per)
{
	dataset		ds = make_data(o, seed);
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;
	gh_agg_groups whole;
	vector<uint8_t> refused(ds.n_pages + 1);
	double		t0 = gh_now_ms();

	make_scan(s);
	make_prog(&p, keys);
	gh_agg_groups_init(&whole, &p, 1u << 24);
	SCHECK(gh_page_agg(GH_AGG_HOST, s, &p, ds.refs.data(), ds.n_pages, ds.data.data(),
					   ds.data.size(), nullptr, 0, refused.data(), &whole, nullptr) == GH_OK,
		   "%s: the whole scan: %s", tag, gh_last_error());

	/* HAVING terms: (term, its constant at the reference's finer scale) */
	struct term_case
	{
		gh_agg_having_term t;
		i128		fine;
	};
	i128		pos = (i128) 1 << 40;
	vector<term_case> terms = {
		{T(A_COUNT, GH_HV_COUNT, GH_HV_GT, 2), 2},
		{T(A_COUNT, GH_HV_COUNT, GH_HV_EQ, 1), 1},
		{T(A_SUM_I4, GH_HV_SUM, GH_HV_GE, 0), 0},
		{T(A_MIN_D, GH_HV_MINMAX, GH_HV_LT, -2000), -2000},
		{T(A_MAX_TS, GH_HV_MINMAX, GH_HV_NE, 0), 0},
		{T(A_MIN_I8, GH_HV_MINMAX, GH_HV_LE, 0), 0},
		{T(A_SUM_I8, GH_HV_SUM, GH_HV_GT, 0), 0},
	};
	/* numeric sums: constants on the accumulator's grid and between two of its steps */
	for (int op = GH_HV_LT; op <= GH_HV_NE; op++)
	{
		terms.push_back({sum_term(A_SUM_N, op, pos * 10), pos * 10});
		terms.push_back({sum_term(A_SUM_N, op, -pos * 10 + 7), -pos * 10 + 7});
		terms.push_back({sum_term(A_SUM_N, op, 3), 3});
	}

	for (int dev = -1; dev < gpus && dev < 1; dev++)
	{
		const char *side = dev < 0 ? "host twin" : "GPU";
		gh_agg_set *set = nullptr;
		int			refusals = 0;
		gh_agg_groups all;
		uint64_t	removed = 0;

		gh_status	st = merge_all(dev, s, &p, ds, per, 0, &set, &refusals);

		SCHECK(st == GH_OK && refusals == 0, "%s (%s): merges: %s", tag, side, gh_last_error());
		if (st != GH_OK)
		{
			gh_agg_set_free(set);
			continue;
		}
		SCHECK(gh_agg_set_groups(set) == whole.n_groups, "%s (%s): %llu groups, the scan %llu",
			   tag, side, (unsigned long long) gh_agg_set_groups(set),
			   (unsigned long long) whole.n_groups);
		gh_agg_groups_init(&all, &p, 0);
		SCHECK(gh_agg_set_finish(set, nullptr, &all, &removed) == GH_OK && removed == 0,
			   "%s (%s): finish: %s", tag, side, gh_last_error());
		compare_sets(tag, all, whole);

		/* each term alone, then the first three together */
		for (size_t i = 0; i <= terms.size(); i++)
		{
			gh_agg_having h;
			gh_agg_groups kept;
			vector<size_t> use;

			memset(&h, 0, sizeof(h));
			if (i < terms.size())
				use = {i};
			else
				use = {0, 2, 3};
			for (size_t u : use)
				h.term[h.nterms++] = terms[u].t;
			gh_agg_groups_init(&kept, &p, 0);
			SCHECK(gh_agg_set_finish(set, &h, &kept, &removed) == GH_OK,
				   "%s (%s): finish with terms: %s", tag, side, gh_last_error());

			uint64_t	k = 0,
						want = 0;
			bool		same = true;

			for (uint64_t gi = 0; gi < whole.n_groups; gi++)
			{
				bool		keep = true;

				for (size_t u : use)
					keep = keep && ref_keeps(terms[u].t, terms[u].fine,
											 whole.states[gi * NAGGS + terms[u].t.agg]);
				if (!keep)
					continue;
				want++;
				/* the states were compared above (NaN payloads aside) */
				int			kw = gh_agg_groups_key_words(&whole);

				if (k >= kept.n_groups || gh_agg_groups_key_words(&kept) != kw ||
					memcmp(kept.keys + k * kw, whole.keys + gi * kw, 8 * kw) != 0 ||
					kept.nulls[k] != whole.nulls[gi] ||
					kept.states[k * NAGGS].count != whole.states[gi * NAGGS].count)
					same = false;
				k++;
			}
			SCHECK(same && kept.n_groups == want && removed == whole.n_groups - want,
				   "%s (%s): term set %zu kept %llu removed %llu, the reference %llu", tag,
				   side, i, (unsigned long long) kept.n_groups, (unsigned long long) removed,
				   (unsigned long long) want);
			gh_agg_groups_free(&kept);
		}
		gh_agg_groups_free(&all);
		gh_agg_set_free(set);

		/* a cap that holds a few requests' groups: later merges refused whole */
		size_t		cap = gh_agg_set_size(NAGGS, 1, 1024) + 1;

		st = merge_all(dev, s, &p, ds, per, cap, &set, &refusals);
		SCHECK(st == GH_OK, "%s (%s): capped merges: %s", tag, side, gh_last_error());
		if (st == GH_OK)
		{
			SCHECK(gh_agg_set_bytes(set) <= cap && gh_agg_set_groups(set) <= 1024 &&
				   (whole.n_groups <= 1024 || refusals > 0),
				   "%s (%s): the cap: %zu bytes, %llu groups, %d refusals", tag, side,
				   gh_agg_set_bytes(set), (unsigned long long) gh_agg_set_groups(set), refusals);
		}
		gh_agg_set_free(set);
	}

	/* HAVING terms that are not exact are refused */
	{
		gh_agg_having h;

		memset(&h, 0, sizeof(h));
		h.nterms = 1;
		h.term[0] = T(A_AVG_F8, GH_HV_SUM, GH_HV_GT, 0);
		SCHECK(gh_agg_having_check(s, &p, &h) != GH_OK, "%s: a term over avg(float8) accepted", tag);
		h.term[0] = T(A_SUM_N, GH_HV_MINMAX, GH_HV_GT, 0);
		SCHECK(gh_agg_having_check(s, &p, &h) != GH_OK, "%s: a min/max term over a sum accepted", tag);
	}
	printf("  %-34s rows %7zu pages %5u groups %7llu  %6.2f s\n", tag, o.rows, ds.n_pages,
		   (unsigned long long) whole.n_groups, (gh_now_ms() - t0) / 1000.0);
	fflush(stdout);
	gh_agg_groups_free(&whole);
	delete s;
}

}								/* namespace */

void
test_agg_set(int gpus, bool quick, int *checks, int *failures)
{
	n_checks = checks;
	n_failures = failures;
	aggref::checks = checks;
	aggref::failures = failures;
	printf("resident groups (%s):\n", gpus > 0 ? "GPU + host twin" : "host twin");

	options		o;

	o.rows = 0;
	run_case("set: empty input", gpus, o, 1, 21, 4);
	o.rows = quick ? 20000 : 60000;
	o.groups = 50;
	o.null_p = 0.2;
	run_case("set: (int4, char(1)), NULL keys", gpus, o, 2, 22, 3);
	o.null_p = 0.05;
	o.big_i8 = true;
	run_case("set: int8 sums past int64", gpus, o, 1, 23, 5);
	o.big_i8 = false;
	o.rows = quick ? 150000 : 300000;
	o.groups = quick ? 400000 : 800000;
	run_case("set: 100k+ groups, grown", gpus, o, 1, 24, 16);
	o.rows = quick ? 20000 : 60000;
	o.groups = 50;
	o.null_p = 0.2;
	run_case("set: wide (int4, char, int8), NULLs", gpus, o, 3, 25, 3);
	run_case("set: two words (int4, int8), NULLs", gpus, o, 4, 27, 3);
	o.rows = quick ? 150000 : 300000;
	o.groups = quick ? 400000 : 800000;
	run_case("set: wide, 100k+ groups, grown", gpus, o, 3, 26, 16);
}
