/*
 * table.cpp
 *		The C interface: argument checks, dispatch to the host twin or the
 *		GPU, statistics and error text.
 */
#include "scheme_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static __thread char gh_errbuf[512] = "no error";

gh_status
gh_error(gh_status status, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(gh_errbuf, sizeof(gh_errbuf), fmt, ap);
	va_end(ap);
	return status;
}

void
gh_set_last_error(const char *text)
{
	snprintf(gh_errbuf, sizeof(gh_errbuf), "%s", text);
}

const char *
gh_last_error(void)
{
	return gh_errbuf;
}

/* Set once, by any thread, never cleared: the process's contexts are not to be trusted. */
static volatile int gh_lost = 0;

int
gh_gpu_lost(void)
{
	return __atomic_load_n(&gh_lost, __ATOMIC_ACQUIRE);
}

void
gh_note_gpu_lost(void)
{
	__atomic_store_n(&gh_lost, 1, __ATOMIC_RELEASE);
}

int			gh_cuckoo_probe = GH_CUCKOO_PROBE_AUTO;

double
gh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void
gh_default_options(gh_build_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->device = GH_DEVICE_HOST;
	opt->scheme = GH_SCHEME_GPH;
	opt->seed = GH_DEFAULT_SEED;
	opt->load_factor = 0.5;
	opt->max_device_bytes = 0;
	opt->gpu_ordinal = -1;
}

const char *
gh_scheme_name(gh_scheme s)
{
	const gh_scheme_ops *ops = gh_scheme_ops_of(s);

	return ops ? ops->name : "?";
}

const char *
gh_device_name(gh_device d)
{
	return d == GH_DEVICE_GPU ? "gpu" : "host";
}

const char *
gh_status_name(gh_status s)
{
	switch (s)
	{
		case GH_OK:
			return "ok";
		case GH_ERR_INVALID:
			return "invalid argument";
		case GH_ERR_HOST_MEMORY:
			return "out of host memory";
		case GH_ERR_GPU_MEMORY:
			return "out of GPU memory";
		case GH_ERR_NO_GPU:
			return "no usable GPU";
		case GH_ERR_CUDA:
			return "CUDA error";
		case GH_ERR_BUILD_FAILED:
			return "build failed";
		case GH_ERR_OUTPUT_FULL:
			return "output capacity exceeded";
		case GH_ERR_TOO_LARGE:
			return "too many rows";
		case GH_ERR_CANCELLED:
			return "cancelled";
	}
	return "?";
}

/* A build's options as its scheme is about to be built: still wanted? */
static gh_status
check_build_run(const gh_build_options *opt)
{
	if (opt->load_factor < 0 || opt->load_factor > 0.95)
		return gh_error(GH_ERR_INVALID, "load factor %g outside (0, 0.95]", opt->load_factor);
	if (opt->cancelled && opt->cancelled(opt->cancel_arg))
		return gh_error(GH_ERR_CANCELLED, "build cancelled");
	return GH_OK;
}

/* An empty table of n rows for opt's scheme and device, not built yet. */
static gh_status
new_table(const gh_build_options *opt, size_t n, int rowid_width, gh_table **out)
{
	gh_table   *t;

	if (!gh_scheme_ops_of(opt->scheme))
		return gh_error(GH_ERR_INVALID, "unknown scheme %d", (int) opt->scheme);
	if ((uint64_t) n > GH_MAX_ROWS)
		return gh_error(GH_ERR_TOO_LARGE, "%zu rows exceed the limit of %llu", n,
						(unsigned long long) GH_MAX_ROWS);
	t = (gh_table *) calloc(1, sizeof(gh_table));
	if (!t)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory");
	t->device = opt->device;
	t->scheme = opt->scheme;
	t->n_rows = n;
	t->rowid_width = rowid_width;
	t->ordinal = -1;
	*out = t;
	return GH_OK;
}

