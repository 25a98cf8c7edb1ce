/*
 * core_test.cpp
 *		Randomized property tests of the join hash tables (cuda/), without
 *		PostgreSQL.  Every case builds each scheme on each available device,
 *		validates the placement invariants, and checks counts, ranges and
 *		emitted pairs against a simple reference (sort + binary search).  When
 *		a GPU is present, the GPU and the host twin must also agree exactly:
 *		same counts, same emitted sequence, same deterministic layout.
 *
 *		usage: core_test [--quick] [--require-gpu] [--host-only] [--agg-only] [--verbose]
 *		       core_test --print-golden (prints the golden fingerprints, below)
 *		       core_test --count-gpus   (prints the number of usable GPUs)
 */
#include "gpuhash_table.h"
#include "table_internal.h"
#include "dycuckoo.h"

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

using std::string;
using std::vector;

/* core_chain.cpp */
void		test_chain(int gpus, bool quick, int *checks, int *failures);
/* core_page.cpp */
void		test_page(int gpus, bool quick, int *checks, int *failures);
/* core_agg.cpp */
void		test_agg(int gpus, bool quick, int *checks, int *failures);
/* core_agg_join.cpp */
void		test_agg_join(int gpus, bool quick, int *checks, int *failures);
/* core_agg_set.cpp */
void		test_agg_set(int gpus, bool quick, int *checks, int *failures);
/* core_page.cpp: the dimension's rows from pages (core_page_dim.cpp) */
void		test_page_dim(int gpus, bool quick, int *checks, int *failures);

static int	failures = 0;
static int	checks = 0;
static bool verbose = false;

#define CHECK(cond, ...) \
	do { \
		checks++; \
		if (!(cond)) { \
			failures++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
		} \
	} while (0)

struct rng
{
	uint64_t	s;
	explicit	rng(uint64_t seed) : s(seed) {}
	uint64_t	next()
	{
		return gh_splitmix64(&s);
	}
	uint64_t	below(uint64_t n)
	{
		return n ? next() % n : 0;
	}
	double		unit()
	{
		return (next() >> 11) * (1.0 / 9007199254740992.0);
	}
};

/* Inner rows and probe keys of one case. */
struct dataset
{
	string		name;
	vector<uint64_t> keys;
	vector<uint64_t> rowids;	/* empty: rowid = position */
	int			width = 4;
	vector<uint64_t> probes;
	double		load_factor = 0.5;
};

/* The reference: rows sorted by (key, position), binary search per probe. */
struct reference
{
	vector<std::pair<uint64_t, uint64_t>> rows; /* (key, rowid) */

	explicit	reference(const dataset &d)
	{
		rows.resize(d.keys.size());
		vector<size_t> ord(d.keys.size());

		for (size_t i = 0; i < ord.size(); i++)
			ord[i] = i;
		std::stable_sort(ord.begin(), ord.end(),
						 [&](size_t a, size_t b) { return d.keys[a] < d.keys[b]; });
		for (size_t i = 0; i < ord.size(); i++)
			rows[i] = {d.keys[ord[i]], d.rowids.empty() ? ord[i] : d.rowids[ord[i]]};
	}
	std::pair<size_t, size_t> range(uint64_t k) const
	{
		auto		lo = std::lower_bound(rows.begin(), rows.end(), std::make_pair(k, (uint64_t) 0));
		size_t		b = lo - rows.begin(),
					e = b;

		while (e < rows.size() && rows[e].first == k)
			e++;
		return {b, e};
	}
	size_t		distinct() const
	{
		size_t		u = 0;

		for (size_t i = 0; i < rows.size(); i++)
			if (i == 0 || rows[i].first != rows[i - 1].first)
				u++;
		return u;
	}
};

/* What one (scheme, device) run produced, for cross-device agreement. */
struct outcome
{
	bool		ok = false;
	vector<uint32_t> counts;
	vector<uint32_t> idx;
	vector<uint64_t> rows;
	uint64_t	layout = 0;
	int			rounds = 0;
	int			attempts = 0;
};

static uint64_t
rowid_at(const void *p, int width, size_t i)
{
	return width == 4 ? ((const uint32_t *) p)[i] : ((const uint64_t *) p)[i];
}

/*
 * How a case's table is made: one table; partitioned over `parts` parts
 * (part p on GPU p % gpus, or on the host); or built on GPU 0 and copied
 * to GPU `copy_to`, the copy then tested alone.
 */
struct table_form
{
	int			parts = 0;
	int			gpus = 0;
	int			copy_to = -1;
};

static outcome
run_case(const dataset &d, const reference &ref, gh_scheme scheme, gh_device dev,
		 table_form form = table_form())
{
	outcome		o;
	gh_build_options opt;
	gh_table   *t = NULL;
	string		tag = d.name + "/" + gh_scheme_name(scheme) + "/" + gh_device_name(dev);

	if (form.parts > 0)
		tag += "/" + std::to_string(form.parts) + " parts";
	if (form.copy_to >= 0)
		tag += "/copied to GPU " + std::to_string(form.copy_to);

	gh_default_options(&opt);
	opt.device = dev;
	opt.scheme = scheme;
	opt.load_factor = d.load_factor;

	vector<uint32_t> r32;
	const void *rowids = NULL;

	if (!d.rowids.empty())
	{
		if (d.width == 4)
		{
			r32.assign(d.rowids.begin(), d.rowids.end());
			rowids = r32.data();
		}
		else
			rowids = d.rowids.data();
	}
	gh_status	s;

	if (form.parts > 0)
	{
		int			ordinals[GH_MAX_PARTS];

		/* its rowids are positions, 4 bytes wide: cases without rowids only */
		for (int p = 0; p < form.parts; p++)
			ordinals[p] = form.gpus > 0 ? p % form.gpus : -1;
		s = gh_build_partitioned(&opt, ordinals, form.parts, d.keys.data(), d.keys.size(), &t);
	}
	else
		s = gh_build(&opt, d.keys.data(), rowids, d.width, d.keys.size(), &t);
	CHECK(s == GH_OK, "%s: build: %s", tag.c_str(), gh_last_error());
	if (s != GH_OK)
		return o;
	if (form.copy_to >= 0)
	{
		gh_table   *c = NULL;

		s = gh_replicate(t, form.copy_to, 0, &c);
		gh_free(t);
		t = c;
		CHECK(s == GH_OK, "%s: copy: %s", tag.c_str(), gh_last_error());
		if (s != GH_OK)
			return o;
	}

	gh_table_info info;

	gh_table_get_info(t, &info);
	CHECK(info.n_distinct == ref.distinct(), "%s: %llu distinct, want %zu", tag.c_str(),
		  (unsigned long long) info.n_distinct, ref.distinct());
	CHECK(info.parts == (form.parts > 0 ? form.parts : 1) &&
		  info.gpu_ordinal == (form.parts > 0 || dev == GH_DEVICE_HOST ? -1 :
							   form.copy_to >= 0 ? form.copy_to : 0),
		  "%s: %d parts on GPU %d", tag.c_str(), info.parts, info.gpu_ordinal);
	s = gh_validate(t);
	CHECK(s == GH_OK, "%s: validate: %s", tag.c_str(), gh_last_error());
	if (verbose)
		printf("  %-40s rows %llu distinct %llu slots %llu attempts %d rounds %d\n", tag.c_str(),
			   (unsigned long long) info.n_rows, (unsigned long long) info.n_distinct,
			   (unsigned long long) info.slots, info.attempts, info.rounds);
	o.rounds = info.rounds;
	o.attempts = info.attempts;
	o.layout = gh_layout_digest(t);

	size_t		np = d.probes.size();
	uint64_t	want_total = 0;
	vector<std::pair<size_t, size_t>> want(np);

	for (size_t i = 0; i < np; i++)
	{
		want[i] = ref.range(d.probes[i]);
		want_total += want[i].second - want[i].first;
	}

	/* counts */
	uint64_t	total = 0;

	o.counts.assign(np, 7);
	s = gh_probe_count(t, d.probes.data(), np, o.counts.data(), &total);
	CHECK(s == GH_OK, "%s: count: %s", tag.c_str(), gh_last_error());
	CHECK(total == want_total, "%s: count total %llu, want %llu", tag.c_str(),
		  (unsigned long long) total, (unsigned long long) want_total);
	size_t		bad = 0;

	for (size_t i = 0; i < np; i++)
		bad += o.counts[i] != want[i].second - want[i].first;
	CHECK(bad == 0, "%s: %zu probe counts differ", tag.c_str(), bad);

	/* ranges index the key-grouped rowid array */
	vector<gh_range> rg(np);

	s = gh_probe_ranges(t, d.probes.data(), np, rg.data(), &total);
	CHECK(s == GH_OK && total == want_total, "%s: ranges: %s", tag.c_str(), gh_last_error());
	const void *sorted = gh_sorted_rowids(t);

	CHECK(sorted != NULL || d.keys.empty(), "%s: no sorted rowids: %s", tag.c_str(), gh_last_error());
	bad = 0;
	for (size_t i = 0; i < np && sorted; i++)
	{
		if (rg[i].count != want[i].second - want[i].first)
		{
			bad++;
			continue;
		}
		for (uint32_t j = 0; j < rg[i].count; j++)
			bad += rowid_at(sorted, d.width, rg[i].offset + j) != ref.rows[want[i].first + j].second;
	}
	CHECK(bad == 0, "%s: %zu range mismatches", tag.c_str(), bad);

	/* emit: exact capacity works, one less is refused with the total */
	if (want_total > 0)
	{
		s = gh_probe_emit(t, d.probes.data(), np, NULL, NULL, want_total - 1, &total);
		CHECK(s == GH_ERR_OUTPUT_FULL && total == want_total, "%s: emit over capacity not refused",
			  tag.c_str());
	}
	o.idx.assign(want_total, 0);
	vector<uint64_t> out64(want_total);
	vector<uint32_t> out32(want_total);

	s = gh_probe_emit(t, d.probes.data(), np, o.idx.data(),
					  d.width == 4 ? (void *) out32.data() : (void *) out64.data(), want_total, &total);
	CHECK(s == GH_OK && total == want_total, "%s: emit: %s", tag.c_str(), gh_last_error());
	o.rows.resize(want_total);
	for (size_t i = 0; i < want_total; i++)
		o.rows[i] = d.width == 4 ? out32[i] : out64[i];

	/* as a multiset: sort both pair lists */
	vector<std::pair<uint32_t, uint64_t>> got(want_total),
				exp;

	exp.reserve(want_total);
	for (size_t i = 0; i < want_total; i++)
		got[i] = {o.idx[i], o.rows[i]};
	for (size_t i = 0; i < np; i++)
		for (size_t j = want[i].first; j < want[i].second; j++)
			exp.push_back({(uint32_t) i, ref.rows[j].second});
	std::sort(got.begin(), got.end());
	std::sort(exp.begin(), exp.end());
	CHECK(got == exp, "%s: emitted pairs differ from the reference", tag.c_str());

	gh_free(t);
	o.ok = true;
	return o;
}

