/*
 * core_chain.cpp
 *		core_test's checks of multi-level probes (gh_chain_probe): random
 *		chains of 2 to 5 levels of every kind, with NULL keys, heavy
 *		duplicates that multiply across levels, empty inner sides and
 *		outer sides, keys 0 and INT64_MIN/MAX, and keys read from earlier
 *		levels' carried columns.  Each result is compared, as a multiset of
 *		(outer row, rowid per level), with a brute-force expansion; on a
 *		GPU, the GPU's and the host twin's lists must also be equal, in
 *		order.  The same list read by windows of random sizes
 *		(gh_chain_probe_window) must put together to it, and tables built
 *		with other rowids, given the carried columns in key-grouped order
 *		(gh_set_carried_ordered), must answer it too.
 */
#include "gpuhash_page.h"
#include "gpuhash_table.h"
#include "table_internal.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <stdio.h>
#include <thread>
#include <vector>

using std::map;
using std::vector;

namespace
{

struct level_data
{
	gh_level_kind kind;
	/* the key's parts, OR'd: part 0, and for some levels a second of another source */
	int			n_parts;
	int			from_level[2];
	int			column[2];
	vector<uint64_t> keys;		/* by rowid */
	vector<uint8_t> carried_ok;
	vector<uint64_t> carried;	/* two carried columns, by rowid: c * rows + r */
	uint64_t	cdom;			/* the carried column's key domain */
};

typedef vector<uint32_t> combo;	/* outer row, then a rowid per level */

/* A key of a domain of d values, with the edge values among them. */
uint64_t
domain_key(uint64_t *s, uint64_t d)
{
	uint64_t	v = gh_splitmix64(s) % (d ? d : 1);

	if (v == 0)
		return 0;
	if (v == 1)
		return (uint64_t) INT64_MIN;
	if (v == 2)
		return (uint64_t) INT64_MAX;
	return v * 0x10001ULL;
}

/* The brute-force answer, rowids per level (GH_NO_ROW where none). */
vector<combo>
reference(const vector<level_data> &lv, const vector<uint64_t> &okeys, const vector<uint8_t> &ook,
		  size_t n)
{
	vector<combo> cur;

	for (size_t i = 0; i < n; i++)
		cur.push_back(combo(1, (uint32_t) i));
	for (size_t l = 0; l < lv.size(); l++)
	{
		map<uint64_t, vector<uint32_t>> index;
		vector<combo> next;

		for (size_t r = 0; r < lv[l].keys.size(); r++)
			index[lv[l].keys[r]].push_back((uint32_t) r);
		for (const combo &c : cur)
		{
			bool		ok = true;
			uint64_t	key = 0;

			for (int q = 0; q < lv[l].n_parts; q++)
			{
				int			from = lv[l].from_level[q],
							col = lv[l].column[q];

				if (from < 0)
				{
					size_t		cell = col * n + c[0];

					ok = ok && ook[cell];
					key |= okeys[cell];
				}
				else
				{
					const level_data &src = lv[from];
					uint32_t	r = c[1 + from];
					size_t		cell = col * src.keys.size() + r;

					ok = ok && r != GH_NO_ROW && src.carried_ok[cell];
					key |= r != GH_NO_ROW ? src.carried[cell] : 0;
				}
			}
			const vector<uint32_t> *m = NULL;

			if (ok && index.count(key))
				m = &index[key];
			size_t		cnt = m ? m->size() : 0;

			if ((lv[l].kind == GH_LEVEL_INNER || lv[l].kind == GH_LEVEL_LEFT) && cnt > 0)
				for (uint32_t r : *m)
				{
					combo		d = c;

					d.push_back(r);
					next.push_back(d);
				}
			else if ((lv[l].kind == GH_LEVEL_SEMI && cnt > 0) ||
					 (lv[l].kind == GH_LEVEL_ANTI && cnt == 0) || lv[l].kind == GH_LEVEL_LEFT)
			{
				combo		d = c;

				d.push_back(GH_NO_ROW);
				next.push_back(d);
			}
		}
		cur.swap(next);
	}
	std::sort(cur.begin(), cur.end());
	return cur;
}

/* A list of combinations in its order: outer row, then a position per level. */
typedef vector<uint32_t> flat;

void
append_combos(flat *f, const uint32_t *oo, const uint32_t *op, uint64_t stride, uint64_t cnt,
			  int nl)
{
	for (uint64_t j = 0; j < cnt; j++)
	{
		f->push_back(oo[j]);
		for (int l = 0; l < nl; l++)
			f->push_back(op[l * stride + j]);
	}
}

/*
 * Reads the chain's list by windows of random sizes (1, past the end, and
 * between) into *got; NULL if every window answered as it should, else
 * what went wrong.
 */
const char *
read_windows(const vector<gh_chain_level> &cl, const uint64_t *okeys, const uint8_t *ook,
			 size_t n, uint64_t want_total, uint64_t *ws, flat *got)
{
	int			nl = (int) cl.size();
	uint64_t	skip = 0;

	do
	{
		uint64_t	r = gh_splitmix64(ws) % 4;
		uint64_t	cap = r == 0 ? 1 : r == 1 ? want_total + 3 : 1 + gh_splitmix64(ws) % (want_total / 3 + 2);
		vector<uint32_t> oo(cap),
					op(cap * nl);
		uint64_t	total = ~0ULL,
					written = ~0ULL;

		double		ms[GH_MAX_CHAIN_LEVELS] = {0};
		double		sum = 0;

		if (gh_chain_probe_window(cl.data(), nl, okeys, ook, 2, n, skip, oo.data(), op.data(), cap,
								  &total, &written, ms) != GH_OK)
			return "a window failed";
		for (int l = 0; l < nl; l++)
		{
			if (!(ms[l] >= 0 && ms[l] < 60e3))
				return "a level's time is not a time";
			sum += ms[l];
		}
		if (n > 0 && sum <= 0)
			return "the levels took no time at all";
		for (int l = nl; l < GH_MAX_CHAIN_LEVELS; l++)
			if (ms[l] != 0)
				return "a time was written past the last level";
		if (total != want_total)
			return "a window's total differs";
		if (written != std::min(cap, total - skip))
			return "a window wrote too few or too many";
		append_combos(got, oo.data(), op.data(), cap, written, nl);
		skip += written;
	} while (skip < want_total);
	return NULL;
}

/* The windows at the list's end, and one of capacity 0 that writes nowhere. */
const char *
edge_windows(const vector<gh_chain_level> &cl, const uint64_t *okeys, const uint8_t *ook,
			 size_t n, const flat &whole)
{
	int			nl = (int) cl.size();
	uint64_t	want = whole.size() / (1 + nl),
				total = 0,
				written = 1;
	vector<uint32_t> oo(5),
				op(5 * nl);
	flat		last;

	if (gh_chain_probe_window(cl.data(), nl, okeys, ook, 2, n, 0, NULL, NULL, 0, &total,
							  &written, NULL) != GH_OK || total != want || written != 0)
		return "capacity 0 did not answer with the total alone";
	if (gh_chain_probe_window(cl.data(), nl, okeys, ook, 2, n, want, oo.data(), op.data(), 1, &total,
							  &written, NULL) != GH_OK || total != want || written != 0)
		return "a window at the end was not empty";
	if (gh_chain_probe_window(cl.data(), nl, okeys, ook, 2, n, want + 1, oo.data(), op.data(), 1,
							  &total, &written, NULL) != GH_ERR_INVALID)
		return "a window past the end was not refused";
	if (want == 0)
		return NULL;
	if (gh_chain_probe_window(cl.data(), nl, okeys, ook, 2, n, want - 1, oo.data(), op.data(), 5,
							  &total, &written, NULL) != GH_OK || total != want || written != 1)
		return "the last window did not write the last combination alone";
	append_combos(&last, oo.data(), op.data(), 5, 1, nl);
	if (!std::equal(last.begin(), last.end(), whole.end() - (1 + nl)))
		return "the last window wrote another combination";
	return NULL;
}

/*
 * Chain probes on lanes of level 0's table (as the GPU service's threads
 * run a parallel plan's chains): LANE_THREADS threads, each taking a lane
 * under one lock, probing without it, giving it back.  A lane too small
 * for the combinations says so and writes nothing; given back, the next
 * take is larger, so a thread asks again (up to 8 times).  Every list must
 * equal the probe's under the lock.  A table that is not on a GPU has no
 * lanes: take answers NULL.
 */
const int	LANE_THREADS = 4;
uint64_t	lane_probes = 0,
			lane_shorts = 0;

const char *
lanes_check(const vector<gh_chain_level> &cl, const uint64_t *okeys, const uint8_t *ook,
			size_t n, const flat &whole)
{
	int			nl = (int) cl.size();
	gh_table   *t0 = cl[0].table;
	uint64_t	want = whole.size() / (1 + nl);
	std::mutex	lock;
	std::atomic<int> bad{0},
				done{0},
				shorts{0};
	vector<std::thread> th;

	if (t0->device != GH_DEVICE_GPU)
	{
		gh_page_lane *lane = reinterpret_cast<gh_page_lane *>(&lock);

		if (gh_chain_lane_take(t0, nl, 2, n, ook != NULL, &lane) != GH_OK || lane != NULL)
			return "a table not on a GPU gave a chain lane";
		return NULL;
	}
	for (int i = 0; i < LANE_THREADS; i++)
		th.emplace_back([&]() {
			for (int attempt = 0; attempt < 8; attempt++)
			{
				gh_page_lane *lane = NULL;
				vector<uint32_t> oo(want + 1),
							op((want + 1) * nl);
				uint64_t	total = 0,
							written = 0;
				int			is_short = 0;
				gh_status	st;
				gh_page_stats ps;

				{
					std::lock_guard<std::mutex> g(lock);

					st = gh_chain_lane_take(t0, nl, 2, n, ook != NULL, &lane);
				}
				if (st != GH_OK || lane == NULL)
				{
					bad++;
					return;
				}
				st = gh_chain_probe_lane(lane, cl.data(), nl, okeys, ook, 2, n, 0, oo.data(),
										 op.data(), want + 1, &total, &written, NULL, &is_short);
				memset(&ps, 0, sizeof(ps));
				ps.passed = n;
				{
					std::lock_guard<std::mutex> g(lock);

					gh_page_lane_give(t0, lane, st == GH_OK ? &ps : NULL);
				}
				if (st != GH_OK && is_short && written == 0)
				{
					shorts++;
					continue;
				}
				flat		got;

				if (st == GH_OK && !is_short && total == want && written == want)
					append_combos(&got, oo.data(), op.data(), want + 1, written, nl);
				if (st != GH_OK || got != whole)
					bad++;
				done++;
				return;
			}
			bad++;
		});
	for (std::thread &x : th)
		x.join();
	lane_probes += (uint64_t) done.load();
	lane_shorts += (uint64_t) shorts.load();
	if (bad.load() != 0 || done.load() != LANE_THREADS)
		return "a chain probe on a lane differs from the probe under the lock, or failed";
	return NULL;
}

}								/* namespace */

