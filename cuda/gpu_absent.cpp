/*
 * gpu_absent.cpp
 *		The GPU entry points of a build made without nvcc (see the Makefile):
 *		it stands in for the .cu files, so the host twin, the extension and
 *		core_test link and run unchanged.  It finds no GPU, and every call
 *		that would need one fails with GH_ERR_NO_GPU and a gh_last_error()
 *		saying why: the build has no CUDA in it.
 *
 *		These are exactly the symbols the .cu files give the rest of the
 *		core (table_internal.h's "GPU side" and gpuhash_table.h's GPU calls);
 *		the scheme table's GPU entries are null here (scheme_ops.cpp).
 */
#include "table_internal.h"
#include "dycuckoo.h"
#include "page_internal.h"
#include "agg_internal.h"
#include "agg_set_internal.h"
#include "page_dim_internal.h"

#include <string.h>

#define NO_CUDA "built without CUDA: no GPU support"

static gh_status
no_gpu(void)
{
	return gh_error(GH_ERR_NO_GPU, NO_CUDA);
}

gh_status
gh_gpu_build(gh_table *, const gh_build_options *, const uint64_t *, const void *, size_t)
{
	return no_gpu();
}

/* No table can live on a GPU here, so the calls below are never reached on
 * a table; they fail cleanly if they are. */
gh_status
gh_gpu_probe_ranges(gh_table *, const uint64_t *, size_t, gh_range *, uint32_t *, uint64_t *)
{
	return no_gpu();
}

gh_status
gh_gpu_emit(gh_table *, const uint64_t *, size_t, uint32_t *, void *, uint64_t, uint64_t *)
{
	return no_gpu();
}

gh_status
gh_gpu_fetch_rowids(gh_table *)
{
	return no_gpu();
}

gh_status
gh_gpu_stage_begin(gh_table *, const gh_build_options *)
{
	return no_gpu();
}

gh_status
gh_gpu_stage_put(gh_table *, size_t, const uint64_t *, size_t)
{
	return no_gpu();
}

gh_status
gh_gpu_stage_get(gh_table *, uint64_t *)
{
	return no_gpu();
}

gh_status
gh_gpu_stage_build(gh_table *, const gh_build_options *)
{
	return no_gpu();
}

gh_status
gh_gpu_replicate(const gh_table *, int, size_t, gh_table *)
{
	return no_gpu();
}

gh_status
gh_gpu_validate(gh_table *)
{
	return no_gpu();
}

void
gh_gpu_free(gh_table *t)
{
	t->gpu = nullptr;
}

uint64_t
gh_gpu_layout_digest(gh_table *)
{
	return 0;
}

int
gh_gpu_count(void)
{
	no_gpu();
	return 0;
}

gh_status
gh_gpu_get_info(int, gh_gpu_info *info)
{
	memset(info, 0, sizeof(*info));
	return no_gpu();
}

void
gh_cuda_versions(int *driver, int *runtime)
{
	*driver = 0;
	*runtime = 0;
}

void
gh_gpu_trim(int)
{
}

gh_status
gh_gpu_inject_fault(int)
{
	return no_gpu();
}

gh_status
gh_host_register(void *, size_t)
{
	return no_gpu();
}

gh_status
gh_gpu_set_carried(gh_table *, const uint64_t *, const uint8_t *, int, bool)
{
	return no_gpu();
}

gh_status
gh_gpu_chain_probe(const gh_chain_level *, int, const uint64_t *, const uint8_t *, int, size_t,
				   uint64_t, bool, uint32_t *, uint32_t *, uint64_t, uint64_t *, uint64_t *, double *,
				   gh_page_lane *, bool *)
{
	return no_gpu();
}

gh_status
gh_gpu_chain_lane_take(gh_table *, int, int, size_t, bool, gh_page_lane **)
{
	return no_gpu();
}

gh_status
gh_gpu_dyc_insert(gh_table *, const uint64_t *, const uint32_t *, const uint32_t *, uint32_t, double)
{
	return no_gpu();
}