/* ------------------------------------------------------------ data sets */

static vector<uint64_t>
distinct_random(rng &r, size_t n)
{
	vector<uint64_t> k(n);

	for (auto &x : k)
		x = r.next();
	std::sort(k.begin(), k.end());
	k.erase(std::unique(k.begin(), k.end()), k.end());
	while (k.size() < n)
		k.push_back(r.next());	/* astronomically rare; keep n */
	for (size_t i = n; i > 1; i--)
		std::swap(k[i - 1], k[r.below(i)]);
	return k;
}

/* Probes: fraction `hit` drawn uniformly from the distinct inner keys, the
 * rest from keys not in the inner side. */
static vector<uint64_t>
make_probes(rng &r, const vector<uint64_t> &inner, size_t n, double hit)
{
	vector<uint64_t> sorted(inner);

	std::sort(sorted.begin(), sorted.end());
	sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
	vector<uint64_t> p(n);

	for (auto &x : p)
	{
		if (!sorted.empty() && r.unit() < hit)
			x = sorted[r.below(sorted.size())];
		else
		{
			do
				x = r.next() ^ (r.below(4) == 0 ? 0 : sorted.empty() ? 0 : sorted[r.below(sorted.size())] & 0xffffffff00000000ULL);
			while (std::binary_search(sorted.begin(), sorted.end(), x));
		}
	}
	return p;
}

/*
 * Probes of distinct keys counted by the table, against sorted (the keys
 * it was built over): how many counts are wrong, or SIZE_MAX when the
 * probe itself failed.
 */
static size_t
wrong_counts(gh_table *t, const vector<uint64_t> &probes, const vector<uint64_t> &sorted)
{
	vector<uint32_t> counts(probes.size());
	uint64_t	total = 0;
	size_t		bad = 0;

	if (gh_probe_count(t, probes.data(), probes.size(), counts.data(), &total) != GH_OK)
		return SIZE_MAX;
	for (size_t i = 0; i < probes.size(); i++)
		bad += counts[i] != (std::binary_search(sorted.begin(), sorted.end(), probes[i]) ? 1U : 0U);
	return bad;
}

/*
 * A table of k built with opt (4-byte rowids), validated, and its counts
 * of probes checked against sorted; what names the case in failures.
 * NULL when the build failed.  *ms: the build's time.
 */
static gh_table *
build_checked(const gh_build_options &opt, const vector<uint64_t> &k, const vector<uint64_t> &probes,
			  const vector<uint64_t> &sorted, const char *what, gh_table_info *info, double *ms)
{
	gh_table   *t = NULL;
	double		t0 = gh_now_ms();
	gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

	*ms = gh_now_ms() - t0;
	CHECK(s == GH_OK, "%s/%s: build: %s", what, gh_device_name(opt.device), gh_last_error());
	if (s != GH_OK)
		return NULL;
	gh_table_get_info(t, info);
	s = gh_validate(t);
	CHECK(s == GH_OK, "%s/%s: validate: %s", what, gh_device_name(opt.device), gh_last_error());

	size_t		bad = wrong_counts(t, probes, sorted);

	CHECK(bad == 0, "%s/%s: %zu wrong counts", what, gh_device_name(opt.device), bad);
	return t;
}

static void
add(vector<dataset> &v, const string &name, vector<uint64_t> keys, rng &r,
	size_t n_probes, double hit)
{
	dataset		d;
	char		buf[32];

	snprintf(buf, sizeof(buf), "@%d%%", (int) (hit * 100));
	d.name = name + buf;
	d.keys = std::move(keys);
	d.probes = make_probes(r, d.keys, n_probes, hit);
	v.push_back(std::move(d));
}

static vector<uint64_t>
zipf_keys(rng &r, size_t n, size_t values, double s)
{
	vector<double> cdf(values);
	double		sum = 0;

	for (size_t i = 0; i < values; i++)
		cdf[i] = (sum += 1.0 / pow((double) (i + 1), s));
	vector<uint64_t> ids = distinct_random(r, values);
	vector<uint64_t> k(n);

	for (auto &x : k)
		x = ids[std::lower_bound(cdf.begin(), cdf.end(), r.unit() * sum) - cdf.begin()];
	return k;
}

