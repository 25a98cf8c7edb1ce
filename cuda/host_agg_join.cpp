/*
 * host_agg_join.cpp
 *		The aggregate over a join, host side: building and freeing a
 *		dimension (on the host twin, or on a GPU through gpu_agg_dim.cu),
 *		and the host twin's walk of one page over the join (agg_join.cuh in
 *		a loop).
 */
#include "agg_internal.h"
#include "page_internal.h"

#include <new>
#include <stdlib.h>
#include <string.h>

gh_status
gh_agg_dim_build(int device, const uint64_t *keys, uint64_t n, const gh_agg_inval *vals,
				 int ninner, const uint8_t *heap, uint64_t heap_bytes, size_t max_device_bytes,
				 gh_agg_dim **out)
{
	if (!out)
		return gh_error(GH_ERR_INVALID, "dimension: no output pointer");
	*out = nullptr;
	if (ninner < 0 || ninner > GH_AGG_MAX_INNER || (n > 0 && !keys) ||
		(n > 0 && ninner > 0 && !vals) || (heap_bytes > 0 && !heap) || device < GH_AGG_HOST)
		return gh_error(GH_ERR_INVALID, "dimension: invalid arguments");
	if (n > GH_MAX_ROWS)
		return gh_error(GH_ERR_TOO_LARGE, "dimension: %llu rows, more than a table indexes",
						(unsigned long long) n);
	/* a walker's value refers to the heap with a 32-bit offset */
	if (heap_bytes > UINT32_MAX)
		return gh_error(GH_ERR_TOO_LARGE, "dimension: %llu bytes of values, more than 4 GB",
						(unsigned long long) heap_bytes);

	size_t		vbytes = (size_t) n * (size_t) ninner * sizeof(gh_agg_inval);

	/* the matched flags (a byte a row) count with the values */
	if (device != GH_AGG_HOST && max_device_bytes > 0 &&
		vbytes + heap_bytes + n >= max_device_bytes)
		return gh_error(GH_ERR_GPU_MEMORY, "dimension: %zu bytes of values exceed the budget of "
						"%zu", (size_t) (vbytes + heap_bytes + n), max_device_bytes);

	gh_agg_dim *d = new(std::nothrow) gh_agg_dim();

	if (!d)
		return gh_error(GH_ERR_HOST_MEMORY, "dimension: no memory");
	d->device = device;
	d->n = n;
	d->ninner = ninner;
	d->max_dup = 1;
	d->table = nullptr;
	d->h_vals = nullptr;
	d->h_heap = nullptr;
	memset(&d->view, 0, sizeof(d->view));
	d->view.n = n;
	d->view.ninner = ninner;
	d->view.heap_bytes = heap_bytes;

	/* a value no walker holds refuses the pages that read it: noted once */
	for (size_t i = 0; i < (size_t) n * ninner; i++)
		if (!vals[i].null && vals[i].len > 0 &&
			(vals[i].len > 0xFFFF || vals[i].bits > heap_bytes ||
			 vals[i].len > heap_bytes - vals[i].bits))
			d->view.wide = true;

	gh_status	st = GH_OK;
	gh_table_info info;

	memset(&info, 0, sizeof(info));
	if (n > 0)
	{
		gh_build_options o;

		gh_default_options(&o);
		o.scheme = GH_SCHEME_LINEAR;
		o.device = device == GH_AGG_HOST ? GH_DEVICE_HOST : GH_DEVICE_GPU;
		o.gpu_ordinal = device == GH_AGG_HOST ? -1 : device;
		/* the table gets what the values leave of the budget */
		o.max_device_bytes = device == GH_AGG_HOST || max_device_bytes == 0 ? 0
			: max_device_bytes - vbytes - heap_bytes - n;
		st = gh_build(&o, keys, nullptr, 4, n, &d->table);
		if (st == GH_OK)
		{
			gh_table_get_info(d->table, &info);
			d->view.lin = d->table->lin;
		}
	}
	if (st == GH_OK && device == GH_AGG_HOST)
	{
		d->h_vals = (gh_agg_inval *) malloc(vbytes ? vbytes : 1);
		d->h_heap = (uint8_t *) malloc(heap_bytes ? heap_bytes : 1);
		d->h_matched = (uint8_t *) calloc(n ? n : 1, 1);
		d->view.matched = d->h_matched;
		if (!d->h_vals || !d->h_heap || !d->h_matched)
			st = gh_error(GH_ERR_HOST_MEMORY, "dimension: no memory for %zu bytes of values",
						  (size_t) (vbytes + heap_bytes));
		else
		{
			if (vbytes)
				memcpy(d->h_vals, vals, vbytes);
			if (heap_bytes)
				memcpy(d->h_heap, heap, heap_bytes);
		}
		if (st == GH_OK && n > 0)
		{
			d->view.rowids = (const uint32_t *) gh_sorted_rowids(d->table);
			d->view.vals = d->h_vals;
			d->view.heap = d->h_heap;

			/* the most rows of one key: the longest run of a slot */
			if (info.n_distinct != n)
				for (uint64_t h = 0; h <= d->view.lin.mask; h++)
					if (d->view.lin.slots[h].cnt > d->max_dup)
						d->max_dup = d->view.lin.slots[h].cnt;
		}
		d->bytes = info.host_bytes + vbytes + heap_bytes + n;
	}
	else if (st == GH_OK)
	{
		st = gh_gpu_agg_dim_upload(d, vals, heap, heap_bytes,
								   max_device_bytes == 0 ? 0 : max_device_bytes - info.device_bytes);
		d->bytes = info.device_bytes + vbytes + heap_bytes + n;
	}
	if (st != GH_OK)
	{
		gh_agg_dim_free(d);
		return st;
	}
	*out = d;
	return GH_OK;
}

