/*-------------------------------------------------------------------------
 *
 * shared_inner.c
 *	  The kept inner rows of a parallel-aware GpuHashJoin, in the query's
 *	  DSA: one reader lays them out after building, or every reader puts its
 *	  share in a directory and the participant the barrier elects builds
 *	  from all shares.  Either way every participant then reaches row k of
 *	  the table's key-grouped order through one dsa_pointer, NULL-key rows
 *	  of right/full joins after those, with shared match bits and the key
 *	  filter beside them.  parallel.c coordinates (DSM, barrier, election,
 *	  the table's ownership); inner_store.c keeps and publishes the rows.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

/* One participant's share of a partial inner side. */
typedef struct InnerChunk
{
	uint64		n_keyed;		/* rows with a key, then n_null without */
	uint64		n_null;
	dsa_pointer keys;			/* uint64 per keyed row */
	dsa_pointer rows;			/* MinimalTuples, back to back */
	dsa_pointer offsets;		/* uint64 per row: its tuple in rows */
	dsa_pointer carried;		/* a chain's carried keys of the keyed rows,
								 * in this share's order (as SharedInner's) */
} InnerChunk;

void
gpuhash_shared_inner_init(SharedInner *si, int max_chunks)
{
	si->max_chunks = max_chunks;
	si->n_chunks = 0;
	si->chunks = si->rows = si->rowptrs = si->matched = si->kf = InvalidDsaPointer;
	si->carried = si->order = InvalidDsaPointer;
	si->kf_nwords = 0;
	si->layout_n = 0;
	si->layout_m = 0;
	pg_atomic_init_u64(&si->layout_next, 0);
	pg_atomic_init_u64(&si->kf_fill_next, 0);
}

/* The share directory, made once (under the caller's lock). */
void
gpuhash_shared_inner_directory(SharedInner *si, dsa_area *area)
{
	if (!DsaPointerIsValid(si->chunks))
		si->chunks = dsa_allocate0(area, sizeof(InnerChunk) * si->max_chunks);
}

/* A participant reads the shared rows, match bits and key filter. */
void
gpuhash_shared_inner_attach(GpuJoinState *gs, SharedInner *si, dsa_area *area)
{
	gs->shared_area = area;
	gs->shared_rowptrs = DsaPointerIsValid(si->rowptrs) ?
		dsa_get_address(area, si->rowptrs) : NULL;
	gs->shared_matched = DsaPointerIsValid(si->matched) ?
		dsa_get_address(area, si->matched) : NULL;
	gpuhash_keyfilter_set(gs, DsaPointerIsValid(si->kf) ? dsa_get_address(area, si->kf) : NULL,
						  si->kf_nwords);
}

/* The shared rows are gone with the query's DSM (or were never attached). */
void
gpuhash_shared_inner_detach(GpuJoinState *gs)
{
	gs->shared_rowptrs = NULL;
	gs->shared_matched = NULL;
}

static void
free_dsa(dsa_area *area, dsa_pointer *p)
{
	if (area && DsaPointerIsValid(*p))
		dsa_free(area, *p);
	*p = InvalidDsaPointer;
}

/* Frees the shared rows (a rescan, once the old workers are gone). */
void
gpuhash_shared_inner_release(SharedInner *si, dsa_area *area)
{
	if (area && DsaPointerIsValid(si->chunks))
	{
		InnerChunk *c = dsa_get_address(area, si->chunks);

		for (int i = 0; i < si->n_chunks; i++)
		{
			free_dsa(area, &c[i].keys);
			free_dsa(area, &c[i].rows);
			free_dsa(area, &c[i].offsets);
			free_dsa(area, &c[i].carried);
		}
	}
	free_dsa(area, &si->chunks);
	free_dsa(area, &si->rows);
	free_dsa(area, &si->rowptrs);
	free_dsa(area, &si->matched);
	free_dsa(area, &si->kf);
	free_dsa(area, &si->carried);
	free_dsa(area, &si->order);
	si->layout_n = 0;
}

/*
 * A carrier level's carried keys (chain.c) of n rows kept as gs->inner_tups,
 * made in one DSA allocation: m columns of keys, then m of valid bytes.
 */