static vector<dataset>
make_cases(bool quick)
{
	vector<dataset> v;
	rng			r(20261122);
	size_t		big = quick ? 100000 : 1000000;
	double		hits[] = {0.0, 0.5, 1.0};

	for (size_t n : {(size_t) 0, (size_t) 1, (size_t) 2, (size_t) 1000, big})
		for (double h : hits)
			add(v, "uniform" + std::to_string(n), distinct_random(r, n), r, n ? 2 * n : 1000, h);

	/* a join with duplicates: n rows, n/8 distinct keys */
	{
		vector<uint64_t> d = distinct_random(r, big / 8),
					k(big);

		for (auto &x : k)
			x = d[r.below(d.size())];
		add(v, "dup8", k, r, 2 * big, 0.5);
	}
	/* one key repeated n times; few probes, or the output explodes */
	add(v, "onekey", vector<uint64_t>(big, 0x5555aaaa12345678ULL), r, 10, 0.5);
	add(v, "onekey-zero", vector<uint64_t>(big, 0), r, 4, 0.5);

	/* Zipf-skewed inner keys, uniform and skewed probes */
	{
		vector<uint64_t> k = zipf_keys(r, big, big, 1.0);

		add(v, "zipf1.0", k, r, big / 10, 0.5);
		dataset		d;

		d.name = "zipf1.0/hotprobes";
		d.keys = k;
		for (int i = 0; i < 200; i++)
			d.probes.push_back(k[r.below(k.size())]);
		v.push_back(std::move(d));
		add(v, "zipf2.0", zipf_keys(r, big, big, 2.0), r, 2000, 0.5);
	}

	/* adversarial key sets */
	{
		vector<uint64_t> k;
		size_t		n = big / 2;

		for (uint64_t step : {1ULL, 3ULL, 1ULL << 32, 1ULL << 40, 0x9e3779b97f4a7c15ULL})
		{
			k.clear();
			for (size_t i = 0; i < n; i++)
				k.push_back(0x1000 + i * step);
			add(v, "progression" + std::to_string(step), k, r, n, 0.5);
		}
		k.clear();
		for (size_t i = 0; i < n; i++)
			k.push_back(0xdeadbeef00000000ULL | (uint64_t) i);
		add(v, "equal-high-bits", k, r, n, 0.5);
		k.clear();
		for (size_t i = 0; i < n; i++)
			k.push_back(((uint64_t) i << 32) | 0x7777ULL);
		add(v, "equal-low-bits", k, r, n, 0.5);
		k.clear();
		for (size_t i = 0; i < n; i++)
			k.push_back((uint64_t) (-(int64_t) i * 7));	/* negatives around 0 */
		add(v, "negatives", k, r, n, 0.5);
	}

	/*
	 * Keys crafted (through the inverse of fmix64 and the default seed) to
	 * crowd GPH region 0 with ~2.5 times its share: placement must fail
	 * there until the buckets have grown, so the build needs several
	 * attempts, on both devices alike.
	 */
	{
		size_t		n = big / 10,
					extra = 1500;
		vector<uint64_t> k = distinct_random(r, n);
		gh_gph_view g;
		uint64_t	seed_key = gh_gph_key_seed(GH_DEFAULT_SEED);

		memset(&g, 0, sizeof(g));
		gh_gph_geometry(n + extra, 0.5, 0, &g);

		uint64_t	hi_end = ((uint64_t) 1 << g.cr_log2 << 32) / g.n_cells;

		for (size_t i = 0; i < extra; i++)
			k.push_back(gh_fmix64_inv((r.below(hi_end) << 32) | (r.next() & 0xffffffffULL)) ^ seed_key);
		add(v, "gph-dense-region", k, r, n, 0.5);
	}

	/* the full 64-bit domain's corners, with duplicates */
	{
		vector<uint64_t> special = {0, ~0ULL, 1ULL << 63, (1ULL << 63) - 1, 1, ~0ULL - 1,
		(uint64_t) -2, 0x8000000000000001ULL};
		vector<uint64_t> k;

		for (int rep = 0; rep < 3; rep++)
			k.insert(k.end(), special.begin(), special.end());
		for (int i = 0; i < 1000; i++)
			k.push_back(r.next());
		dataset		d;

		d.name = "corners";
		d.keys = k;
		d.probes = special;
		for (int i = 0; i < 1000; i++)
			d.probes.push_back(r.below(2) ? k[r.below(k.size())] : r.next());
		d.probes.push_back(2);
		d.probes.push_back(~0ULL - 2);
		v.push_back(d);

		/* 64-bit explicit rowids */
		d.name = "corners/rowid64";
		d.width = 8;
		d.rowids.clear();
		for (size_t i = 0; i < d.keys.size(); i++)
			d.rowids.push_back(r.next());
		v.push_back(d);

		/* 32-bit explicit rowids, reversed */
		d.name = "corners/rowid32";
		d.width = 4;
		d.rowids.clear();
		for (size_t i = 0; i < d.keys.size(); i++)
			d.rowids.push_back(d.keys.size() - i);
		v.push_back(d);
	}

	/* high load factors: harder placement, still nothing dropped */
	for (double lf : {0.7, 0.9})
	{
		dataset		d;

		d.name = "load" + std::to_string((int) (lf * 100));
		d.keys = distinct_random(r, big / 4);
		d.probes = make_probes(r, d.keys, big / 4, 0.5);
		d.load_factor = lf;
		v.push_back(d);
	}
	return v;
}

/*
 * GPH at load factors 0.5, 0.7, 0.9 over n random distinct keys: builds
 * (perhaps after retries), validates, answers probes; with a GPU, the GPU
 * table must equal the host twin's bit for bit.
 */
static void
test_gph_loads(size_t n, int gpus)
{
	rng			r(4242);
	vector<uint64_t> k = distinct_random(r, n);
	vector<uint64_t> probes = make_probes(r, k, 20000, 0.5);
	vector<uint64_t> sorted(k);

	std::sort(sorted.begin(), sorted.end());
	for (double lf : {0.5, 0.7, 0.9})
	{
		uint64_t	digest[2] = {0, 0};
		int			attempts[2] = {0, 0},
					rounds[2] = {0, 0};

		for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		{
			gh_build_options opt;
			gh_table_info info;
			double		ms;
			char		what[32];

			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.load_factor = lf;
			snprintf(what, sizeof(what), "gph load %.1f", lf);

			gh_table   *t = build_checked(opt, k, probes, sorted, what, &info, &ms);

			if (t == NULL)
				continue;
			digest[dev] = gh_layout_digest(t);
			attempts[dev] = info.attempts;
			rounds[dev] = info.rounds;
			printf("gph load %.1f on %zu keys (%-4s)     attempts %d, largest byte %3d, %.1f%% slots used, %7.1f ms\n",
				   lf, n, gh_device_name(opt.device), info.attempts, info.rounds - 1,
				   100.0 * (double) info.n_distinct / (double) info.slots, ms);
			gh_free(t);
		}
		if (gpus > 0)
			CHECK(digest[0] == digest[1] && attempts[0] == attempts[1] && rounds[0] == rounds[1],
				  "gph load %.1f: GPU and host layouts differ", lf);
	}
}

/*
 * More than R*M = 32 keys in one GPH cell fit under no seed (cells depend
 * on seed_key only): the build must fail cleanly on both devices, not
 * hang or drop keys; FKS builds the same keys.
 */
static void
test_gph_oversize(int gpus)
{
	rng			r(77);
	vector<uint64_t> k = distinct_random(r, 1000);
	uint64_t	seed_key = gh_gph_key_seed(GH_DEFAULT_SEED);

	for (uint64_t i = 0; i < 40; i++)
		k.push_back(gh_fmix64_inv((0x12345678ULL << 32) | (i * 0x9e3779b9ULL & 0xffffffffULL)) ^ seed_key);
	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
	{
		gh_build_options opt;
		gh_table   *t = NULL;

		gh_default_options(&opt);
		opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
		gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

		CHECK(s == GH_ERR_BUILD_FAILED && t == NULL, "gph oversize cell/%s: got %s",
			  gh_device_name(opt.device), gh_status_name(s));
		opt.scheme = GH_SCHEME_FKS;
		s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);
		CHECK(s == GH_OK && gh_validate(t) == GH_OK, "gph oversize cell/%s: FKS fallback: %s",
			  gh_device_name(opt.device), gh_last_error());
		gh_free(t);
	}
	printf("gph oversize cell (40 crafted keys): build refused cleanly, FKS builds them\n");
}

/*
 * Cuckoo at fills 0.85 (the default), 0.9 and 0.95 over n random distinct
 * keys: builds, validates, answers probes on every device.
 */
static void
test_cuckoo_loads(size_t n, int gpus)
{
	rng			r(4343);
	vector<uint64_t> k = distinct_random(r, n);
	vector<uint64_t> probes = make_probes(r, k, 20000, 0.5);
	vector<uint64_t> sorted(k);

	std::sort(sorted.begin(), sorted.end());
	for (double lf : {0.5, 0.9, 0.95})
		for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		{
			gh_build_options opt;
			gh_table_info info;
			double		ms;
			char		what[32];

			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.scheme = GH_SCHEME_CUCKOO;
			opt.load_factor = lf;
			snprintf(what, sizeof(what), "cuckoo load %.2f", lf);

			gh_table   *t = build_checked(opt, k, probes, sorted, what, &info, &ms);

			if (t == NULL)
				continue;
			printf("cuckoo fill %.2f on %zu keys (%-4s)  attempts %d, stash %u, %.1f%% slots used, %5.1f B/key, %7.1f ms\n",
				   gh_cuckoo_fill(lf), n, gh_device_name(opt.device), info.attempts, t->cuckoo.n_stash,
				   100.0 * (double) info.n_distinct / (double) info.slots,
				   (double) info.slots * sizeof(gh_slot) / (double) info.n_distinct, ms);
			gh_free(t);
		}
}

/*
 * Keys crafted (by search, under the default seed's first attempt) so that
 * `crowd` of them have all their buckets among the first two: 2 * B fit
 * there, the rest must go to the stash (the lookup finds them there after
 * full buckets only), and beyond the stash's size the attempt fails and
 * the build redraws.  Both devices, validated and probed.
 */
