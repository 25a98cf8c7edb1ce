/*
 * core_agg_star.cpp
 *		core_test's checks of the aggregate over a star (gh_agg_dim_star,
 *		gh_agg_prog.star): agg_gen.h's heap pages joined to two generated
 *		dimensions (agg_join_gen.h's rows: duplicates, missing keys, NULLs,
 *		an empty one), group keys and aggregates over both dimensions' columns
 *		(a bpchar key of the second dimension: its own heap; keys of two
 *		words and of the widest, text names of both), a join qual across
 *		them.  The reference is the same fold over one dimension, the
 *		two dimensions' product (the rows of equal key side by side, the key
 *		packed twice), which core_agg_join.cpp checks against a nested loop;
 *		on a GPU, the GPU's star with the host twin's, bit for bit.
 */
#include "gpuhash_agg.h"
#include "table_internal.h"
#include "agg_join_gen.h"

#include <stdio.h>
#include <string.h>
#include <vector>

using namespace pagetest;
using namespace aggtest;
using namespace aggref;
using namespace aggjoin;
using std::vector;

namespace
{

#define SCHECK(cond, ...) RCHECK(cond, __VA_ARGS__)

/* column j of dimension d (0, 1) in the star's numbering */
#define SC(d, j) (GH_AGG_INNER_COL0 + (d) * NIN + (j))

struct scase
{
	const char *tag;
	int			max_dup_a = 1;
	int			max_dup_b = 1;
	bool		empty_b = false;
	bool		qual = false;	/* a join qual across the dimensions */
	int			wide = 0;		/* group keys: 0 one word, 1 two (int8, date,
								 * int4), 2 the widest (text, bpchar, date) */
	double		listed_p = 0;
	uint64_t	seed = 1;
};

/* The aggregates and keys, over both dimensions (no float sums: the order differs). */
void
star_prog(gh_agg_prog *p, bool qual, int wide)
{
	memset(p, 0, sizeof(*p));
	p->join.ninner = 2 * NIN;
	memcpy(p->join.inner_type, ITYPE, NIN);
	memcpy(p->join.inner_type + NIN, ITYPE, NIN);

	int			i = 0;

	p->agg[i++] = spec(GH_AGG_COUNT_STAR, 0);
	p->agg[i++] = spec(GH_AGG_SUM, C_I4);
	p->agg[i++] = spec(GH_AGG_SUM, SC(0, J_NUM), GH_AGG_E_COL, 6);
	p->agg[i++] = spec(GH_AGG_SUM, SC(1, J_NUM), GH_AGG_E_COL, 6);
	p->agg[i++] = spec(GH_AGG_COUNT, SC(1, J_TXT));
	p->agg[i++] = spec(GH_AGG_MIN, SC(1, J_DATE));
	p->agg[i++] = spec(GH_AGG_MAX, SC(0, J_I8));
	p->agg[i++] = spec(GH_AGG_SUM, C_PRICE, GH_AGG_E_MUL, 10, SC(1, J_NUM));
	p->naggs = (int16_t) i;
	p->nkeys = 2;
	p->key[0] = {SC(0, J_CAT), 1, 32};
	p->key[1] = {SC(1, J_BPC), GH_AGG_KEY_BPCHAR, 24};
	if (wide == 1)
	{
		/* 128 bits: a key of each dimension and one of R */
		p->nkeys = 3;
		p->key[0] = {SC(0, J_I8), 2, 64};
		p->key[1] = {SC(1, J_DATE), 1, 32};
		p->key[2] = {C_G1, 1, 32};
	}
	else if (wide == 2)
	{
		/* a name of each dimension (text, bpchar in 12 bytes) and a date */
		p->nkeys = 3;
		p->key[0] = {SC(0, J_TXT), GH_AGG_KEY_TEXT, 0};
		p->key_bytes[0] = 12;
		p->key[1] = {SC(1, J_BPC), GH_AGG_KEY_BPCHAR, 0};
		p->key_bytes[1] = 12;
		p->key[2] = {SC(1, J_DATE), 1, 32};
	}
	if (qual)
	{
		/* a.cat <= b.cat OR a.txt = b.txt (text equality over two heaps) */
		gh_qinsn   *q = p->insn;

		q[0] = {GH_Q_COL, 0, 0, 0, (uint32_t) SC(0, J_CAT)};
		q[1] = {GH_Q_COL, 0, 0, 0, (uint32_t) SC(1, J_CAT)};
		q[2] = {GH_Q_CMP, GH_M_INT, GH_LE, 0, 0};
		q[3] = {GH_Q_COL, 0, 0, 0, (uint32_t) SC(0, J_TXT)};
		q[4] = {GH_Q_COL, 0, 0, 0, (uint32_t) SC(1, J_TXT)};
		q[5] = {GH_Q_CMP, GH_M_TEXT, GH_EQ, 0, 0};
		q[6] = {GH_Q_OR, 0, 0, 0, 2};
		p->ninsns = 7;
		p->join.jq_start = 0;
		p->join.jq_len = 7;
	}
}

/* The product of a and b over equal keys: one dimension whose key is (k, k). */
void
product(const dim_rows &a, const dim_rows &b, vector<uint64_t> *keys, vector<gh_agg_inval> *in,
		vector<uint8_t> *heap)
{
	*heap = a.heap;
	heap->insert(heap->end(), b.heap.begin(), b.heap.end());
	for (size_t x = 0; x < a.keys.size(); x++)
		for (size_t y = 0; y < b.keys.size(); y++)
		{
			if (a.keys[x] != b.keys[y])
				continue;
			keys->push_back(a.keys[x] << 32 | (b.keys[y] & 0xFFFFFFFFu));
			for (int j = 0; j < NIN; j++)
				in->push_back(a.in[x * NIN + j]);
			for (int j = 0; j < NIN; j++)
			{
				gh_agg_inval iv = b.in[y * NIN + j];

				if (!iv.null && (ITYPE[j] == GH_T_NUMERIC || ITYPE[j] == GH_T_TEXT ||
								 ITYPE[j] == GH_T_BPCHAR))
					iv.bits += a.heap.size();
				in->push_back(iv);
			}
		}
}

void
run_star(const scase &c, int gpus)
{
	options		o;

	o.rows = 12000;
	o.groups = 40;
	o.null_p = 0.1;

	dataset		ds = make_data(o, c.seed);
	pages		pg = make_pages(ds, c.listed_p, c.seed * 17 + 3);
	dim_opts	da,
				db;

	da.max_dup = c.max_dup_a;
	db.max_dup = c.max_dup_b;
	db.empty = c.empty_b;

	dim_rows	a = make_dim(da, o.groups, c.seed * 31 + 7);
	dim_rows	b = make_dim(db, o.groups, c.seed * 37 + 5);

	/* the star: both dimensions keyed on g1 */
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p;

	make_scan(s, false);
	star_prog(&p, c.qual, c.wide);
	p.star.ndims = 2;
	for (int d = 0; d < 2; d++)
	{
		p.star.dim[d].nkeys = 1;
		p.star.dim[d].col0 = (int16_t) (d * NIN);
		p.star.dim[d].ninner = NIN;
		p.star.dim[d].key[0] = {C_G1, 1, 32};
	}
	SCHECK(gh_agg_prog_check(s, &p) == GH_OK, "%s: star program: %s", c.tag, gh_last_error());

	/* the reference: one dimension, the product, keyed (g1, g1) */
	gh_page_scan *s1 = new gh_page_scan(*s);
	gh_agg_prog p1;
	vector<uint64_t> pk;
	vector<gh_agg_inval> pin;
	vector<uint8_t> pheap;

	s1->nkeys = 2;
	s1->key[0] = {C_G1, 1, 32};
	s1->key[1] = {C_G1, 1, 32};
	star_prog(&p1, c.qual, c.wide);
	product(a, b, &pk, &pin, &pheap);

	gh_agg_dim *ha = nullptr,
			   *hb = nullptr,
			   *hs = nullptr,
			   *hp = nullptr;

	SCHECK(gh_agg_dim_build(GH_AGG_HOST, a.keys.data(), a.keys.size(), a.in.data(), NIN,
							a.heap.data(), a.heap.size(), 0, &ha) == GH_OK &&
		   gh_agg_dim_build(GH_AGG_HOST, b.keys.data(), b.keys.size(), b.in.data(), NIN,
							b.heap.data(), b.heap.size(), 0, &hb) == GH_OK &&
		   gh_agg_dim_build(GH_AGG_HOST, pk.data(), pk.size(), pin.data(), 2 * NIN,
							pheap.data(), pheap.size(), 0, &hp) == GH_OK,
		   "%s: host dimensions: %s", c.tag, gh_last_error());

	const gh_agg_dim *parts[2] = {ha, hb};

	SCHECK(gh_agg_dim_star(parts, 2, &hs) == GH_OK, "%s: star: %s", c.tag, gh_last_error());

	gh_agg_groups want,
				host;
	vector<uint8_t> rw,
				rh;
	gh_agg_stats sw,
				sh;

	memset(&sw, 0, sizeof(sw));
	memset(&sh, 0, sizeof(sh));
	SCHECK(run(GH_AGG_HOST, *s1, p1, hp, pg, ds.data.data(), ds.data.size(), 1u << 24, &want, rw,
			   &sw) == GH_OK, "%s: product: %s", c.tag, gh_last_error());
	SCHECK(run(GH_AGG_HOST, *s, p, hs, pg, ds.data.data(), ds.data.size(), 1u << 24, &host, rh,
			   &sh) == GH_OK, "%s: star, host twin: %s", c.tag, gh_last_error());
	SCHECK(rh == rw, "%s: the star refused other pages than the product", c.tag);
	SCHECK(sh.tuples == sw.tuples && sh.passed == sw.passed,
		   "%s: star tuples %llu pairs %llu, product %llu and %llu", c.tag,
		   (unsigned long long) sh.tuples, (unsigned long long) sh.passed,
		   (unsigned long long) sw.tuples, (unsigned long long) sw.passed);
	compare_sets(c.tag, host, want);

	/* a star of one dimension, or a program that is not one's, is refused */
	{
		gh_agg_dim *bad = nullptr;
		gh_agg_groups g;
		vector<uint8_t> r;

		SCHECK(gh_agg_dim_star(parts, 1, &bad) == GH_ERR_INVALID && bad == nullptr,
			   "%s: a star of one dimension taken", c.tag);
		SCHECK(run(GH_AGG_HOST, *s, p1, hs, pg, ds.data.data(), ds.data.size(), 1u << 24, &g, r,
				   nullptr) == GH_ERR_INVALID, "%s: a one-dimension program over a star", c.tag);
		gh_agg_groups_free(&g);
	}

	if (gpus > 0)
	{
		gh_agg_dim *ga = nullptr,
				   *gb = nullptr,
				   *gs = nullptr;
		const uint8_t *mp = mapped_copy(ds.data.data(), ds.data.size());

		SCHECK(gh_agg_dim_build(0, a.keys.data(), a.keys.size(), a.in.data(), NIN,
								a.heap.data(), a.heap.size(), 0, &ga) == GH_OK &&
			   gh_agg_dim_build(0, b.keys.data(), b.keys.size(), b.in.data(), NIN,
								b.heap.data(), b.heap.size(), 0, &gb) == GH_OK,
			   "%s: GPU dimensions: %s", c.tag, gh_last_error());

		const gh_agg_dim *gparts[2] = {ga, gb};

		if (ga && gb && mp && gh_agg_dim_star(gparts, 2, &gs) == GH_OK)
		{
			gh_agg_groups gpu;
			vector<uint8_t> rg;
			gh_agg_stats sg;
			gh_status	st = run(0, *s, p, gs, pg, mp, ds.data.size(), 1u << 24, &gpu, rg, &sg);

			SCHECK(st == GH_OK, "%s: star on the GPU: %s", c.tag, gh_last_error());
			if (st == GH_OK)
			{
				compare_sets(c.tag, gpu, host);
				SCHECK(rg == rh, "%s: the GPU refused other pages", c.tag);
				SCHECK(sg.tuples == sh.tuples && sg.passed == sh.passed,
					   "%s: GPU tuples %llu pairs %llu, host %llu and %llu", c.tag,
					   (unsigned long long) sg.tuples, (unsigned long long) sg.passed,
					   (unsigned long long) sh.tuples, (unsigned long long) sh.passed);
			}
			gh_agg_groups_free(&gpu);
		}
		else
			SCHECK(false, "%s: no GPU star: %s", c.tag, gh_last_error());
		gh_agg_dim_free(gs);
		gh_agg_dim_free(ga);
		gh_agg_dim_free(gb);
	}
	printf("  %-40s inner %5zu x %5zu pages %4zu pairs %6llu groups %5llu\n", c.tag,
		   a.keys.size(), b.keys.size(), pg.refs.size(), (unsigned long long) sh.passed,
		   (unsigned long long) host.n_groups);
	fflush(stdout);
	gh_agg_groups_free(&want);
	gh_agg_groups_free(&host);
	gh_agg_dim_free(hs);
	gh_agg_dim_free(ha);
	gh_agg_dim_free(hb);
	gh_agg_dim_free(hp);
	delete s;
	delete s1;
}

}								/* namespace */

void
test_agg_star(int gpus, int *checks, int *failures)
{
	aggref::checks = checks;
	aggref::failures = failures;
	printf("aggregates over a star of two dimensions (%s):\n",
		   gpus > 0 ? "GPU + host twin" : "host twin");

	scase		c;

	c.tag = "star: unique keys";
	run_star(c, gpus);
	c.tag = "star: duplicates in both, listed pages";
	c.max_dup_a = 3;
	c.max_dup_b = 2;
	c.listed_p = 0.5;
	c.seed = 2;
	run_star(c, gpus);
	c.tag = "star: a qual across the dimensions";
	c.qual = true;
	c.seed = 3;
	run_star(c, gpus);
	c.tag = "star: an empty dimension";
	c.empty_b = true;
	c.seed = 4;
	run_star(c, gpus);
	c.tag = "star: group keys of two words";
	c.empty_b = false;
	c.qual = false;
	c.wide = 1;
	c.seed = 5;
	run_star(c, gpus);
	c.tag = "star: wide keys (text, bpchar, date), a qual";
	c.qual = true;
	c.wide = 2;
	c.seed = 6;
	run_star(c, gpus);
}
