/*
 * host_page_dim.cpp
 *		A dimension's rows from heap pages (gpuhash_dim_pages.h): the checks
 *		and the host twin, a loop over pages and slots; a GPU ordinal goes
 *		to gpu_page_dim.cu.
 */
#include "page_dim.cuh"
#include "page_internal.h"
#include "agg_internal.h"
#include "page_dim_internal.h"

#include <string.h>

static gh_status
check_dim_request(const gh_page_scan *scan, const int16_t *cols, int ncols,
				  const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
				  size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				  const uint64_t *keys, const gh_agg_inval *vals, uint64_t rows_cap,
				  const uint8_t *heap, const uint64_t *n_rows,
				  const uint64_t *heap_bytes, const uint8_t *refused)
{
	size_t		unused = 0;

	if (!scan)
		return gh_error(GH_ERR_INVALID, "dimension pages: no scan program");
	GH_PAGE_CHECK(gh_page_check_request(scan, refs, n_pages, page_data, page_data_bytes,
										visible, n_visible, nullptr, 0, &unused, refused));
	if (ncols < 0 || ncols > GH_AGG_MAX_INNER || (ncols > 0 && !cols))
		return gh_error(GH_ERR_INVALID, "dimension pages: %d columns", ncols);
	for (int j = 0; j < ncols; j++)
		if (cols[j] < 0 || cols[j] >= scan->natts || scan->col[cols[j]].type == GH_T_SKIP)
			return gh_error(GH_ERR_INVALID, "dimension pages: column %d is not one the scan reads",
							j);
	if (scan->nkeys < 1)
		return gh_error(GH_ERR_INVALID, "dimension pages: the scan program makes no key");
	if (!n_rows || !heap_bytes || (n_pages > 0 && (!keys || (ncols > 0 && !vals) || !heap)))
		return gh_error(GH_ERR_INVALID, "dimension pages: a required pointer is NULL");
	/* the pages' rows bounded by their refs (checked above against the list) */
	uint64_t	rows = gh_dim_pages_rows_bound(refs, n_pages);

	if (rows_cap < rows)
		return gh_error(GH_ERR_INVALID, "dimension pages: room for fewer rows than %u pages "
						"can give", n_pages);
	return GH_OK;
}

/* walk_page's answer when a row's values would pass the heap's room */
constexpr int WALK_FULL = -2;

/*
 * One page into the outputs: GH_WALK_OK, GH_WALK_REFUSE (nothing of it
 * kept), or WALK_FULL when a row's values would pass heap_cap (nothing
 * written past it; the page walked on, as a later slot may refuse it and
 * so take its rows back, as the GPU's count leaves a refused page's out).
 */
static int
walk_page(const gh_page_scan *scan, const int16_t *cols, int ncols, const uint8_t *page,
		  const gh_page_ref &ref, const uint16_t *visible, uint64_t *keys, gh_agg_inval *vals,
		  uint8_t *heap, uint64_t heap_cap, uint64_t *n_rows, uint64_t *heap_bytes,
		  gh_page_stats *s)
{
	int			nitems;
	int			n = gh_walk_slots(page, ref, &nitems);
	uint64_t	r = *n_rows,
				h = *heap_bytes,
				tuples = 0,
				passed = 0;
	gh_pval		v[GH_PAGE_MAX_ATTS];
	bool		full = false;

	if (n < 0)
		return GH_WALK_REFUSE;
	for (int slot = 0; slot < n; slot++)
	{
		gh_walk_out o;
		int			w = gh_walk_slot(scan, page, nitems, ref, visible, slot, v, &o);
		uint64_t	b;

		if (w == GH_WALK_REFUSE)
			return GH_WALK_REFUSE;
		if (w != GH_WALK_OK)
			continue;
		tuples++;
		if (!o.passed)
			continue;
		passed++;
		if (o.null_key)
			continue;			/* a NULL key joins nothing */
		b = gh_dim_row_bytes(scan, cols, ncols, v);
		if (full || b > heap_cap || h > heap_cap - b)
		{
			full = true;
			continue;
		}
		keys[r] = o.key;
		gh_dim_row_write(scan, cols, ncols, page, v, vals + r * (uint64_t) ncols, heap, h);
		h += b;
		r++;
	}
	if (full)
		return WALK_FULL;
	*n_rows = r;
	*heap_bytes = h;
	s->tuples += tuples;
	s->passed += passed;
	return GH_WALK_OK;
}

gh_status
gh_page_dim_rows(int device, const gh_page_scan *scan, const int16_t *cols, int ncols,
				 const gh_page_ref *refs, uint32_t n_pages, const uint8_t *page_data,
				 size_t page_data_bytes, const uint16_t *visible, uint32_t n_visible,
				 int mapped, uint64_t *keys, gh_agg_inval *vals, uint64_t rows_cap,
				 uint8_t *heap, uint64_t heap_cap, uint64_t *n_rows, uint64_t *heap_bytes,
				 uint8_t *refused, gh_page_stats *stats)
{
	gh_page_stats s;

	GH_PAGE_CHECK(check_dim_request(scan, cols, ncols, refs, n_pages, page_data,
									page_data_bytes, visible, n_visible, keys, vals, rows_cap,
									heap, n_rows, heap_bytes, refused));
	if (device != GH_AGG_HOST)
		return gh_gpu_page_dim_rows(device, scan, cols, ncols, refs, n_pages, page_data,
									page_data_bytes, visible, n_visible, mapped != 0, keys,
									vals, rows_cap, heap, heap_cap, n_rows, heap_bytes, refused,
									stats);
	memset(&s, 0, sizeof(s));
	*n_rows = 0;
	*heap_bytes = 0;
	for (uint32_t p = 0; p < n_pages; p++)
	{
		uint64_t	r0 = *n_rows,
					h0 = *heap_bytes;

		/* by address (page_data NULL): each ref says where its page lies */
		const uint8_t *page = page_data ? page_data + refs[p].offset :
			(const uint8_t *) (uintptr_t) refs[p].offset;
		int			w = walk_page(scan, cols, ncols, page, refs[p],
								  visible, keys, vals, heap, heap_cap, n_rows, heap_bytes, &s);

		if (w == WALK_FULL)
		{
			*n_rows = 0;
			*heap_bytes = 0;
			return gh_error(GH_ERR_OUTPUT_FULL, "dimension pages: the rows' values need more "
							"than %llu heap bytes", (unsigned long long) heap_cap);
		}
		refused[p] = w == GH_WALK_REFUSE;
		if (refused[p])
		{
			/* a refused page gives nothing: its rows so far taken back */
			*n_rows = r0;
			*heap_bytes = h0;
			s.refused++;
		}
	}
	s.pages = n_pages;
	s.written = *n_rows;
	if (stats)
		*stats = s;
	return GH_OK;
}