static void
test_cuckoo_stash(int gpus)
{
	for (int crowd : {2 * GH_CUCKOO_B + 5, 2 * GH_CUCKOO_B + GH_CUCKOO_STASH + 8})
	{
		rng			r(31 + crowd);
		vector<uint64_t> k = distinct_random(r, 1000);
		gh_cuckoo_view v;
		uint64_t	st = gh_attempt_seed(GH_DEFAULT_SEED, 0);

		memset(&v, 0, sizeof(v));
		gh_cuckoo_geometry(k.size() + crowd, 0.5, 0, &v);
		for (int j = 0; j < GH_CUCKOO_H; j++)
			v.h[j] = gh_uhash_draw(&st);
		for (int found = 0; found < crowd;)
		{
			uint64_t	x = r.next();
			bool		in = true;

			for (int j = 0; j < GH_CUCKOO_H; j++)
				in = in && gh_cuckoo_bucket(v, j, x) < 2;
			if (in)
			{
				k.push_back(x);
				found++;
			}
		}
		vector<uint64_t> probes(k);

		for (int i = 0; i < 1000; i++)
			probes.push_back(r.next());

		vector<uint64_t> sorted(k);

		std::sort(sorted.begin(), sorted.end());
		for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		{
			gh_build_options opt;
			gh_table_info info;
			double		ms;
			char		what[32];

			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.scheme = GH_SCHEME_CUCKOO;
			snprintf(what, sizeof(what), "cuckoo stash %d", crowd);

			gh_table   *t = build_checked(opt, k, probes, sorted, what, &info, &ms);

			if (t == NULL)
				continue;
			if (crowd <= 2 * GH_CUCKOO_B + GH_CUCKOO_STASH)
				CHECK(info.attempts == 1 && t->cuckoo.n_stash >= (uint32_t) (crowd - 2 * GH_CUCKOO_B),
					  "cuckoo stash %d/%s: attempts %d, stash %u", crowd, gh_device_name(opt.device),
					  info.attempts, t->cuckoo.n_stash);
			else
				CHECK(info.attempts >= 2, "cuckoo stash %d/%s: an overfull stash did not redraw",
					  crowd, gh_device_name(opt.device));
			printf("cuckoo stash: %d keys crowding 2 buckets (%-4s): attempts %d, stash %u\n", crowd,
				   gh_device_name(opt.device), info.attempts, t->cuckoo.n_stash);
			gh_free(t);
		}
	}
}

/*
 * HashGraph's buckets: over n random keys (B = n) the bucket sizes are
 * about Poisson(1), so the longest (rounds) stays small; keys crafted
 * (through the inverse of fmix64 and the default seed) into the first and
 * the last bucket make two long buckets: up to GH_HG_MAX_BUCKET they build
 * in one attempt and answer every probe, beyond it the build is refused
 * cleanly (GH_ERR_BUILD_FAILED: a probe would scan them all).  With a GPU,
 * its table equals the host twin's bit for bit.
 */
static void
test_hashgraph_buckets(size_t n, int gpus)
{
	rng			r(2019);

	for (int crowd = 0; crowd < 3; crowd++)
	{
		size_t		extra = crowd == 0 ? 0 : crowd == 1 ? GH_HG_MAX_BUCKET / 2 : 1000;
		vector<uint64_t> k = distinct_random(r, crowd ? 5000 : n);
		uint64_t	seed_key = gh_hg_key_seed(GH_DEFAULT_SEED);
		uint64_t	width = ~0ULL / (k.size() + 2 * extra);	/* hk below it: bucket 0 */

		for (size_t i = 0; i < extra; i++)
		{
			k.push_back(gh_fmix64_inv(r.below(width)) ^ seed_key);
			k.push_back(gh_fmix64_inv(~0ULL - r.below(width)) ^ seed_key);
		}

		vector<uint64_t> probes = make_probes(r, k, crowd ? 20000 : 2 * n, 0.5);
		vector<uint64_t> sorted(k);
		uint64_t	digest[2] = {0, 0};
		int			rounds[2] = {0, 0};

		std::sort(sorted.begin(), sorted.end());
		for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		{
			gh_build_options opt;
			gh_table   *t = NULL;
			gh_table_info info;
			const char *what = crowd ? "hashgraph crowded buckets" : "hashgraph buckets";

			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.scheme = GH_SCHEME_HASHGRAPH;

			gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

			if (crowd == 2)
			{
				CHECK(s == GH_ERR_BUILD_FAILED && t == NULL, "%s/%s: %zu keys in a bucket built (%s)",
					  what, gh_device_name(opt.device), extra, gh_status_name(s));
				if (dev == 0 && s == GH_ERR_BUILD_FAILED)
					printf("%s on %zu keys (%-4s): %zu in one bucket refused, as expected (%s)\n", what, k.size(),
						   gh_device_name(opt.device), extra, gh_last_error());
				gh_free(t);
				continue;
			}
			CHECK(s == GH_OK, "%s/%s: build: %s", what, gh_device_name(opt.device), gh_last_error());
			if (s != GH_OK)
				continue;
			gh_table_get_info(t, &info);
			s = gh_validate(t);
			CHECK(s == GH_OK, "%s/%s: validate: %s", what, gh_device_name(opt.device), gh_last_error());
			CHECK(info.attempts == 1 && info.cells == info.n_distinct && info.slots == info.n_distinct,
				  "%s/%s: attempts %d, %llu buckets, %llu slots for %llu keys", what,
				  gh_device_name(opt.device), info.attempts, (unsigned long long) info.cells,
				  (unsigned long long) info.slots, (unsigned long long) info.n_distinct);
			if (crowd)
				CHECK(info.rounds >= (int) extra, "%s/%s: longest bucket %d, want >= %zu", what,
					  gh_device_name(opt.device), info.rounds, extra);
			else
				CHECK(info.rounds >= 2 && info.rounds <= 16, "%s/%s: longest bucket %d of Poisson(1)",
					  what, gh_device_name(opt.device), info.rounds);

			size_t		bad = wrong_counts(t, probes, sorted);

			CHECK(bad == 0, "%s/%s: %zu wrong counts", what, gh_device_name(opt.device), bad);

			/* empty buckets: about 1/e of them with one bucket per key */
			size_t		empty = 0;

			if (dev == 0)
			{
				for (uint64_t b = 0; b < info.cells; b++)
					empty += t->hg.offs[b] == t->hg.offs[b + 1];
			}
			digest[dev] = gh_layout_digest(t);
			rounds[dev] = info.rounds;
			if (dev == 0)
				printf("%s on %llu keys (%-4s): longest bucket %d, %.1f%% buckets empty, %.1f B/key\n",
					   what, (unsigned long long) info.n_distinct, gh_device_name(opt.device), info.rounds,
					   100.0 * (double) empty / (double) info.cells,
					   (double) (info.slots * sizeof(gh_slot) + (info.cells + 1) * 4) / (double) info.n_distinct);
			gh_free(t);
		}
		if (gpus > 0 && crowd < 2)
			CHECK(digest[0] == digest[1] && rounds[0] == rounds[1], "hashgraph buckets%s: GPU and host layouts differ",
				  crowd ? " (crowded)" : "");
	}
}

/* Says stop at its stop_at'th question. */
struct cancel_counter
{
	int			asked = 0;
	int			stop_at = 0;
};

static int
cancel_at_count(void *arg)
{
	cancel_counter *c = (cancel_counter *) arg;

	return ++c->asked >= c->stop_at;
}

/*
 * A build whose cancel callback says stop ends with GH_ERR_CANCELLED and no
 * table, at every point where it asks (the host twin asks all along, a GPU
 * build once before it starts); one that is never told to stop builds.
 */
static void
test_build_cancel(int gpus)
{
	rng			r(11);
	vector<uint64_t> k(300000);
	gh_scheme	schemes[] = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR, GH_SCHEME_HASHGRAPH, GH_SCHEME_DYCUCKOO, GH_SCHEME_CUCKOO};
	int			stopped = 0;

	for (auto &x : k)
		x = r.next() % 200000;
	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		for (gh_scheme sc : schemes)
		{
			gh_build_options opt;
			cancel_counter never;
			gh_table   *t = NULL;

			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.scheme = sc;
			opt.cancelled = cancel_at_count;
			opt.cancel_arg = &never;
			never.stop_at = INT32_MAX;
			gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

			CHECK(s == GH_OK && gh_validate(t) == GH_OK, "cancel/%s/%s: uncancelled build: %s",
				  gh_device_name(opt.device), gh_scheme_name(sc), gh_last_error());
			gh_free(t);
			CHECK(never.asked >= 1, "cancel/%s/%s: never asked", gh_device_name(opt.device),
				  gh_scheme_name(sc));
			for (int at = 1; at <= never.asked; at++)
			{
				cancel_counter c;

				c.stop_at = at;
				opt.cancel_arg = &c;
				t = NULL;
				s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);
				CHECK(s == GH_ERR_CANCELLED && t == NULL && c.asked == at,
					  "cancel/%s/%s: stop at question %d of %d: got %s after %d",
					  gh_device_name(opt.device), gh_scheme_name(sc), at, never.asked,
					  gh_status_name(s), c.asked);
				stopped++;
			}
		}
	printf("build cancel: %d builds stopped at every question asked, none left a table\n", stopped);
}