static dsa_pointer
make_carried(GpuJoinState *gs, dsa_area *area, uint64 n)
{
	int			m = gpuhash_carried_columns(gs);
	dsa_pointer p;
	char	   *base;
	instr_time	t0;

	if (m == 0 || n == 0)
		return InvalidDsaPointer;
	INSTR_TIME_SET_CURRENT(t0);
	p = dsa_allocate_extended(area, (sizeof(uint64) + 1) * m * n, DSA_ALLOC_HUGE);
	base = dsa_get_address(area, p);
	gpuhash_prefault(base, (sizeof(uint64) + 1) * m * n);
	gpuhash_carried_keys(gs, gs->inner_tups, n, (uint64 *) base,
						 (uint8 *) (base + sizeof(uint64) * m * n), n);
	gs->stats.carry_ms += gpuhash_ms_since(t0);
	return p;
}

/* The carried keys of the table's n rows and m columns, if made. */
bool
gpuhash_shared_inner_carried(SharedInner *si, dsa_area *area, uint64 n, int m,
							 const uint64 **keys, const uint8 **valid)
{
	char	   *base;

	if (!DsaPointerIsValid(si->carried))
		return false;
	base = dsa_get_address(area, si->carried);
	*keys = (const uint64 *) base;
	*valid = (const uint8 *) (base + sizeof(uint64) * m * n);
	return true;
}

/* They are in the table now: the copy goes. */
void
gpuhash_shared_inner_drop_carried(SharedInner *si, dsa_area *area)
{
	free_dsa(area, &si->carried);
}

/*
 * One reader: run the inner plan, build the table, and lay the kept rows out
 * in the DSA in its key-grouped order, with the match bits and the key
 * filter.  The caller publishes the table.
 */
void
gpuhash_shared_inner_build_one(GpuJoinState *gs, SharedInner *si, dsa_area *area)
{
	dsa_pointer offs;

	gpuhash_build_inner(gs);
	/* the join split while the rows were read (parallel_split.c): no table */
	if (gs->split)
		return;
	/* the kept rows lie in the table's order now */
	si->carried = make_carried(gs, area, gs->n_inner);
	si->rows = gpuhash_inner_publish(gs, area, &offs);
	if (DsaPointerIsValid(si->rows))
	{
		uint64	   *o = dsa_get_address(area, offs);
		dsa_pointer *ptrs;

		si->rowptrs = dsa_allocate_extended(area, sizeof(dsa_pointer) * gs->n_inner_all,
											DSA_ALLOC_HUGE);
		ptrs = dsa_get_address(area, si->rowptrs);
		gpuhash_prefault(ptrs, sizeof(dsa_pointer) * gs->n_inner_all);
		for (uint64 i = 0; i < gs->n_inner_all; i++)
			ptrs[i] = si->rows + o[i];
		dsa_free(area, offs);
	}
	if (gs->fill_inner)
		si->matched = gpuhash_inner_shared_matched(gs, area);
	if (gs->kf.words)
	{
		si->kf = dsa_allocate_extended(area, sizeof(uint64) * gs->kf.nwords, DSA_ALLOC_HUGE);
		gpuhash_prefault(dsa_get_address(area, si->kf), sizeof(uint64) * gs->kf.nwords);
		memcpy(dsa_get_address(area, si->kf), gs->kf.words, sizeof(uint64) * gs->kf.nwords);
		si->kf_nwords = gs->kf.nwords;
	}
}

/*
 * All readers: this participant's share of the inner side, read already,
 * goes to the DSA, into the directory's slot `slot` (claimed by the caller;
 * timed as Share Time).
 */
void
gpuhash_shared_inner_put_share(GpuJoinState *gs, SharedInner *si, dsa_area *area, int slot)
{
	InnerChunk	c;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_finish_inner(gs);
	memset(&c, 0, sizeof(c));
	c.n_keyed = gs->n_inner;
	c.n_null = gs->n_inner_all - gs->n_inner;
	c.keys = InvalidDsaPointer;
	if (c.n_keyed > 0)
	{
		c.keys = dsa_allocate_extended(area, sizeof(uint64) * c.n_keyed, DSA_ALLOC_HUGE);
		gpuhash_prefault(dsa_get_address(area, c.keys), sizeof(uint64) * c.n_keyed);
		memcpy(dsa_get_address(area, c.keys), gs->inner_keys_arr, sizeof(uint64) * c.n_keyed);
	}
	c.rows = gpuhash_inner_publish(gs, area, &c.offsets);
	c.carried = make_carried(gs, area, c.n_keyed);
	gpuhash_inner_reset_memory(gs);

	((InnerChunk *) dsa_get_address(area, si->chunks))[slot] = c;
	gs->stats.null_key_rows = c.n_null;
	gs->stats.share_ms += gpuhash_ms_since(t0);
}

