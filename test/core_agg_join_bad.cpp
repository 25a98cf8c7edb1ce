/*
 * core_agg_join_bad.cpp
 *		core_test's checks of what the aggregate over a join must refuse:
 *		programs naming inner columns or instructions they lack, conditions
 *		where none may be, constants of no integer type; dimensions of bad
 *		arguments or past their GPU budget; calls joining without a
 *		dimension, or with one of another shape or device.
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

#define JCHECK(cond, ...) RCHECK(cond, __VA_ARGS__)

/* Arguments, programs and dimensions the core must refuse. */
void
test_refusals(int gpus)
{
	gh_page_scan *s = new gh_page_scan();
	gh_agg_prog p,
				q;
	dim_opts	dopt;
	dim_rows	dr = make_dim(dopt, 10, 5);
	gh_agg_dim *d = nullptr;

	make_scan(s, false);
	make_prog(&p, K_INNER_INT, true);
	JCHECK(gh_agg_prog_check(s, &p) == GH_OK, "refusals: the base program: %s", gh_last_error());

	q = p;
	q.agg[1].col = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: an inner column past ninner");
	q = p;
	q.key[0].col = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a key past ninner");
	q = p;
	q.join.inner_type[2] = GH_T_SKIP;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: an inner column of no type");
	q = p;
	q.join.ninner = GH_AGG_MAX_INNER + 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: ninner too large");
	q = p;
	q.ninsns = 3;
	q.insn[0] = {GH_Q_COL, 0, 0, 0, (uint32_t) IC(J_CAT)};
	q.insn[1] = {GH_Q_COL, 0, 0, 0, (uint32_t) C_I4};
	q.insn[2] = {GH_Q_CMP, GH_M_INT, GH_EQ, 0, 0};
	q.join.jq_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_OK, "refusals: a join qual over both sides: %s",
		   gh_last_error());
	q.join.jq_len = 4;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a join qual past ninsns");
	q.join.jq_len = 2;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a join qual of no boolean");
	q.join.jq_len = 3;
	q.insn[0].a = IC(NIN);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a qual reading past ninner");
	q.insn[0].a = IC(J_CAT);
	q.agg[0].cond_start = 0;
	q.agg[0].cond_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: count(*) under a condition");
	q.agg[0].cond_len = 0;
	q.agg[3].cond_start = 0;
	q.agg[3].cond_len = 3;
	JCHECK(gh_agg_prog_check(s, &q) == GH_OK, "refusals: count(x) under a condition: %s",
		   gh_last_error());
	q.agg[3].cond_start = GH_AGG_MAX_INSNS - 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a condition past ninsns");
	q = p;
	q.ninsns = GH_AGG_MAX_INSNS + 1;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: ninsns too large");
	q = p;
	q.agg[7].type = GH_T_NUMERIC;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: a constant of numeric type");
	q = p;
	q.agg[0] = konst(GH_AGG_COUNT_STAR, 1, GH_T_INT4);
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: count(*) of a constant");
	q = p;
	q.join.ninner = 0;
	JCHECK(gh_agg_prog_check(s, &q) == GH_ERR_INVALID, "refusals: inner columns without a join");

	/* dimensions */
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(),
							GH_AGG_MAX_INNER + 1, dr.heap.data(), dr.heap.size(), 0, &d) ==
		   GH_ERR_INVALID && d == nullptr, "refusals: a dimension of too many columns");
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, nullptr, 3, dr.in.data(), NIN, nullptr, 0, 0, &d) ==
		   GH_ERR_INVALID, "refusals: a dimension without keys");
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, nullptr, 0, nullptr, NIN, nullptr, 0, 0, &d) == GH_OK &&
		   d != nullptr && gh_agg_dim_rows(d) == 0, "refusals: an empty dimension: %s",
		   gh_last_error());
	gh_agg_dim_free(d);
	d = nullptr;
	gh_agg_dim_free(nullptr);
	JCHECK(gh_agg_dim_build(gpus > 0 ? 0 : 7, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
							dr.heap.data(), dr.heap.size(), 64, &d) != GH_OK && d == nullptr,
		   "refusals: a GPU dimension over its budget (or without a GPU)");
	if (gpus > 0)
	{
		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 64, &d) == GH_ERR_GPU_MEMORY,
			   "refusals: a GPU dimension over its budget");
		d = nullptr;
	}

	/* calls: a join program without its dimension, a dimension of another shape */
	options		o;

	o.rows = 500;
	dataset		ds = make_data(o, 3);
	pages		pg = make_pages(ds, 0, 1);
	gh_agg_groups g;
	vector<uint8_t> refused;

	JCHECK(run(GH_AGG_HOST, *s, p, nullptr, pg, ds.data.data(), ds.data.size(), 1000, &g, refused,
			   nullptr) == GH_ERR_INVALID, "refusals: a join program through gh_page_agg");
	gh_agg_groups_free(&g);
	JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN - 1,
							dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK, "refusals: a build");
	JCHECK(run(GH_AGG_HOST, *s, p, d, pg, ds.data.data(), ds.data.size(), 1000, &g, refused,
			   nullptr) == GH_ERR_INVALID, "refusals: a dimension of other columns");
	gh_agg_groups_free(&g);
	gh_agg_dim_free(d);
	d = nullptr;
	if (gpus > 0)
	{
		/* a dimension on the host asked to join on the GPU */
		JCHECK(gh_agg_dim_build(GH_AGG_HOST, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), 0, &d) == GH_OK, "refusals: a build");
		JCHECK(run(0, *s, p, d, pg, ds.data.data(), ds.data.size(), 1000, &g, refused, nullptr) ==
			   GH_ERR_INVALID, "refusals: a dimension on another device");
		gh_agg_groups_free(&g);
		gh_agg_dim_free(d);
	}
	if (gpus > 0)
	{
		/* values that fit the budget, the table not: nothing held */
		size_t		vb = dr.keys.size() * NIN * sizeof(gh_agg_inval) + dr.heap.size();

		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), vb + 16, &d) == GH_ERR_GPU_MEMORY &&
			   d == nullptr, "refusals: a GPU dimension whose table passes the budget: %s",
			   gh_last_error());
		JCHECK(gh_agg_dim_build(0, dr.keys.data(), dr.keys.size(), dr.in.data(), NIN,
								dr.heap.data(), dr.heap.size(), vb + (64 << 20), &d) == GH_OK &&
			   gh_agg_dim_bytes(d) <= vb + (64 << 20) && gh_agg_dim_device(d) == 0,
			   "refusals: a GPU dimension within its budget: %s", gh_last_error());
		gh_agg_dim_free(d);
		d = nullptr;
	}
	printf("  %-40s\n", "refused programs, dimensions and calls");
	delete s;
}

}								/* namespace */

void
test_agg_join_bad(int gpus, int *checks, int *failures)
{
	aggref::checks = checks;
	aggref::failures = failures;
	test_refusals(gpus);
}