/* A GPU build over a memory budget must fail cleanly, and the GPU then
 * keep working. */
static void
test_gpu_budget(void)
{
	gh_build_options opt;
	gh_table   *t = NULL;
	vector<uint64_t> k(100000);
	rng			r(7);

	for (auto &x : k)
		x = r.next();
	gh_default_options(&opt);
	opt.device = GH_DEVICE_GPU;
	opt.max_device_bytes = 1 << 20;
	gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

	CHECK(s == GH_ERR_GPU_MEMORY && t == NULL, "budget: got %s", gh_status_name(s));
	opt.max_device_bytes = 0;
	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);
	CHECK(s == GH_OK, "after budget failure: %s", gh_last_error());
	gh_free(t);
}

/*
 * Golden layouts: fixed tables per scheme whose fingerprint (layout digest,
 * or the slots of a host linear table; the key-grouped rowids; seed,
 * attempts, rounds, slots, cells) was recorded with the code before the
 * scheme refactor (commit a989252).  A change here is a change of the built
 * tables, which must stay bit-identical across refactors; the GPU must match
 * too (linear's GPU layout depends on insertion order: host only).
 */
struct golden_case
{
	const char *name;
	gh_scheme	scheme;
	uint64_t	want;
};

static const golden_case golden[] = {
	{"set0", GH_SCHEME_GPH, 0x9f2ae6e9875ae5b6ULL},	/* attempts 1 */
	{"set0", GH_SCHEME_FKS, 0xcb8a3fdd8913f35bULL},	/* attempts 1 */
	{"set0", GH_SCHEME_LINEAR, 0x51d12f194e06e214ULL},	/* attempts 1 */
	{"set1", GH_SCHEME_GPH, 0x26c216c5995798d8ULL},	/* attempts 1 */
	{"set1", GH_SCHEME_FKS, 0x21626d0ccc00931eULL},	/* attempts 1 */
	{"set1", GH_SCHEME_LINEAR, 0xcf5e9c71571a81cfULL},	/* attempts 1 */
	{"set2", GH_SCHEME_GPH, 0x271319dcd03000edULL},	/* attempts 5 */
	{"set2", GH_SCHEME_FKS, 0x9cd2fabab71e08c2ULL},	/* attempts 1 */
	{"set2", GH_SCHEME_LINEAR, 0xf6e40733251cbe04ULL},	/* attempts 1 */
	{"set3", GH_SCHEME_GPH, 0x6114316d1cd4b3e6ULL},	/* attempts 1 */
	{"set3", GH_SCHEME_FKS, 0xe2fb883993868f78ULL},	/* attempts 1 */
	{"set3", GH_SCHEME_LINEAR, 0x8a4c2e910c46d2e3ULL},	/* attempts 1 */
	{"set4", GH_SCHEME_GPH, 0xdc9f74568da3f1acULL},	/* attempts 1 */
	{"set4", GH_SCHEME_FKS, 0xe0204d70260b361bULL},	/* attempts 1 */
	{"set4", GH_SCHEME_LINEAR, 0xc9a0470e5442a494ULL},	/* attempts 1 */
	{"set5", GH_SCHEME_GPH, 0xd3a22befea01b2a5ULL},	/* attempts 1 */
	{"set5", GH_SCHEME_FKS, 0x58a06a3560351fbfULL},	/* attempts 2 */
	{"set5", GH_SCHEME_LINEAR, 0xfbe12b35c521d881ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_GPH, 0x350e28dc2c1c8569ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_FKS, 0x07243564eecb5ac9ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_LINEAR, 0xec327586a06b7b65ULL},	/* attempts 1 */
	/* HashGraph: recorded when it came (host twin; its layout is fixed) */
	{"set0", GH_SCHEME_HASHGRAPH, 0x09c69b4e3f7edccbULL},	/* attempts 1 */
	{"set1", GH_SCHEME_HASHGRAPH, 0xf9468a21bc806d28ULL},	/* attempts 1 */
	{"set2", GH_SCHEME_HASHGRAPH, 0xd3016e61aa1d80e2ULL},	/* attempts 1 */
	{"set3", GH_SCHEME_HASHGRAPH, 0x142eebd8ae4ecad3ULL},	/* attempts 1 */
	{"set4", GH_SCHEME_HASHGRAPH, 0x2373420052dd73daULL},	/* attempts 1 */
	{"set5", GH_SCHEME_HASHGRAPH, 0xf14dc4b738515208ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_HASHGRAPH, 0xd787c688e53c4dbeULL},	/* attempts 1 */
	/* DyCuckoo's host twin, recorded when the scheme was added */
	{"set0", GH_SCHEME_DYCUCKOO, 0x0be7d9b067371b14ULL},	/* attempts 1 */
	{"set1", GH_SCHEME_DYCUCKOO, 0xbe2e96c8ae476d5aULL},	/* attempts 1 */
	{"set2", GH_SCHEME_DYCUCKOO, 0xc562e9277f547307ULL},	/* attempts 1 */
	{"set3", GH_SCHEME_DYCUCKOO, 0x9809e9ece9597777ULL},	/* attempts 1 */
	{"set4", GH_SCHEME_DYCUCKOO, 0xa1959d21fd0f6ea7ULL},	/* attempts 1 */
	{"set5", GH_SCHEME_DYCUCKOO, 0xa349360b64ab48c4ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_DYCUCKOO, 0x0e76ef75c87c9c47ULL},	/* attempts 1 */
	{"set0", GH_SCHEME_CUCKOO, 0xf94bf4053a486876ULL},	/* attempts 1 */
	{"set1", GH_SCHEME_CUCKOO, 0xbb902efb6c81ef6bULL},	/* attempts 1 */
	{"set2", GH_SCHEME_CUCKOO, 0x2b5d5fec613b241eULL},	/* attempts 1 */
	{"set3", GH_SCHEME_CUCKOO, 0x436a7aa51eb42fd4ULL},	/* attempts 1 */
	{"set4", GH_SCHEME_CUCKOO, 0x30963ce637642b3cULL},	/* attempts 1 */
	{"set5", GH_SCHEME_CUCKOO, 0x6a3a85024da3ab05ULL},	/* attempts 1 */
	{"set6", GH_SCHEME_CUCKOO, 0x24da34bebfbfda82ULL},	/* attempts 1 */
};

static void
golden_keys(int which, vector<uint64_t> &k, vector<uint64_t> &rows, int *width,
			double *lf, uint64_t *seed)
{
	rng			r(9000 + which);

	k.clear();
	rows.clear();
	*width = 4;
	*lf = 0.5;
	*seed = GH_DEFAULT_SEED;
	switch (which)
	{
		case 0:					/* duplicates */
			for (int i = 0; i < 30000; i++)
				k.push_back(r.next() % 8000);
			break;
		case 1:					/* distinct, 64-bit rowids, high load */
			for (int i = 0; i < 40000; i++)
			{
				k.push_back(r.next());
				rows.push_back(r.next());
			}
			*width = 8;
			*lf = 0.9;
			break;
		case 2:					/* GPH region 0 crowded: several attempts */
			{
				gh_gph_view g;
				uint64_t	seed_key = gh_gph_key_seed(GH_DEFAULT_SEED);

				k = distinct_random(r, 8000);
				memset(&g, 0, sizeof(g));
				gh_gph_geometry(9500, 0.5, 0, &g);
				uint64_t	hi_end = ((uint64_t) 1 << g.cr_log2 << 32) / g.n_cells;

				for (int i = 0; i < 1500; i++)
					k.push_back(gh_fmix64_inv((r.below(hi_end) << 32) | (r.next() & 0xffffffffULL)) ^ seed_key);
			}
			break;
		case 3:					/* tiny */
			k = {5, 5, 9};
			*lf = 0.7;
			break;
		case 4:					/* negatives, another seed */
			for (int i = 0; i < 20000; i++)
				k.push_back((uint64_t) (-(int64_t) i * 7));
			*seed = 12345;
			*lf = 0.6;
			break;
		case 5:					/* FKS redraws level 1 once under this seed */
			{
				uint64_t	st = 1;

				for (int i = 0; i < 16; i++)
					k.push_back(gh_splitmix64(&st));
				*seed = 4907;
			}
			break;
		default:				/* empty */
			break;
	}
}