gh_status
gh_gpu_page_probe(gh_table *, const gh_page_scan *, const gh_page_ref *, uint32_t,
				  const uint8_t *, size_t, const uint16_t *, uint32_t, gh_page_match *, size_t,
				  size_t *, uint8_t *, gh_page_stats *)
{
	return no_gpu();
}

gh_status
gh_gpu_page_agg(int, const gh_page_scan *, const gh_agg_prog *, const gh_agg_dim *,
				const gh_page_ref *, uint32_t, const uint8_t *, size_t, const uint16_t *, uint32_t,
				uint8_t *, gh_agg_groups *, gh_agg_stats *, bool)
{
	return no_gpu();
}

gh_status
gh_gpu_agg_dim_upload(gh_agg_dim *, const gh_agg_inval *, const uint8_t *, uint64_t, size_t)
{
	return no_gpu();
}

void
gh_gpu_agg_dim_release(gh_agg_dim *d)
{
	d->d_mem = nullptr;
}

gh_status
gh_gpu_agg_dim_matched(const gh_agg_dim *, uint64_t, uint64_t, uint8_t *)
{
	return no_gpu();
}

gh_status
gh_gpu_page_probe_mapped(gh_table *, const gh_page_scan *, const gh_page_ref *, uint32_t,
						 const uint8_t *, size_t, const uint16_t *, uint32_t, gh_page_match *,
						 size_t, size_t *, uint8_t *, gh_page_stats *)
{
	return no_gpu();
}

gh_status
gh_gpu_page_probe_at(gh_table *, gh_page_lane *, const gh_page_fill *, uint32_t,
					 const gh_page_scan *, const gh_page_ref *, uint32_t, const uint16_t *,
					 uint32_t, gh_page_match *, size_t, size_t *, uint8_t *, gh_page_stats *)
{
	return no_gpu();
}

gh_status
gh_gpu_page_store_alloc(int, size_t, uint8_t **store)
{
	*store = nullptr;
	return no_gpu();
}

void
gh_gpu_page_store_free(int, uint8_t *)
{
}

gh_status
gh_gpu_page_mapped_address(int, const void *, uint64_t *)
{
	return no_gpu();
}

gh_status
gh_gpu_page_fill_pages(int, const gh_page_fill *, uint32_t)
{
	return no_gpu();
}

/* No table is on a GPU here: none has lanes. */
gh_status
gh_page_lane_take(gh_table *, size_t, uint32_t, uint32_t, gh_page_lane **lane)
{
	*lane = nullptr;
	return GH_OK;
}

gh_status
gh_page_probe_lane(gh_page_lane *, int, const gh_page_scan *, const gh_page_ref *, uint32_t,
				   const uint8_t *, size_t, const uint16_t *, uint32_t, gh_page_match *,
				   size_t, size_t *, uint8_t *, gh_page_stats *)
{
	return no_gpu();
}

void
gh_page_lane_give(gh_table *, gh_page_lane *, const gh_page_stats *)
{
}

gh_status
gh_page_register_host(void *, size_t)
{
	return no_gpu();
}

gh_status
gh_gpu_agg_set_grow(gh_agg_set *, uint64_t)
{
	return no_gpu();
}

gh_status
gh_gpu_agg_set_merge(gh_agg_set *, const gh_agg_groups *)
{
	return no_gpu();
}

gh_status
gh_gpu_agg_set_finish(gh_agg_set *, const gh_agg_having *, gh_agg_groups *, uint64_t *)
{
	return no_gpu();
}

void
gh_gpu_agg_set_release(gh_agg_set *set)
{
	set->d_mem = nullptr;
	set->d_in = nullptr;
}

gh_status
gh_gpu_page_dim_rows(int, const gh_page_scan *, const int16_t *, int, const gh_page_ref *,
					 uint32_t, const uint8_t *, size_t, const uint16_t *, uint32_t, bool,
					 uint64_t *, gh_agg_inval *, uint64_t, uint8_t *, uint64_t, uint64_t *,
					 uint64_t *, uint8_t *, gh_page_stats *)
{
	return no_gpu();
}