gh_status
gh_build(const gh_build_options *opt, const uint64_t *keys, const void *rowids,
		 int rowid_width, size_t n, gh_table **out)
{
	gh_table   *t;
	gh_status	st;
	double		t0 = gh_now_ms();

	if (!out)
		return gh_error(GH_ERR_INVALID, "no output pointer");
	*out = NULL;
	if (!opt || (n > 0 && !keys) || (rowid_width != 4 && rowid_width != 8))
		return gh_error(GH_ERR_INVALID, "invalid build arguments");
	if ((st = check_build_run(opt)) != GH_OK || (st = new_table(opt, n, rowid_width, &t)) != GH_OK)
		return st;

	if (opt->device == GH_DEVICE_GPU)
		st = gh_gpu_build(t, opt, keys, rowids, n);
	else
		st = gh_host_build(t, opt, keys, rowids, n);
	if (st != GH_OK)
	{
		gh_free(t);
		return st;
	}
	t->stats.build_ms += gh_now_ms() - t0;
	*out = t;
	return GH_OK;
}

gh_status
gh_build_staged_begin(const gh_build_options *opt, size_t n, gh_table **out)
{
	gh_table   *t;
	gh_status	st;

	if (!out)
		return gh_error(GH_ERR_INVALID, "no output pointer");
	*out = NULL;
	if (!opt || opt->device != GH_DEVICE_GPU)
		return gh_error(GH_ERR_INVALID, "a staged build is a GPU build");
	if ((st = new_table(opt, n, 4, &t)) != GH_OK)
		return st;
	st = gh_gpu_stage_begin(t, opt);
	if (st != GH_OK)
	{
		gh_free(t);
		return st;
	}
	*out = t;
	return GH_OK;
}

gh_status
gh_build_staged_put(gh_table *t, size_t pos, const uint64_t *keys, size_t n)
{
	if (!t || !t->gpu || pos > t->n_rows || n > t->n_rows - pos || (n > 0 && !keys))
		return gh_error(GH_ERR_INVALID, "keys outside the staged build");
	return n > 0 ? gh_gpu_stage_put(t, pos, keys, n) : GH_OK;
}

gh_status
gh_build_staged_keys(gh_table *t, uint64_t *keys)
{
	if (!t || !t->gpu || (!keys && t->n_rows > 0))
		return gh_error(GH_ERR_INVALID, "no staged keys");
	return gh_gpu_stage_get(t, keys);
}

gh_status
gh_build_staged_finish(gh_table *t, const gh_build_options *opt)
{
	double		t0 = gh_now_ms();
	gh_status	st;

	if (!t || !t->gpu || !opt)
		return gh_error(GH_ERR_INVALID, "no staged build");
	if ((st = check_build_run(opt)) != GH_OK)
		return st;
	t->scheme = opt->scheme;
	st = gh_gpu_stage_build(t, opt);
	if (st == GH_OK)
		t->stats.build_ms += gh_now_ms() - t0;
	return st;
}

static gh_status
check_probe(gh_table *t, const uint64_t *keys, size_t n)
{
	if (!t || (n > 0 && !keys))
		return gh_error(GH_ERR_INVALID, "invalid probe arguments");
	if ((uint64_t) n > UINT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "a probe batch holds at most %u keys", UINT32_MAX);
	return GH_OK;
}

static gh_status
probe(gh_table *t, const uint64_t *keys, size_t n, gh_range *ranges,
	  uint32_t *counts, uint64_t *total)
{
	gh_status	st = check_probe(t, keys, n);
	double		t0 = gh_now_ms();

	if (st != GH_OK)
		return st;
	if (t->n_parts > 0)
		return gh_part_probe(t, keys, n, ranges, counts, total);
	if (t->device == GH_DEVICE_GPU)
		st = gh_gpu_probe_ranges(t, keys, n, ranges, counts, total);
	else
	{
		st = gh_host_probe_ranges(t, keys, n, ranges, counts, total);
		t->stats.probe_ms += gh_now_ms() - t0;
	}
	t->stats.probe_batches++;
	t->stats.probe_keys += n;
	return st;
}

gh_status
gh_probe_count(gh_table *t, const uint64_t *keys, size_t n, uint32_t *counts,
			   uint64_t *total)
{
	return probe(t, keys, n, NULL, counts, total);
}

gh_status
gh_probe_ranges(gh_table *t, const uint64_t *keys, size_t n, gh_range *ranges,
				uint64_t *total)
{
	return probe(t, keys, n, ranges, NULL, total);
}