#define GOLDEN_SETS 7

static uint64_t
golden_fingerprint(gh_table *t)
{
	gh_table_info info;
	uint64_t	h = 0xcbf29ce484222325ULL;
	uint64_t	layout = gh_layout_digest(t);
	const void *rows = gh_sorted_rowids(t);

	gh_table_get_info(t, &info);
	if ((t->scheme == GH_SCHEME_LINEAR || t->scheme == GH_SCHEME_DYCUCKOO || t->scheme == GH_SCHEME_CUCKOO) && t->device == GH_DEVICE_HOST)
		layout = gh_digest_bytes(layout, t->h_slots, t->n_slots * sizeof(gh_slot));
	h = gh_digest_bytes(h, &layout, 8);
	if (rows)
		h = gh_digest_bytes(h, rows, info.n_rows * info.rowid_width);
	uint64_t	f[] = {info.seed, (uint64_t) info.attempts, (uint64_t) info.rounds, info.slots,
	info.cells, info.n_distinct};

	return gh_digest_bytes(h, f, sizeof(f));
}

/* A golden set's keys and build options (golden_keys), in one value. */
struct golden_set
{
	vector<uint64_t> k,
				rows;
	int			width;
	double		lf;
	uint64_t	seed;
};

static golden_set
golden_set_of(int which)
{
	golden_set	g;

	golden_keys(which, g.k, g.rows, &g.width, &g.lf, &g.seed);
	return g;
}

/* The fingerprint recorded for a set and scheme, or NULL. */
static const golden_case *
golden_recorded(int set, gh_scheme sc)
{
	for (const golden_case &c : golden)
		if (c.scheme == sc && c.name == "set" + std::to_string(set))
			return &c;
	return NULL;
}

static void
test_golden(int gpus, bool print)
{
	gh_scheme	schemes[] = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR, GH_SCHEME_HASHGRAPH, GH_SCHEME_DYCUCKOO, GH_SCHEME_CUCKOO};
	int			i = 0,
				matched = 0;

	for (int set = 0; set < GOLDEN_SETS; set++)
	{
		golden_set	gs = golden_set_of(set);
		const vector<uint64_t> &k = gs.k,
				   &rows = gs.rows;
		int			width = gs.width;
		double		lf = gs.lf;
		uint64_t	seed = gs.seed;

		for (gh_scheme sc : schemes)
		{
			for (int dev = 0; dev < (gpus > 0 && sc != GH_SCHEME_LINEAR && sc != GH_SCHEME_DYCUCKOO && sc != GH_SCHEME_CUCKOO ? 2 : 1); dev++)
			{
				gh_build_options opt;
				gh_table   *t = NULL;
				vector<uint32_t> r32(rows.begin(), rows.end());
				const void *rp = rows.empty() ? NULL : width == 4 ? (const void *) r32.data() : rows.data();

				gh_default_options(&opt);
				opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
				opt.scheme = sc;
				opt.seed = seed;
				opt.load_factor = lf;
				gh_status	s = gh_build(&opt, k.data(), rp, width, k.size(), &t);

				CHECK(s == GH_OK, "golden %d/%s/%s: build: %s", set, gh_scheme_name(sc),
					  gh_device_name(opt.device), gh_last_error());
				if (s != GH_OK)
					continue;
				uint64_t	fp = golden_fingerprint(t);

				if (print && dev == 0)
					printf("\t{\"set%d\", GH_SCHEME_%s, 0x%016llxULL},\t/* attempts %d */\n", set,
						   sc == GH_SCHEME_GPH ? "GPH" : sc == GH_SCHEME_FKS ? "FKS" :
						   sc == GH_SCHEME_HASHGRAPH ? "HASHGRAPH" : sc == GH_SCHEME_DYCUCKOO ? "DYCUCKOO" :
						   sc == GH_SCHEME_CUCKOO ? "CUCKOO" : "LINEAR",
						   (unsigned long long) fp, t->attempts);
				else
				{
					const golden_case *g = golden_recorded(set, sc);

					CHECK(g && g->want == fp, "golden set%d/%s/%s: fingerprint 0x%016llx, recorded 0x%016llx",
						  set, gh_scheme_name(sc), gh_device_name(opt.device),
						  (unsigned long long) fp, (unsigned long long) (g ? g->want : 0));
					matched += g && g->want == fp;
				}
				gh_free(t);
				i++;
			}
		}
	}
	if (!print)
		printf("golden layouts: %d of %d tables equal the fingerprints recorded before the scheme refactor\n",
			   matched, i);
}

/*
 * A staged build (gh_build_staged_*, the GPU service's path): keys sent in
 * pieces build the very table gh_build builds from them at once (the golden
 * fingerprints); before the build they come back unchanged; a budget too
 * small for them is a clean GH_ERR_GPU_MEMORY; keys outside the build and a
 * host build are refused.  Without a GPU a staged build is refused.
 */
static void
test_staged_build(int gpus)
{
	gh_build_options opt;
	gh_table   *t = NULL;
	int			n = 0,
				matched = 0;

	gh_default_options(&opt);
	opt.device = GH_DEVICE_HOST;
	CHECK(gh_build_staged_begin(&opt, 10, &t) == GH_ERR_INVALID && t == NULL,
		  "staged: a host twin build is refused");
	opt.device = GH_DEVICE_GPU;
	if (gpus == 0)
	{
		CHECK(gh_build_staged_begin(&opt, 10, &t) != GH_OK && t == NULL,
			  "staged: no GPU, no staged build");
		return;
	}
	for (int set = 0; set < GOLDEN_SETS; set++)
	{
		golden_set	gs = golden_set_of(set);
		const vector<uint64_t> &k = gs.k;

		if (!gs.rows.empty())
			continue;			/* staged rowids are positions */
		for (gh_scheme sc : {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_HASHGRAPH})
		{
			size_t		piece = k.size() / 3 + 1;
			vector<uint64_t> back(k.size());
			const golden_case *g = golden_recorded(set, sc);
			gh_status	s;

			opt.scheme = sc;
			opt.seed = gs.seed;
			opt.load_factor = gs.lf;
			s = gh_build_staged_begin(&opt, k.size(), &t);
			CHECK(s == GH_OK, "staged set%d/%s: begin: %s", set, gh_scheme_name(sc), gh_last_error());
			if (s != GH_OK)
				continue;
			for (size_t pos = 0; pos < k.size() && s == GH_OK; pos += piece)
				s = gh_build_staged_put(t, pos, k.data() + pos, std::min(piece, k.size() - pos));
			CHECK(s == GH_OK, "staged set%d/%s: put: %s", set, gh_scheme_name(sc), gh_last_error());
			CHECK(gh_build_staged_keys(t, back.data()) == GH_OK && back == k,
				  "staged set%d/%s: the keys come back as sent", set, gh_scheme_name(sc));
			s = gh_build_staged_finish(t, &opt);
			CHECK(s == GH_OK, "staged set%d/%s: build: %s", set, gh_scheme_name(sc), gh_last_error());
			if (s == GH_OK)
			{
				uint64_t	fp = golden_fingerprint(t);

				CHECK(g && g->want == fp, "staged set%d/%s: fingerprint 0x%016llx, gh_build's 0x%016llx",
					  set, gh_scheme_name(sc), (unsigned long long) fp,
					  (unsigned long long) (g ? g->want : 0));
				matched += g && g->want == fp;
			}
			gh_free(t);
			t = NULL;
			n++;
		}
	}
	printf("staged builds: %d of %d tables equal gh_build's\n", matched, n);

	{
		uint64_t	keys[5] = {1, 2, 3, 4, 5};

		opt.scheme = GH_SCHEME_GPH;
		opt.seed = GH_DEFAULT_SEED;
		opt.load_factor = 0.5;
		CHECK(gh_build_staged_begin(&opt, 10, &t) == GH_OK, "staged: begin: %s", gh_last_error());
		CHECK(gh_build_staged_put(t, 8, keys, 5) == GH_ERR_INVALID, "staged: keys past the end are refused");
		gh_free(t);				/* before its build: the keys' memory goes */
		t = NULL;
		opt.max_device_bytes = 64;
		CHECK(gh_build_staged_begin(&opt, 1000, &t) == GH_ERR_GPU_MEMORY && t == NULL,
			  "staged: keys over the budget: %s", gh_last_error());
	}
}

