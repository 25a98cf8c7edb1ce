/*
 * page_walk.cuh
 *		One page, one tuple at a time, written once for the GPU kernel
 *		(gpu_page.cu: a block per page, a thread per slot) and the host twin
 *		(host_page.cpp: a loop): which line pointers a page's walk visits,
 *		and for each the deforming, the quals and the 64-bit key.
 *
 * A page's walk has slots 0 .. n-1: an all-visible page's line pointers
 * 1 .. maxoff, any other page's listed visible offsets in list order.
 * Output is in slot order; the list must be strictly ascending (heapgetpage
 * makes it so), which makes slot order line pointer order.
 */
#ifndef GPUHASH_PAGE_WALK_CUH
#define GPUHASH_PAGE_WALK_CUH

#include "page_qual.cuh"

/*
 * The slots of page ref (its line pointer count in *nitems), or -1 when the
 * page is refused as a whole: a header that is not sane, more line pointers
 * seen by the caller than the page has, or too many visible offsets.
 */
GH_HD int
gh_walk_slots(const uint8_t *page, const gh_page_ref &ref, int *nitems)
{
	int			n = gh_page_nitems(page);

	*nitems = n;
	if (n < 0)
		return -1;
	if (ref.nvis == GH_PAGE_ALL_VISIBLE)
		return ref.maxoff <= n ? (int) ref.maxoff : -1;
	return ref.nvis <= n ? (int) ref.nvis : -1;
}

/* The line pointer of slot s, or 0 when the visible list is out of order. */
GH_HD int
gh_walk_lp(const gh_page_ref &ref, const uint16_t *visible, int s)
{
	if (ref.nvis == GH_PAGE_ALL_VISIBLE)
		return s + 1;

	const uint16_t *v = visible + ref.vis_start;

	if (s > 0 && v[s] <= v[s - 1])
		return 0;
	return v[s];
}

/* What one slot gave. */
struct gh_walk_out
{
	uint64_t	key;
	uint16_t	lp;
	bool		passed;
	bool		null_key;
};

/* gpuhash_encode_datum of a deformed key column. */
GH_HD uint64_t
gh_key_encode(uint64_t bits, uint8_t conv)
{
	switch (conv)
	{
		case 0:
			return (uint64_t) (int64_t) (int16_t) bits;
		case 1:
			return (uint64_t) (int64_t) (int32_t) bits;
		case 3:
			return (uint32_t) bits;
		case 4:
			return bits != 0;
		default:
			return bits;
	}
}

/* The packed key of a row (gpuhash_pack); false if a key column is NULL. */
GH_HD bool
gh_walk_key(const gh_page_scan *scan, const gh_pval *cols, uint64_t *key)
{
	uint64_t	k = 0;

	for (int i = 0; i < scan->nkeys; i++)
	{
		const gh_page_key &pk = scan->key[i];
		const gh_pval &v = cols[pk.col];

		if (v.null)
			return false;

		uint64_t	x = gh_key_encode(v.bits, pk.conv);

		if (scan->nkeys == 1)
			k = x;
		else
			k = (k << pk.width) | (x & ((UINT64_C(1) << pk.width) - 1));
	}
	*key = k;
	return true;
}

/*
 * Walks slot s of a page: GH_WALK_SKIP if its line pointer holds no tuple,
 * GH_WALK_REFUSE if the page must go to the CPU, else GH_WALK_OK with out
 * filled.  cols is scratch of scan->natts values.
 */
GH_HD int
gh_walk_slot(const gh_page_scan *scan, const uint8_t *page, int nitems, const gh_page_ref &ref,
			 const uint16_t *visible, int s, gh_pval *cols, gh_walk_out *out)
{
	int			lp = gh_walk_lp(ref, visible, s);
	uint32_t	off,
				len;

	if (lp == 0)
		return GH_WALK_REFUSE;

	int			r = gh_page_item(page, nitems, lp, &off, &len);

	if (r != GH_WALK_OK)
	{
		/* a listed visible offset is a tuple heapgetpage saw */
		return r == GH_WALK_SKIP && ref.nvis != GH_PAGE_ALL_VISIBLE ? GH_WALK_REFUSE : r;
	}
	if (gh_deform(scan, page, off, len, cols) != GH_WALK_OK)
		return GH_WALK_REFUSE;

	int			q = gh_qual_run(scan, cols, page);

	if (q == GH_QUAL_REFUSE)
		return GH_WALK_REFUSE;
	out->lp = (uint16_t) lp;
	out->passed = q == GH_QUAL_PASS;
	out->key = 0;
	out->null_key = out->passed && !gh_walk_key(scan, cols, &out->key);
	return GH_WALK_OK;
}

#endif							/* GPUHASH_PAGE_WALK_CUH */