gh_status
gh_probe_emit(gh_table *t, const uint64_t *keys, size_t n,
			  uint32_t *probe_index, void *rowids, uint64_t capacity,
			  uint64_t *total)
{
	gh_status	st = check_probe(t, keys, n);
	double		t0 = gh_now_ms();

	if (st != GH_OK)
		return st;
	if (!total)
		return gh_error(GH_ERR_INVALID, "emit needs a total pointer");
	if (t->n_parts > 0)
		return gh_part_emit(t, keys, n, probe_index, rowids, capacity, total);
	if (t->device == GH_DEVICE_GPU)
		st = gh_gpu_emit(t, keys, n, probe_index, rowids, capacity, total);
	else
	{
		st = gh_host_emit(t, keys, n, probe_index, rowids, capacity, total);
		t->stats.probe_ms += gh_now_ms() - t0;
	}
	t->stats.probe_batches++;
	t->stats.probe_keys += n;
	return st;
}

const void *
gh_sorted_rowids(gh_table *t)
{
	if (!t)
		return NULL;
	if (t->n_parts > 0)
		return gh_part_rowids(t);
	if (!t->h_rowids && t->device == GH_DEVICE_GPU && gh_gpu_fetch_rowids(t) != GH_OK)
		return NULL;
	return t->h_rowids;
}

void
gh_table_get_info(const gh_table *t, gh_table_info *info)
{
	if (t->n_parts > 0)
	{
		gh_part_info(t, info);
		return;
	}
	*info = t->stats;
	info->gpu_ordinal = t->ordinal;
	info->parts = 1;
	info->device = t->device;
	info->scheme = t->scheme;
	info->n_rows = t->n_rows;
	info->n_distinct = t->n_distinct;
	info->rowid_width = t->rowid_width;
	info->seed = t->seed;
	info->attempts = t->attempts;
	info->rounds = t->rounds;
	info->slots = t->n_slots;
	info->cells = t->n_cells;
	info->host_bytes = t->host_bytes;
}

gh_status
gh_validate(gh_table *t)
{
	if (!t)
		return gh_error(GH_ERR_INVALID, "no table");
	if (t->n_parts > 0)
		return gh_part_validate(t);
	if (t->device == GH_DEVICE_GPU)
		return gh_gpu_validate(t);
	return gh_validate_host(t);
}

void
gh_free(gh_table *t)
{
	if (!t)
		return;
	if (t->n_parts > 0)
		gh_part_free(t);
	if (t->gpu)
		gh_gpu_free(t);
	gh_host_free(t);
	free(t);
}

uint64_t
gh_digest_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = (const unsigned char *) p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t
gh_layout_digest(gh_table *t)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	const gh_scheme_ops *ops = gh_scheme_ops_of(t->scheme);
	gh_array	a[GH_MAX_ARRAYS];

	if (!ops->layout_fixed || t->n_parts > 0)
		return 0;
	if (t->device == GH_DEVICE_GPU)
		return gh_gpu_layout_digest(t);
	for (int i = 0, n = ops->arrays(t, a); i < n; i++)
		h = gh_digest_bytes(h, a[i].p, a[i].bytes);
	return h;
}

gh_status
gh_replicate(const gh_table *t, int ordinal, size_t max_device_bytes, gh_table **out)
{
	gh_table   *c;
	gh_status	st;
	double		t0 = gh_now_ms();

	if (!out)
		return gh_error(GH_ERR_INVALID, "no output pointer");
	*out = NULL;
	if (!t || t->device != GH_DEVICE_GPU || t->n_parts > 0 || ordinal < 0)
		return gh_error(GH_ERR_INVALID, "only a single GPU table can be copied to a GPU");
	c = (gh_table *) calloc(1, sizeof(gh_table));
	if (!c)
		return gh_error(GH_ERR_HOST_MEMORY, "out of host memory");
	st = gh_gpu_replicate(t, ordinal, max_device_bytes, c);
	if (st != GH_OK)
	{
		gh_free(c);
		return st;
	}
	c->stats.build_ms = gh_now_ms() - t0;
	*out = c;
	return GH_OK;
}