/* Rows with a key in all the shares, once every reader has put its own. */
uint64
gpuhash_shared_inner_keyed(SharedInner *si, dsa_area *area)
{
	InnerChunk *chunks;
	uint64		n = 0;

	if (!DsaPointerIsValid(si->chunks))
		return 0;
	chunks = dsa_get_address(area, si->chunks);
	for (int i = 0; i < si->n_chunks; i++)
		n += chunks[i].n_keyed;
	return n;
}

/* The part of table row r: the last one starting at or before it. */
static inline int
part_of(const uint64 *start, int nparts, uint64 r)
{
	int			lo = 0,
				hi = nparts - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (start[mid] <= r)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * The shares with keyed rows, as the table numbers them: row i of the table
 * is row i - start[p] of the share p it falls in.  Made by each process
 * that reads them, in its current memory context.
 */
typedef struct ShareMap
{
	int			nparts;
	int			m;				/* carried columns (0: a share has none) */
	uint64		n_keyed;
	uint64		n_null;
	const uint64 **keys;
	uint64	   *n;
	uint64	   *start;
	dsa_pointer *rows;
	uint64	  **offs;			/* each row's tuple in rows, or NULL */
	char	  **carried;		/* the share's carried keys, or NULL */
} ShareMap;

static void
share_map(GpuJoinState *gs, SharedInner *si, dsa_area *area, ShareMap *sm)
{
	InnerChunk *chunks = dsa_get_address(area, si->chunks);
	int			n = Max(si->n_chunks, 1);

	memset(sm, 0, sizeof(*sm));
	sm->m = gpuhash_carried_columns(gs);
	sm->keys = palloc(sizeof(uint64 *) * n);
	sm->n = palloc(sizeof(uint64) * n);
	sm->start = palloc(sizeof(uint64) * n);
	sm->rows = palloc(sizeof(dsa_pointer) * n);
	sm->offs = palloc(sizeof(uint64 *) * n);
	sm->carried = palloc(sizeof(char *) * n);
	for (int i = 0; i < si->n_chunks; i++)
	{
		InnerChunk *c = &chunks[i];

		if (c->n_keyed > 0)
		{
			int			p = sm->nparts++;

			sm->keys[p] = dsa_get_address(area, c->keys);
			sm->n[p] = c->n_keyed;
			sm->start[p] = sm->n_keyed;
			sm->rows[p] = c->rows;
			sm->offs[p] = DsaPointerIsValid(c->offsets) ?
				dsa_get_address(area, c->offsets) : NULL;
			sm->carried[p] = DsaPointerIsValid(c->carried) ?
				dsa_get_address(area, c->carried) : NULL;
			if (sm->carried[p] == NULL)
				sm->m = 0;		/* not made (not a carrier): none */
		}
		sm->n_keyed += c->n_keyed;
		sm->n_null += c->n_null;
	}
}

static void
share_keys(ShareMap *sm, GpuKeyParts *keys)
{
	keys->nparts = sm->nparts;
	keys->keys = sm->keys;
	keys->n = sm->n;
	keys->total = sm->n_keyed;
}

/*
 * The participant elected by the barrier: build the table over the shares'
 * keys, sent as they lie (no concatenated copy: on 15 M keys that copy cost
 * more than sending and building), and make room for the rows' pointers and
 * carried keys in its order.  Every participant then lays them out
 * (gpuhash_shared_inner_layout), and this one finishes
 * (gpuhash_shared_inner_finish).
 */
void
gpuhash_shared_inner_build_from_shares(GpuJoinState *gs, SharedInner *si, dsa_area *area)
{
	ShareMap	sm;
	GpuKeyParts keys;
	MemoryContext old;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_inner_reset_memory(gs);
	old = MemoryContextSwitchTo(gs->inner_cxt);
	share_map(gs, si, area, &sm);
	MemoryContextSwitchTo(old);
	share_keys(&sm, &keys);

	gs->n_inner = sm.n_keyed;
	gs->n_inner_all = sm.n_keyed + sm.n_null;
	gs->inner_keys_arr = NULL;
	gs->inner_tups = NULL;
	si->layout_n = 0;
	si->layout_m = 0;
	pg_atomic_write_u64(&si->layout_next, 0);
	if (gs->n_inner_keep > 0 && gs->n_inner_all > 0)
		si->rowptrs = dsa_allocate_extended(area, sizeof(dsa_pointer) * gs->n_inner_all,
											DSA_ALLOC_HUGE);
	if (sm.m > 0 && sm.n_keyed > 0)
		si->carried = dsa_allocate_extended(area, (sizeof(uint64) + 1) * sm.m * sm.n_keyed,
											 DSA_ALLOC_HUGE);
	/* the key filter, empty: every participant adds keys to it as it lays out */
	pg_atomic_write_u64(&si->kf_fill_next, 0);
	if (sm.n_keyed > 0 && gpuhash_keyfilter_wanted(gs))
	{
		pg_atomic_uint64 *w;

		si->kf_nwords = gpuhash_keyfilter_words(sm.n_keyed);
		si->kf = dsa_allocate_extended(area, sizeof(uint64) * si->kf_nwords, DSA_ALLOC_HUGE);
		w = dsa_get_address(area, si->kf);
		gpuhash_prefault(w, sizeof(uint64) * si->kf_nwords);
		for (uint64 i = 0; i < si->kf_nwords; i++)
			pg_atomic_init_u64(&w[i], 0);
	}
	if (sm.n_keyed > 0)
	{
		const uint32 *order = gpuhash_build_keys(gs, &keys);

		if (order && (DsaPointerIsValid(si->rowptrs) || DsaPointerIsValid(si->carried)))
		{
			si->order = dsa_allocate_extended(area, sizeof(uint32) * sm.n_keyed, DSA_ALLOC_HUGE);
			memcpy(dsa_get_address(area, si->order), order, sizeof(uint32) * sm.n_keyed);
			si->layout_n = sm.n_keyed;
			si->layout_m = sm.m;
		}
	}
	gs->stats.build_ms += gpuhash_ms_since(t0);
}

/* Positions a participant lays out at a time. */
#define LAYOUT_BLOCK 16384

/*
 * Every participant, once the table is built: blocks of the shares' keys,
 * in share order, into the key filter (timed as the filter's).
 */
static void
fill_key_filter(GpuJoinState *gs, SharedInner *si, dsa_area *area, const ShareMap *sm)
{
	pg_atomic_uint64 *words = dsa_get_address(area, si->kf);
	bool		mapped = false;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	for (;;)
	{
		uint64		from = pg_atomic_fetch_add_u64(&si->kf_fill_next, LAYOUT_BLOCK);
		uint64		to;

		if (from >= sm->n_keyed)
			break;
		/* keys set bits all over the filter: its pages mapped at once */
		if (!mapped)
			gpuhash_prefault(words, sizeof(uint64) * si->kf_nwords);
		mapped = true;
		to = Min(from + LAYOUT_BLOCK, sm->n_keyed);
		/* the block may span shares */
		while (from < to)
		{
			int			p = part_of(sm->start, sm->nparts, from);
			uint64		k = from - sm->start[p];
			uint64		len = Min(to - from, sm->n[p] - k);

			gpuhash_keyfilter_add_shared(words, si->kf_nwords, sm->keys[p] + k, len);
			from += len;
		}
		CHECK_FOR_INTERRUPTS();
	}
	gs->stats.filter_ms += gpuhash_ms_since(t0);
}

/* gpuhash_shared_inner_layout's rows: blocks of positions (timed as Share Time) */
static void
lay_out_rows(GpuJoinState *gs, SharedInner *si, dsa_area *area, const ShareMap *sm)
{
	const uint32 *order;
	dsa_pointer *ptrs;
	uint64	   *carried = NULL;
	uint8	   *carried_valid = NULL;
	uint64		n = si->layout_n;
	int			m = si->layout_m;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	order = dsa_get_address(area, si->order);
	ptrs = DsaPointerIsValid(si->rowptrs) ? dsa_get_address(area, si->rowptrs) : NULL;
	if (m > 0)
	{
		char	   *base = dsa_get_address(area, si->carried);

		carried = (uint64 *) base;
		carried_valid = (uint8 *) (base + sizeof(uint64) * m * n);
	}

	for (;;)
	{
		uint64		from = pg_atomic_fetch_add_u64(&si->layout_next, LAYOUT_BLOCK);
		uint64		to;

		if (from >= n)
			break;
		to = Min(from + LAYOUT_BLOCK, n);
		if (ptrs)
			gpuhash_prefault(ptrs + from, sizeof(dsa_pointer) * (to - from));
		for (int c = 0; c < m; c++)
			gpuhash_prefault(carried + c * n + from, sizeof(uint64) * (to - from));
		for (uint64 i = from; i < to; i++)
		{
			uint64		r = order[i];
			int			p = part_of(sm->start, sm->nparts, r);
			uint64		k = r - sm->start[p];

			if (i + 16 < to)
			{
				uint64		r2 = order[i + 16];
				int			p2 = part_of(sm->start, sm->nparts, r2);

				if (ptrs)
					gpuhash_prefetch(&sm->offs[p2][r2 - sm->start[p2]]);
				for (int c = 0; c < m; c++)
				{
					gpuhash_prefetch(sm->carried[p2] + sizeof(uint64) * (c * sm->n[p2] + r2 - sm->start[p2]));
					gpuhash_prefetch(sm->carried[p2] + sizeof(uint64) * m * sm->n[p2] +
									 c * sm->n[p2] + r2 - sm->start[p2]);
				}
			}
			if (ptrs)
				ptrs[i] = sm->rows[p] + sm->offs[p][k];
			for (int c = 0; c < m; c++)
			{
				const uint64 *pk = (const uint64 *) sm->carried[p];
				const uint8 *pv = (const uint8 *) (sm->carried[p] + sizeof(uint64) * m * sm->n[p]);

				carried[c * n + i] = pk[c * sm->n[p] + k];
				carried_valid[c * n + i] = pv[c * sm->n[p] + k];
			}
		}
		CHECK_FOR_INTERRUPTS();
	}
	gs->stats.share_ms += gpuhash_ms_since(t0);
}

/*
 * Every participant, once the table is built: each table row's tuple
 * pointer and carried keys, gathered from its share.  The gather goes to
 * random places (the loads start 16 rows ahead), and on one process it
 * held the others at the barrier (0.8 s for 15 M rows), so
 * all take blocks of positions in turn.  The key filter's blocks first
 * (fill_key_filter), for the same reason.
 */
void
gpuhash_shared_inner_layout(GpuJoinState *gs, SharedInner *si, dsa_area *area)
{
	MemoryContext cxt,
				old;
	ShareMap	sm;

	/* a filter allocated by this build's builder is still to be filled */
	if (si->layout_n == 0 && !DsaPointerIsValid(si->kf))
		return;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gpuhash layout", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	share_map(gs, si, area, &sm);
	if (DsaPointerIsValid(si->kf))
		fill_key_filter(gs, si, area, &sm);
	if (si->layout_n > 0)
		lay_out_rows(gs, si, area, &sm);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * The builder, once every participant has laid its blocks out (and filled
 * the key filter): the NULL-key rows of right/full joins after the table's
 * rows, the match bits; the shares' keys, offsets and carried keys have
 * served.  The caller publishes the table.
 */
void
gpuhash_shared_inner_finish(GpuJoinState *gs, SharedInner *si, dsa_area *area)
{
	InnerChunk *chunks = dsa_get_address(area, si->chunks);
	dsa_pointer *ptrs = DsaPointerIsValid(si->rowptrs) ?
		dsa_get_address(area, si->rowptrs) : NULL;
	ShareMap	sm;
	uint64		pos;
	MemoryContext old;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	free_dsa(area, &si->order);
	si->layout_n = 0;
	old = MemoryContextSwitchTo(gs->inner_cxt);
	share_map(gs, si, area, &sm);
	MemoryContextSwitchTo(old);
	pos = sm.n_keyed;
	for (int i = 0; ptrs && i < si->n_chunks; i++)
	{
		InnerChunk *c = &chunks[i];
		uint64	   *o = DsaPointerIsValid(c->offsets) ? dsa_get_address(area, c->offsets) : NULL;

		for (uint64 r = 0; o && r < c->n_null; r++)
			ptrs[pos++] = c->rows + o[c->n_keyed + r];
	}
	for (int i = 0; i < si->n_chunks; i++)
	{
		free_dsa(area, &chunks[i].keys);
		free_dsa(area, &chunks[i].offsets);
		free_dsa(area, &chunks[i].carried);
	}
	if (gs->fill_inner)
		si->matched = gpuhash_inner_shared_matched(gs, area);
	gs->stats.build_ms += gpuhash_ms_since(t0);
	gs->stats.null_key_rows = sm.n_null;
	gs->stats.inner_rows = sm.n_keyed;
	gpuhash_inner_reset_memory(gs);
}