/*
 * DyCuckoo's incremental path (cuda/dycuckoo.h): distinct keys (with
 * 1-3 rows each, the corners of the key domain among them) arrive in 8
 * chunks; the table is built from the first chunk's rows (or from none)
 * and the other chunks are inserted one by one, the table growing a
 * subtable at a time.  Then every key is found with its range, misses
 * miss, the table validates, and a chunk holding a key already in the
 * table is refused with the table unchanged.  Variant 2 caps evictions at
 * 1, so inserts run out and the table upsizes beyond its fill bound,
 * losing nothing.  With a GPU, the GPU table answers as the host twin's.
 */
static void
test_dyc_incremental(int gpus, bool quick)
{
	const int	chunks = 8;
	size_t		n = quick ? 100000 : 400000;
	rng			r(31337);
	vector<uint64_t> k = distinct_random(r, n);
	vector<uint64_t> probes = make_probes(r, k, n, 0.5);
	vector<uint64_t> sorted(k);

	k[0] = 0;
	k[n / 2] = ~0ULL;
	k[n - 1] = 1ULL << 63;
	sorted = k;
	std::sort(sorted.begin(), sorted.end());
	CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "dyc incremental: keys not distinct");

	vector<vector<uint64_t>> answers[2];	/* (offset << 32 | count) per key */

	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
		for (int variant = 0; variant < 3; variant++)
		{
			gh_build_options opt;
			gh_table   *t = NULL;
			string		tag = string("dyc incremental/") + (dev ? "gpu" : "host") + "/v" + std::to_string(variant);
			size_t		c0 = variant == 1 ? 0 : n / chunks;
			vector<uint64_t> rows0;
			vector<uint32_t> off(n),
						cnt(n);

			gh_dyc_max_evict = variant == 2 ? 1 : GH_DYC_MAX_EVICT;
			for (size_t i = 0; i < n; i++)
				cnt[i] = 1 + (uint32_t) (i % 3);
			for (size_t i = 0; i < c0; i++)
				for (uint32_t j = 0; j < cnt[i]; j++)
					rows0.push_back(k[i]);
			gh_default_options(&opt);
			opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
			opt.scheme = GH_SCHEME_DYCUCKOO;
			gh_status	s = gh_build(&opt, rows0.data(), NULL, 4, rows0.size(), &t);

			CHECK(s == GH_OK, "%s: build: %s", tag.c_str(), gh_last_error());
			if (s != GH_OK)
				continue;

			/* the first chunk's ranges are the build's; the rest follow them */
			vector<gh_range> rg(n);
			uint64_t	total = 0,
						rows = rows0.size();

			gh_probe_ranges(t, k.data(), c0, rg.data(), &total);
			for (size_t i = 0; i < c0; i++)
				off[i] = rg[i].offset;
			for (size_t i = c0; i < n; i++)
			{
				off[i] = (uint32_t) rows;
				rows += cnt[i];
			}
			for (int c = c0 ? 1 : 0; c < chunks; c++)
			{
				size_t		lo = n * c / chunks,
							hi = n * (c + 1) / chunks;

				s = gh_dyc_insert(t, k.data() + lo, off.data() + lo, cnt.data() + lo, (uint32_t) (hi - lo), 0);
				CHECK(s == GH_OK, "%s: chunk %d: %s", tag.c_str(), c, gh_last_error());
			}
			gh_table_info info;

			gh_table_get_info(t, &info);
			CHECK(info.n_distinct == n, "%s: %llu distinct, want %zu", tag.c_str(),
				  (unsigned long long) info.n_distinct, n);
			CHECK((double) n <= GH_DYC_DEFAULT_FILL * (double) info.slots + 1e-9 || variant == 2,
				  "%s: fill %.3f above the bound", tag.c_str(), (double) n / (double) info.slots);
			t->n_rows = rows;	/* the ranges now tile [0, rows) */
			s = gh_validate(t);
			CHECK(s == GH_OK, "%s: validate: %s", tag.c_str(), gh_last_error());

			size_t		bad = 0;

			s = gh_probe_ranges(t, k.data(), n, rg.data(), &total);
			for (size_t i = 0; i < n; i++)
				bad += rg[i].offset != off[i] || rg[i].count != cnt[i];
			CHECK(s == GH_OK && bad == 0 && total == rows, "%s: %zu keys not found with their range",
				  tag.c_str(), bad);

			vector<uint32_t> pc(probes.size());

			gh_probe_count(t, probes.data(), probes.size(), pc.data(), &total);
			bad = 0;
			for (size_t i = 0; i < probes.size(); i++)
			{
				bool		in = std::binary_search(sorted.begin(), sorted.end(), probes[i]);

				bad += (pc[i] != 0) != in;
			}
			CHECK(bad == 0, "%s: %zu probes answered wrongly", tag.c_str(), bad);

			/* a chunk with one key present: refused, nothing changes */
			uint64_t	dup[2] = {k[n / 3], 0x0123456789abcdefULL};
			uint32_t	doff[2] = {(uint32_t) rows, (uint32_t) rows + 1},
						dcnt[2] = {1, 1};
			uint64_t	slots_before = info.slots;
			uint32_t	c1 = 7;

			if (!std::binary_search(sorted.begin(), sorted.end(), dup[1]))
			{
				s = gh_dyc_insert(t, dup, doff, dcnt, 2, 0);
				gh_table_get_info(t, &info);
				gh_probe_count(t, dup + 1, 1, &c1, &total);
				CHECK(s == GH_ERR_INVALID && info.n_distinct == n && info.slots == slots_before && c1 == 0,
					  "%s: a present key not refused cleanly (%s)", tag.c_str(), gh_status_name(s));
			}
			printf("dyc incremental (%-4s, %s): %zu keys in %d chunks, %d upsizes, %llu slots, fill %.2f: ok\n",
				   gh_device_name(opt.device),
				   variant == 0 ? "from chunk 0  " : variant == 1 ? "from empty    " : "evictions <= 1",
				   n, chunks, info.rounds - 1, (unsigned long long) info.slots,
				   (double) n / (double) info.slots);
			vector<uint64_t> ans(n);

			for (size_t i = 0; i < n; i++)
				ans[i] = (uint64_t) rg[i].offset << 32 | rg[i].count;
			answers[dev].push_back(ans);
			gh_free(t);
		}
	gh_dyc_max_evict = GH_DYC_MAX_EVICT;
	if (gpus > 0)
		CHECK(answers[0] == answers[1], "dyc incremental: GPU and host ranges differ");
}

/*
 * Static DyCuckoo builds with at most 4 evictions per insert at load 0.9:
 * inserts run out, attempts redraw seeds over a bigger table until one
 * holds every key (the host twin needs 3 here).
 */
static void
test_dyc_attempts(int gpus)
{
	rng			r(99);
	vector<uint64_t> k = distinct_random(r, 50000);

	gh_dyc_max_evict = 4;
	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
	{
		gh_build_options opt;
		gh_table   *t = NULL;
		gh_table_info info;

		gh_default_options(&opt);
		opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
		opt.scheme = GH_SCHEME_DYCUCKOO;
		opt.load_factor = 0.9;
		gh_status	s = gh_build(&opt, k.data(), NULL, 4, k.size(), &t);

		CHECK(s == GH_OK && gh_validate(t) == GH_OK, "dyc attempts/%s: %s", gh_device_name(opt.device),
			  gh_last_error());
		if (s != GH_OK)
			continue;
		gh_table_get_info(t, &info);
		CHECK(info.attempts > 1, "dyc attempts/%s: 4 evictions at most, yet one attempt",
			  gh_device_name(opt.device));
		printf("dyc attempts (%-4s): <= 4 evictions at load 0.9: %d attempts, fill %.2f, valid\n",
			   gh_device_name(opt.device), info.attempts, (double) info.n_distinct / (double) info.slots);
		gh_free(t);
	}
	gh_dyc_max_evict = GH_DYC_MAX_EVICT;
}

/*
 * A partitioned table: empty parts and an empty table work; it carries no
 * columns and no chain takes it (a chain's tables share one GPU).
 */