void
gh_agg_dim_free(gh_agg_dim *d)
{
	if (!d)
		return;
	if (d->nparts > 0)
	{
		/* a star: its parts are their owners' */
		delete d;
		return;
	}
	if (d->device != GH_AGG_HOST)
		gh_gpu_agg_dim_release(d);
	if (d->table)
		gh_free(d->table);
	free(d->h_vals);
	free(d->h_heap);
	free(d->h_matched);
	delete d;
}

gh_status
gh_agg_dim_matched(const gh_agg_dim *d, uint64_t pos, uint64_t n, uint8_t *out)
{
	if (!d || (n > 0 && !out) || pos > d->n || n > d->n - pos)
		return gh_error(GH_ERR_INVALID, "dimension: matched flags out of range");
	if (n == 0)
		return GH_OK;
	if (d->device != GH_AGG_HOST)
		return gh_gpu_agg_dim_matched(d, pos, n, out);
	memcpy(out, d->h_matched + pos, n);
	return GH_OK;
}

int
gh_agg_dim_device(const gh_agg_dim *d)
{
	return d ? d->device : GH_AGG_HOST;
}

uint64_t
gh_agg_dim_rows(const gh_agg_dim *d)
{
	return d ? d->n : 0;
}

size_t
gh_agg_dim_bytes(const gh_agg_dim *d)
{
	return d ? d->bytes : 0;
}

/* gh_agg_fold_page_join for group keys of KW words */
template <int KW>
static bool
fold_page_join(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
			   const uint8_t *page, const gh_page_ref &ref, const uint16_t *visible,
			   gh_agg_table &t, gh_agg_stats *s)
{
	static thread_local gh_pval cols[GH_AGG_INNER_COL0 + GH_AGG_MAX_INNER];

	const gh_vbase b = gh_vbase_of(page, scan->pool, dim->view.heap);
	const gh_dim_view &d = dim->view;
	const bool	lean = !gh_join_may_refuse(agg, d);
	int			nitems;
	int			n = gh_walk_slots(page, ref, &nitems);

	if (n < 0)
		return false;

	int			pass[GH_PAGE_MAX_TUPLES];
	gh_hit		hits[GH_PAGE_MAX_TUPLES];
	int			np = 0;
	uint64_t	nt = 0,
				npairs = 0;

	/* first phase: whatever may refuse the page, for every pair */
	for (int slot = 0; slot < n; slot++)
	{
		gh_walk_out o;
		int			r = gh_walk_slot(scan, page, nitems, ref, visible, slot, cols, &o);
		bool		some;

		if (r == GH_WALK_REFUSE)
			return false;
		if (r != GH_WALK_OK)
			continue;
		nt++;
		if (!o.passed)
			continue;
		if (!gh_join_row<KW>(agg, d, lean, o.null_key, o.key, cols, b, &hits[np], &some))
			return false;
		if (some)
			pass[np++] = slot;
	}
	s->tuples += nt;

	/* second phase: fold the pairs that pass */
	for (int i = 0; i < np; i++)
	{
		gh_walk_out o;

		gh_walk_slot(scan, page, nitems, ref, visible, pass[i], cols, &o);
		for (uint32_t m = 0; m < hits[i].cnt; m++)
		{
			uint64_t	key[KW];
			uint8_t		nulls = 0;

			if (gh_join_pair(agg, d, hits[i].off + m, cols, b) != GH_QUAL_PASS)
				continue;
			npairs++;
			gh_dim_mark(agg, d, hits[i].off + m);
			gh_agg_key<KW>(agg, cols, b, key, &nulls);

			int64_t		g = gh_agg_find<KW>(t, agg, key, nulls);

			if (g < 0)
				return true;	/* the request overflowed: nothing it holds is used */
			for (int a = 0; a < agg->naggs; a++)
				gh_agg_fold(agg, agg->agg[a], gh_agg_in_type(scan, agg, agg->agg[a]),
							&t.states[(uint64_t) g * agg->naggs + a], cols, b);
		}
	}
	s->passed += npairs;
	return true;
}

bool
gh_agg_fold_page_join(const gh_page_scan *scan, const gh_agg_prog *agg, const gh_agg_dim *dim,
					  const uint8_t *page, const gh_page_ref &ref, const uint16_t *visible,
					  gh_agg_table &t, gh_agg_stats *s)
{
	if (dim->nparts > 0)
		return gh_agg_fold_page_star(scan, agg, dim, page, ref, visible, t, s);
	return gh_agg_by_kw(gh_agg_key_words(agg), [&](auto k) {
		return fold_page_join<decltype(k)::value>(scan, agg, dim, page, ref, visible, t, s);
	});
}