/* Runs the checks; adds to *checks and *failures. */
void
test_chain(int gpus, bool quick, int *checks, int *failures)
{
	uint64_t	s = 0x5eedc4a1ULL,
				ws = 0x3e1d0c5ULL;	/* the windows' sizes: s's chains stay as they were */
	int			trials = quick ? 60 : 300;
	int			before = *failures;
	uint64_t	combos = 0,
				from_levels = 0,
				two_parts = 0;

	for (int trial = 0; trial < trials; trial++)
	{
		int			nl = 2 + (int) (gh_splitmix64(&s) % 4);
		size_t		n = gh_splitmix64(&s) % 8 == 0 ? 0 : gh_splitmix64(&s) % 300;
		vector<uint64_t> okeys(2 * n);
		vector<uint8_t> ook(2 * n);
		vector<level_data> lv(nl);
		uint64_t	odom = 1 + gh_splitmix64(&s) % 60;
		/* a fifth of the chains have no NULL: valid arrays given as NULL */
		bool		all_valid = gh_splitmix64(&s) % 5 == 0;
		int			width = trial % 3 == 2 ? 8 : 4;

		for (size_t i = 0; i < 2 * n; i++)
		{
			okeys[i] = domain_key(&s, odom);
			ook[i] = all_valid || gh_splitmix64(&s) % 10 != 0;
		}
		for (int l = 0; l < nl; l++)
		{
			level_data &d = lv[l];
			size_t		rows = gh_splitmix64(&s) % 6 == 0 ? 0 : gh_splitmix64(&s) % 300;
			/* few distinct keys (duplicates ~3 deep) or many (sparse) */
			uint64_t	dom = gh_splitmix64(&s) % 2 ? 1 + rows / 3 : 1 + 2 * rows;
			vector<int> sources;

			d.kind = (gh_level_kind) (gh_splitmix64(&s) % 4);
			d.n_parts = 1;
			d.from_level[0] = -1;
			d.column[0] = (int) (gh_splitmix64(&s) % 2);
			for (int q = 0; q < l; q++)
				if (lv[q].kind == GH_LEVEL_INNER || lv[q].kind == GH_LEVEL_LEFT)
					sources.push_back(q);
			if (!sources.empty() && gh_splitmix64(&s) % 2)
			{
				d.from_level[0] = sources[gh_splitmix64(&s) % sources.size()];
				d.column[0] = (int) (gh_splitmix64(&s) % 2);
			}
			/* keys of the domain of whatever feeds this level, so some match */
			dom = std::max<uint64_t>(dom, d.from_level[0] < 0 ? odom : lv[d.from_level[0]].cdom);
			d.cdom = 1 + gh_splitmix64(&s) % 100;

			/*
			 * Every fourth chain: a level keyed by two sources (outer rows
			 * and a level, or two levels), its keys ORs of both domains'.
			 */
			uint64_t	dom2 = 0;

			if (trial % 4 == 3 && !sources.empty() && gh_splitmix64(&s) % 2)
			{
				int			from = sources[gh_splitmix64(&s) % sources.size()];

				if (from == d.from_level[0])
					from = -1;
				d.n_parts = 2;
				d.from_level[1] = from;
				d.column[1] = (int) (gh_splitmix64(&s) % 2);
				dom2 = from < 0 ? odom : lv[from].cdom;
			}
			for (size_t r = 0; r < rows; r++)
				d.keys.push_back(domain_key(&s, dom) | (dom2 ? domain_key(&s, dom2) : 0));
			for (size_t r = 0; r < 2 * rows; r++)
			{
				d.carried.push_back(domain_key(&s, d.cdom));
				d.carried_ok.push_back(all_valid || gh_splitmix64(&s) % 10 != 0);
			}
		}

		vector<combo> want = reference(lv, okeys, ook, n);

		combos += want.size();
		for (const level_data &d : lv)
		{
			from_levels += d.from_level[0] >= 0;
			two_parts += d.n_parts > 1;
		}
		vector<combo> got[2];
		flat		full[2];

		for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		{
			vector<gh_table *> tabs(nl, (gh_table *) NULL);
			vector<gh_chain_level> cl(nl);
			bool		ok = true;

			for (int l = 0; l < nl && ok; l++)
			{
				gh_build_options opt;

				gh_default_options(&opt);
				opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
				opt.scheme = (gh_scheme) (trial % GH_N_SCHEMES);	/* every scheme in turn */
				ok = gh_build(&opt, lv[l].keys.data(), NULL, width, lv[l].keys.size(), &tabs[l]) == GH_OK &&
					gh_set_carried(tabs[l], lv[l].carried.data(),
								   all_valid ? NULL : lv[l].carried_ok.data(), 2) == GH_OK;
				cl[l].table = tabs[l];
				cl[l].kind = lv[l].kind;
				cl[l].n_parts = lv[l].n_parts;
				for (int q = 0; q < lv[l].n_parts; q++)
				{
					cl[l].part[q].from_level = lv[l].from_level[q];
					cl[l].part[q].column = lv[l].column[q];
				}
			}
			(*checks)++;
			if (!ok)
			{
				(*failures)++;
				fprintf(stderr, "FAIL chain trial %d/%s: build: %s\n", trial,
						dev ? "gpu" : "host", gh_last_error());
			}
			uint64_t	cap = want.size() + 1,
						total = 0;
			vector<uint32_t> oo(cap),
						op(cap * nl);
			gh_status	st = ok ? gh_chain_probe(cl.data(), nl, okeys.data(), all_valid ? NULL : ook.data(),
												 2, n, oo.data(), op.data(), cap, &total) : GH_ERR_INVALID;

			(*checks)++;
			if (ok && st != GH_OK)
			{
				(*failures)++;
				fprintf(stderr, "FAIL chain trial %d/%s: %s\n", trial, dev ? "gpu" : "host",
						gh_last_error());
			}
			for (uint64_t j = 0; st == GH_OK && j < total; j++)
			{
				combo		c(1, oo[j]);

				for (int l = 0; l < nl; l++)
				{
					uint32_t	p = op[l * cap + j];

					const void *rows = gh_sorted_rowids(tabs[l]);

					c.push_back(p == GH_NO_ROW ? GH_NO_ROW : width == 4 ? ((const uint32_t *) rows)[p]
								: (uint32_t) ((const uint64_t *) rows)[p]);
				}
				got[dev].push_back(c);
			}
			/* the combinations come grouped by outer row */
			for (uint64_t j = 1; st == GH_OK && j < total; j++)
				if (oo[j] < oo[j - 1])
				{
					(*checks)++;
					(*failures)++;
					fprintf(stderr, "FAIL chain trial %d/%s: outer rows out of order\n", trial,
							dev ? "gpu" : "host");
					break;
				}
			std::sort(got[dev].begin(), got[dev].end());
			(*checks)++;
			if (st == GH_OK && got[dev] != want)
			{
				(*failures)++;
				fprintf(stderr, "FAIL chain trial %d/%s: %zu combinations, %zu expected (%d levels)\n",
						trial, dev ? "gpu" : "host", got[dev].size(), want.size(), nl);
			}

			if (st == GH_OK)
				append_combos(&full[dev], oo.data(), op.data(), cap, total, nl);

			/* the list read in windows, put together, is the list */
			if (st == GH_OK)
			{
				const uint8_t *valid = all_valid ? NULL : ook.data();
				flat		pieces;
				const char *why = read_windows(cl, okeys.data(), valid, n, total, &ws, &pieces);

				if (why == NULL && pieces != full[dev])
					why = "the windows put together differ from the list";
				if (why == NULL)
					why = edge_windows(cl, okeys.data(), valid, n, full[dev]);
				(*checks)++;
				if (why != NULL)
				{
					(*failures)++;
					fprintf(stderr, "FAIL chain trial %d/%s: %s (%s)\n", trial, dev ? "gpu" : "host",
							why, gh_last_error());
				}
			}

			/*
			 * Carried columns given in key-grouped order, to tables built
			 * with rowids that are not positions: the same list.
			 */
			if (st == GH_OK)
			{
				vector<gh_table *> ot(nl, (gh_table *) NULL);
				vector<gh_chain_level> ocl = cl;
				const uint64_t off = width == 4 ? 1000 : 1ULL << 40;
				bool		ook2 = true;
				uint64_t	t3 = 0;
				flat		same;

				for (int l = 0; l < nl && ook2; l++)
				{
					size_t		rows = lv[l].keys.size();
					vector<uint32_t> r4(rows);
					vector<uint64_t> r8(rows),
								ck(2 * rows);
					vector<uint8_t> cv(2 * rows);
					gh_build_options opt;

					for (size_t r = 0; r < rows; r++)
					{
						r4[r] = (uint32_t) (r + off);
						r8[r] = r + off;
					}
					gh_default_options(&opt);
					opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
					opt.scheme = (gh_scheme) (trial % GH_N_SCHEMES);
					ook2 = gh_build(&opt, lv[l].keys.data(),
									width == 4 ? (const void *) r4.data() : (const void *) r8.data(),
									width, rows, &ot[l]) == GH_OK;
					const void *sr = ook2 ? gh_sorted_rowids(ot[l]) : NULL;

					ook2 = ook2 && (rows == 0 || sr != NULL);
					for (size_t p = 0; p < rows && ook2; p++)
					{
						uint64_t	r = (width == 4 ? ((const uint32_t *) sr)[p]
										 : ((const uint64_t *) sr)[p]) - off;

						for (int c = 0; c < 2; c++)
						{
							ck[c * rows + p] = lv[l].carried[c * rows + r];
							cv[c * rows + p] = lv[l].carried_ok[c * rows + r];
						}
					}
					ook2 = ook2 && gh_set_carried_ordered(ot[l], ck.data(),
														  all_valid ? NULL : cv.data(), 2) == GH_OK;
					ocl[l].table = ot[l];
				}
				ook2 = ook2 && gh_chain_probe(ocl.data(), nl, okeys.data(), all_valid ? NULL : ook.data(),
											  2, n, oo.data(), op.data(), cap, &t3) == GH_OK;
				if (ook2)
					append_combos(&same, oo.data(), op.data(), cap, t3, nl);
				(*checks)++;
				if (!ook2 || same != full[dev])
				{
					(*failures)++;
					fprintf(stderr, "FAIL chain trial %d/%s: carried columns in key-grouped order: %s\n",
							trial, dev ? "gpu" : "host", ook2 ? "another list" : gh_last_error());
				}
				for (gh_table *t : ot)
					gh_free(t);
			}

			/* the same probe on lanes, from several threads at once */
			if (st == GH_OK)
			{
				const char *why = lanes_check(cl, okeys.data(), all_valid ? NULL : ook.data(), n,
											  full[dev]);

				(*checks)++;
				if (why != NULL)
				{
					(*failures)++;
					fprintf(stderr, "FAIL chain trial %d/%s: %s (%s)\n", trial, dev ? "gpu" : "host",
							why, gh_last_error());
				}
			}

			/* one short of the answer: nothing written, the total told */
			if (st == GH_OK && total > 0)
			{
				uint64_t	t2 = 0;

				(*checks)++;
				if (gh_chain_probe(cl.data(), nl, okeys.data(), all_valid ? NULL : ook.data(), 2, n,
								   oo.data(), op.data(), total - 1, &t2) != GH_ERR_OUTPUT_FULL || t2 != total)
				{
					(*failures)++;
					fprintf(stderr, "FAIL chain trial %d/%s: no GH_ERR_OUTPUT_FULL below capacity\n",
							trial, dev ? "gpu" : "host");
				}
			}
			for (gh_table *t : tabs)
				gh_free(t);
		}
		/* both devices write the same list, in the same order */
		if (gpus > 0)
		{
			(*checks)++;
			if (full[0] != full[1])
			{
				(*failures)++;
				fprintf(stderr, "FAIL chain trial %d: the GPU's list differs from the host twin's\n",
						trial);
			}
		}
	}
	/* carried columns by rowid need rowid = position: refused, the old ones kept */
	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
	{
		uint64_t	k[3] = {5, 6, 7},
					c1[3] = {50, 60, 70},
					c2[3] = {1, 2, 3};
		uint32_t	rid[3] = {10, 11, 12};
		gh_build_options opt;
		gh_table   *t = NULL,
				   *u = NULL;

		gh_default_options(&opt);
		opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
		(*checks)++;
		if (gh_build(&opt, k, rid, 4, 3, &t) != GH_OK || gh_build(&opt, k, NULL, 4, 3, &u) != GH_OK ||
			gh_set_carried(t, c1, NULL, 1) != GH_ERR_INVALID || t->n_carried != 0 ||
			gh_set_carried(u, c1, NULL, 1) != GH_OK || gh_set_carried(u, c2, NULL, 0) != GH_OK ||
			u->n_carried != 0 || gh_set_carried(u, c1, NULL, 1) != GH_OK || u->n_carried != 1)
		{
			(*failures)++;
			fprintf(stderr, "FAIL chain/%s: gh_set_carried's checks (%s)\n", dev ? "gpu" : "host",
					gh_last_error());
		}

		/*
		 * In key-grouped order, any rowids do; refused (no keys), the old
		 * columns are kept; the table's memory counts them.
		 */
		uint8_t		v1[3] = {1, 0, 1};
		gh_table_info i0,
					i1;

		gh_table_get_info(t, &i0);
		(*checks)++;
		if (gh_set_carried_ordered(t, c1, v1, 1) != GH_OK || t->n_carried != 1 ||
			gh_set_carried_ordered(t, NULL, NULL, 1) != GH_ERR_INVALID || t->n_carried != 1)
		{
			(*failures)++;
			fprintf(stderr, "FAIL chain/%s: gh_set_carried_ordered's checks (%s)\n",
					dev ? "gpu" : "host", gh_last_error());
		}
		gh_table_get_info(t, &i1);
		(*checks)++;
		if ((dev ? i1.device_bytes - i0.device_bytes : i1.host_bytes - i0.host_bytes) != 3 * 9)
		{
			(*failures)++;
			fprintf(stderr, "FAIL chain/%s: carried columns take %zu bytes more, not 27\n",
					dev ? "gpu" : "host",
					dev ? i1.device_bytes - i0.device_bytes : i1.host_bytes - i0.host_bytes);
		}
		gh_free(t);
		gh_free(u);
	}
	printf("chains: %d random chains of 2-5 levels, %llu combinations, %llu levels keyed by an "
		   "earlier one, %llu by two sources, read whole and by windows%s: %s\n", trials,
		   (unsigned long long) combos, (unsigned long long) from_levels,
		   (unsigned long long) two_parts,
		   gpus > 0 ? " (GPU and host twin)" : " (host twin)",
		   *failures == before ? "ok" : "FAILED");
	printf("chains on lanes: %llu probes, %d threads at once, %llu lanes too small asked again: %s\n",
		   (unsigned long long) lane_probes, LANE_THREADS, (unsigned long long) lane_shorts,
		   gpus > 0 ? "each equal to the probe under the lock" :
		   "none (no GPU: the host twin's tables have no lanes, checked)");
}