static void
test_partitioned_limits(int gpus)
{
	for (int dev = 0; dev < (gpus > 0 ? 2 : 1); dev++)
	{
		gh_build_options opt;
		int			ordinals[GH_MAX_PARTS] = {0, gpus > 1 ? 1 : 0, 0, 0};
		uint64_t	keys[3] = {5, 5, 9};
		uint64_t	probe[2] = {5, 7};
		gh_range	r[2];
		uint64_t	total = 0;
		gh_table   *t = NULL,
				   *e = NULL;
		const char *d = dev ? "gpu" : "host";

		gh_default_options(&opt);
		opt.device = dev ? GH_DEVICE_GPU : GH_DEVICE_HOST;
		CHECK(gh_build_partitioned(&opt, ordinals, 4, keys, 3, &t) == GH_OK &&
			  gh_validate(t) == GH_OK, "partitioned/%s: 3 rows in 4 parts: %s", d, gh_last_error());
		CHECK(gh_build_partitioned(&opt, ordinals, 2, NULL, 0, &e) == GH_OK &&
			  gh_probe_ranges(e, probe, 2, r, &total) == GH_OK && total == 0,
			  "partitioned/%s: empty: %s", d, gh_last_error());
		if (t)
		{
			const uint32_t *rows = (const uint32_t *) gh_sorted_rowids(t);
			gh_chain_level lv = {t, GH_LEVEL_INNER, 1, {{-1, 0}}};
			uint32_t	oo[4],
						op[4];

			CHECK(gh_probe_ranges(t, probe, 2, r, &total) == GH_OK && total == 2 && rows &&
				  r[0].count == 2 && r[1].count == 0 &&
				  rows[r[0].offset] + rows[r[0].offset + 1] == 1,
				  "partitioned/%s: key 5's rows", d);
			CHECK(gh_set_carried_ordered(t, keys, NULL, 1) == GH_ERR_INVALID,
				  "partitioned/%s: carried columns taken", d);
			CHECK(gh_chain_probe(&lv, 1, probe, NULL, 1, 2, oo, op, 4, &total) == GH_ERR_INVALID,
				  "partitioned/%s: a chain took it", d);
		}
		gh_free(t);
		gh_free(e);
	}
	CHECK(gh_replicate(NULL, 0, 0, NULL) == GH_ERR_INVALID, "replicate: no output pointer taken");
	printf("partitioned tables: empty parts, no carried columns, no chains: ok\n");
}

int
main(int argc, char **argv)
{
	bool		quick = false,
				require_gpu = false,
				host_only = false,
				agg_only = false;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--require-gpu"))
			require_gpu = true;
		else if (!strcmp(argv[i], "--host-only"))
			host_only = true;
		else if (!strcmp(argv[i], "--agg-only"))
			agg_only = true;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--print-golden"))
		{
			test_golden(0, true);
			return 0;
		}
		else if (!strcmp(argv[i], "--count-gpus"))
		{
			printf("%d\n", gh_gpu_count());
			return 0;
		}
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--require-gpu] [--host-only] [--agg-only] [--verbose]\n", argv[0]);
			return 2;
		}
	}

	int			gpus = host_only ? 0 : gh_gpu_count();

	if (gpus > 0)
	{
		gh_gpu_info gi;

		gh_gpu_get_info(0, &gi);
		printf("core_test: GPU 0 is %s (cc %d.%d): GPU and host twin both tested\n",
			   gi.name, gi.cc_major, gi.cc_minor);
	}
	else if (require_gpu)
	{
		fprintf(stderr, "core_test: --require-gpu given but no usable GPU\n");
		return 1;
	}
	else
		printf("core_test: NO GPU here (%s): host twin only; the GPU half of these tests runs on a "
			   "GPU machine (make test-core there; results in bench/RESULTS.md)\n",
			   host_only ? "--host-only" : gh_last_error());

	if (agg_only)
	{
		double		ta = gh_now_ms();

		test_agg(gpus, quick, &checks, &failures);
		test_agg_join(gpus, quick, &checks, &failures);
		test_agg_set(gpus, quick, &checks, &failures);
		test_page_dim(gpus, quick, &checks, &failures);
		printf("core_test --agg-only: %d checks, %d failures, %.1f s (%s)\n", checks, failures,
			   (gh_now_ms() - ta) / 1000.0, gpus > 0 ? "GPU + host twin" : "host twin only");
		return failures ? 1 : 0;
	}

	vector<dataset> cases = make_cases(quick);
	gh_scheme	schemes[] = {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR, GH_SCHEME_HASHGRAPH, GH_SCHEME_DYCUCKOO, GH_SCHEME_CUCKOO};
	double		t0 = gh_now_ms();

	for (const dataset &d : cases)
	{
		reference	ref(d);
		int			before = failures;
		double		tc = gh_now_ms();

		int			gph_attempts = 0;

		for (gh_scheme sc : schemes)
		{
			outcome		h = run_case(d, ref, sc, GH_DEVICE_HOST);

			if (sc == GH_SCHEME_GPH)
				gph_attempts = h.attempts;

			if (gpus > 0)
			{
				outcome		g = run_case(d, ref, sc, GH_DEVICE_GPU);
				string		tag = d.name + "/" + gh_scheme_name(sc);

				if (h.ok && g.ok)
				{
					CHECK(h.counts == g.counts, "%s: GPU and host counts differ", tag.c_str());
					CHECK(h.idx == g.idx && h.rows == g.rows, "%s: GPU and host emit differ", tag.c_str());
					CHECK(h.layout == g.layout && h.rounds == g.rounds && h.attempts == g.attempts,
						  "%s: GPU and host layouts differ (rounds %d/%d attempts %d/%d)",
						  tag.c_str(), g.rounds, h.rounds, g.attempts, h.attempts);
				}
			}
		}
		/* cuckoo's group probe, which the size rule keeps for tables of 768 MB and more */
		if (gpus > 0)
		{
			gh_cuckoo_probe = GH_CUCKOO_PROBE_GROUP;
			run_case(d, ref, GH_SCHEME_CUCKOO, GH_DEVICE_GPU);
			gh_cuckoo_probe = GH_CUCKOO_PROBE_AUTO;
		}
		/*
		 * Partitioned tables (and on a GPU, copies) answer as one table
		 * does.  A part is a table of its scheme like any other: three
		 * schemes on the smaller cases, GPH alone on those of 500 000 rows
		 * and more, which the run's time would otherwise go to.
		 */
		for (gh_scheme sc : {GH_SCHEME_GPH, GH_SCHEME_FKS, GH_SCHEME_LINEAR})
		{
			if (!d.rowids.empty() || (sc != GH_SCHEME_GPH && d.keys.size() >= 500000))
				break;
			for (int parts : {1, 2, 3})
			{
				table_form	f;

				f.parts = parts;
				run_case(d, ref, sc, GH_DEVICE_HOST, f);
				if (gpus > 0)
				{
					f.gpus = gpus;
					run_case(d, ref, sc, GH_DEVICE_GPU, f);
				}
			}
			if (gpus > 0)
			{
				table_form	f;

				f.copy_to = gpus - 1;
				run_case(d, ref, sc, GH_DEVICE_GPU, f);
			}
		}
		printf("%-32s rows %8zu probes %8zu  gph attempts %d %7.2f s  %s\n", d.name.c_str(), d.keys.size(),
			   d.probes.size(), gph_attempts, (gh_now_ms() - tc) / 1000.0, failures == before ? "ok" : "FAILED");
		fflush(stdout);
	}
	test_gph_loads(quick ? 100000 : 1000000, gpus);
	test_gph_oversize(gpus);
	test_hashgraph_buckets(quick ? 100000 : 1000000, gpus);
	test_cuckoo_loads(quick ? 100000 : 1000000, gpus);
	test_cuckoo_stash(gpus);
	if (gpus > 0)
	{
		printf("cuckoo stash again, the GPU probing by 4-lane groups:\n");
		gh_cuckoo_probe = GH_CUCKOO_PROBE_GROUP;
		test_cuckoo_stash(gpus);
		gh_cuckoo_probe = GH_CUCKOO_PROBE_AUTO;
	}
	test_golden(gpus, false);
	test_staged_build(gpus);
	test_build_cancel(gpus);
	test_dyc_incremental(gpus, quick);
	test_dyc_attempts(gpus);
	test_chain(gpus, quick, &checks, &failures);
	test_page(gpus, quick, &checks, &failures);
	test_agg(gpus, quick, &checks, &failures);
	test_agg_join(gpus, quick, &checks, &failures);
	test_agg_set(gpus, quick, &checks, &failures);
	test_partitioned_limits(gpus);
	if (gpus > 0)
		test_gpu_budget();

	printf("core_test: %d checks, %d failures, %.1f s (%s)\n", checks, failures,
		   (gh_now_ms() - t0) / 1000.0, gpus > 0 ? "GPU + host twin" : "host twin only");
	return failures ? 1 : 0;
}
