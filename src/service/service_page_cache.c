/*-------------------------------------------------------------------------
 *
 * service_page_cache.c
 *	  The page cache (gpuhash.page_cache_size): copies of heap pages in the
 *	  memory of the device that walks them, so that a table read again by
 *	  the page path does not cross the link again.  A walk read in place
 *	  otherwise reads every page over PCIe, where the link bounds it (about
 *	  4 M pages a second on an H200) while the kernels could walk ten times
 *	  as many; a page kept on the GPU is read at the device's bandwidth.
 *
 * A copy is named by the page's RelFileNode and block and labelled with the
 * page LSN the backend saw under the share lock (SvcPageTag), and a walk
 * reads it only where the backend saw that LSN again.  Why that is enough
 * (every change to what the walker reads of a WAL-logged relation's page
 * sets a newer LSN; a backend that saw LSN L holds a pin under which the
 * items it lists do not change) is in ARCHITECTURE.md, "The page cache".
 * The backend sends LSN 0 for a page that must not be cached (a relation
 * that skips WAL).
 *
 * Each device has its own cache: stores of PC_ARENA_PAGES pages allocated
 * as they are needed, up to the setting, entries in a hash by key and a
 * clock over them.  A request's pages that hit are held (refs) while its
 * walk reads them; its misses get entries of their own, filled by the walk
 * itself (gh_page_probe_at's fills) and published only after the walk
 * succeeded, replacing an older copy of the page.  A page with no entry to
 * spare is read where it lies, as without the cache.  Everything here runs
 * in the service's threads under the cache's mutex: no PostgreSQL calls.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "service_layout.h"
#include "worker_internal.h"

#include "storage/bufmgr.h"

#include <pthread.h>

/*
 * 512 MB of store a step, made under the cache's lock while other walks
 * wait (a cudaMalloc of 512 MB took 0.07 ms on an H200)
 */
#define PC_ARENA_PAGES	65536
#define PC_MAX_DEVICES	(SVC_MAX_GPUS + 1)	/* [0]: the host twin */

typedef enum PcState
{
	PC_FREE = 0,				/* on the free list */
	PC_FILLING,					/* a walk fills it; not in the hash yet */
	PC_VALID,					/* in the hash */
	PC_STALE					/* replaced while held: freed at its last release */
} PcState;

typedef struct PcKey
{
	Oid			spc;
	Oid			db;
	Oid			rel;
	BlockNumber block;
} PcKey;

typedef struct PcEntry
{
	PcKey		key;
	uint64		lsn;
	int32		next;			/* hash chain, or free list; -1 ends */
	int32		refs;			/* walks reading it now */
	uint8		state;			/* PcState */
	uint8		used;			/* the clock's reference bit */
} PcEntry;

typedef struct PageCache
{
	pthread_mutex_t lock;
	int			ordinal;		/* CUDA device, -1: the host twin */
	bool		failed;			/* a store allocation failed: no more growth */
	uint64		mapped;			/* BufferBlocks as this device reads it */
	uint32		n_arenas;
	uint32		n_entries;		/* over the arenas; only the last is short */
	uint8	  **store;			/* [arena]: PC_ARENA_PAGES pages */
	PcEntry   **entries;		/* [arena]: their entries */
	uint32		max_arenas;		/* room in store[] and entries[] */
	int32	   *buckets;
	uint32		nbuckets;		/* a power of two */
	int32		free_head;
	uint32		hand;			/* the clock */
	int64		held;			/* refs over all entries */
} PageCache;

static PageCache *caches[PC_MAX_DEVICES];
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;

static inline PcEntry *
entry(PageCache *c, int32 i)
{
	return &c->entries[i / PC_ARENA_PAGES][i % PC_ARENA_PAGES];
}

static inline uint64
entry_address(PageCache *c, int32 i)
{
	return (uint64) (uintptr_t) (c->store[i / PC_ARENA_PAGES] +
								 (Size) (i % PC_ARENA_PAGES) * GH_PAGE_SIZE);
}

static inline uint32
key_hash(const PcKey *k)
{
	uint64		h = ((uint64) k->rel << 32 | k->block) * UINT64CONST(0x9E3779B97F4A7C15);

	h ^= ((uint64) k->db << 32 | k->spc) * UINT64CONST(0xC2B2AE3D27D4EB4F);
	return (uint32) (h >> 32);
}

static inline bool
key_equal(const PcKey *a, const PcKey *b)
{
	return a->block == b->block && a->rel == b->rel && a->db == b->db && a->spc == b->spc;
}

/* Pages the setting allows now (0: the cache is off). */
static uint64
allowed_pages(void)
{
	return (uint64) gpuhash_page_cache_mb * (1024 * 1024 / GH_PAGE_SIZE);
}

/* The cache of device ordinal (-1: the host twin), made on first use; NULL on failure. */
static PageCache *
cache_of(int ordinal)
{
	int			i = ordinal + 1;
	PageCache  *c;

	if (i < 0 || i >= PC_MAX_DEVICES)
		return NULL;
	pthread_mutex_lock(&caches_lock);
	c = caches[i];
	if (c == NULL && (c = calloc(1, sizeof(PageCache))) != NULL)
	{
		c->ordinal = ordinal;
		c->free_head = -1;
		pthread_mutex_init(&c->lock, NULL);
		if (gh_page_mapped_address(ordinal, BufferBlocks, &c->mapped) != GH_OK)
			c->failed = true;
		caches[i] = c;
	}
	pthread_mutex_unlock(&caches_lock);
	return c;
}

static void
hash_insert(PageCache *c, int32 i)
{
	PcEntry    *e = entry(c, i);
	uint32		b = key_hash(&e->key) & (c->nbuckets - 1);

	e->next = c->buckets[b];
	c->buckets[b] = i;
}

static void
hash_remove(PageCache *c, int32 i)
{
	PcEntry    *e = entry(c, i);
	int32	   *p = &c->buckets[key_hash(&e->key) & (c->nbuckets - 1)];

	while (*p >= 0 && *p != i)
		p = &entry(c, *p)->next;
	if (*p == i)
		*p = e->next;
	e->next = -1;
}

static int32
hash_find(PageCache *c, const PcKey *k)
{
	if (c->nbuckets == 0)
		return -1;
	for (int32 i = c->buckets[key_hash(k) & (c->nbuckets - 1)]; i >= 0; i = entry(c, i)->next)
		if (key_equal(&entry(c, i)->key, k))
			return i;
	return -1;
}

static void
free_entry(PageCache *c, int32 i)
{
	PcEntry    *e = entry(c, i);

	e->state = PC_FREE;
	e->refs = 0;
	e->next = c->free_head;
	c->free_head = i;
}

/* Buckets for at least n entries (a power of two, about one an entry). */
static bool
size_buckets(PageCache *c, uint64 n)
{
	uint32		nb = 1024;
	int32	   *b;

	while (nb < n && nb < (1U << 30))
		nb <<= 1;
	if (nb <= c->nbuckets)
		return true;
	if ((b = malloc(sizeof(int32) * nb)) == NULL)
		return false;
	memset(b, 0xff, sizeof(int32) * nb);
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = nb;
	/* rehash what is cached */
	for (uint32 i = 0; i < c->n_entries; i++)
		if (entry(c, (int32) i)->state == PC_VALID)
			hash_insert(c, (int32) i);
	return true;
}

/*
 * One more arena of store and entries, within the setting (a short one
 * where less than an arena is left of it); false if none.
 */
static bool
grow(PageCache *c)
{
	uint8	   *store;
	PcEntry    *es;
	uint32		a = c->n_arenas;
	uint64		allowed = Min(allowed_pages(), (uint64) INT32_MAX);
	uint32		n;

	/* a short arena is the last one */
	if (c->failed || c->n_entries % PC_ARENA_PAGES != 0 || c->n_entries >= allowed)
		return false;
	n = (uint32) Min((uint64) PC_ARENA_PAGES, allowed - c->n_entries);
	if (a == c->max_arenas)
	{
		uint32		m = Max(16, c->max_arenas * 2);
		uint8	  **s = realloc(c->store, sizeof(uint8 *) * m);
		PcEntry   **e;

		if (s == NULL)
			return false;
		c->store = s;
		if ((e = realloc(c->entries, sizeof(PcEntry *) * m)) == NULL)
			return false;
		c->entries = e;
		c->max_arenas = m;
	}
	/*
	 * Buckets for every page the setting allows, from the first arena on: a
	 * rehash runs under the cache's lock, over entries scattered in memory,
	 * while every walk waits for it
	 */
	if (!size_buckets(c, allowed))
		return false;
	if ((es = calloc(n, sizeof(PcEntry))) == NULL)
		return false;
	if (gh_page_store_alloc(c->ordinal, n, &store) != GH_OK)
	{
		/* the device is full: the cache keeps what it has */
		free(es);
		c->failed = true;
		return false;
	}
	c->store[a] = store;
	c->entries[a] = es;
	c->n_arenas = a + 1;
	c->n_entries += n;
	for (int32 j = (int32) n - 1; j >= 0; j--)
		free_entry(c, (int32) (a * PC_ARENA_PAGES) + j);
	return true;
}

/*
 * An entry to fill: a free one, a new arena's, or the clock's next entry
 * that no walk holds and none read since the hand last passed; -1 if none.
 */
static int32
take_entry(PageCache *c)
{
	uint32		n = c->n_entries;

	if (c->free_head < 0)
		(void) grow(c);
	if (c->free_head >= 0)
	{
		int32		i = c->free_head;

		c->free_head = entry(c, i)->next;
		return i;
	}
	for (uint32 step = 0; step < 2 * n; step++)
	{
		int32		i = (int32) (c->hand++ % n);
		PcEntry    *e = entry(c, i);

		if (e->state != PC_VALID || e->refs > 0)
			continue;
		if (e->used)
		{
			e->used = 0;
			continue;
		}
		hash_remove(c, i);
		return i;
	}
	return -1;
}

/*
 * How far ahead the lookups of a request's pages load their bucket and
 * their entry.  Each is a cache miss (the buckets and entries of a cache
 * of millions of pages lie far beyond the CPU's caches), two a page, all
 * under the cache's lock, which every walk on the device takes: without
 * them in flight, a request of 4 096 pages held it for about a
 * millisecond.
 */
#define PC_AHEAD 16

static inline void
prefetch_ahead(PageCache *c, SvcSlot *s, const SvcPageTag *tags, uint32 p, uint32 n)
{
	if (c->nbuckets == 0)
		return;
	if (p + 2 * PC_AHEAD < n)
	{
		PcKey		k = {s->page_spc, s->page_db, s->page_rel, tags[p + 2 * PC_AHEAD].block};

		__builtin_prefetch(&c->buckets[key_hash(&k) & (c->nbuckets - 1)]);
	}
	if (p + PC_AHEAD < n)
	{
		PcKey		k = {s->page_spc, s->page_db, s->page_rel, tags[p + PC_AHEAD].block};
		int32		i = c->buckets[key_hash(&k) & (c->nbuckets - 1)];

		if (i >= 0)
			__builtin_prefetch(entry(c, i));
	}
}

/*
 * Where the walk of request s's n pages reads each: refs copied into
 * h->refs by address, a hit at its copy, a miss at an entry it fills
 * (h->fills), or where it lies if there is none to spare.  False when the
 * cache is off for it (nothing held): off, a request not read in place or
 * naming no relation, no tags (a layout without them).  Then walk the
 * request as it came.
 */
bool
svc_page_cache_begin(SvcSlot *s, int ordinal, const gh_page_ref *refs, const SvcPageTag *tags,
					 uint32 n, SvcPageCacheHold *h)
{
	PageCache  *c;

	memset(h, 0, sizeof(*h));
	if (allowed_pages() == 0 || !s->in_place || s->page_rel == InvalidOid || tags == NULL ||
		n == 0 || (c = cache_of(ordinal)) == NULL || c->mapped == 0)
		return false;
	h->refs = malloc(sizeof(gh_page_ref) * n);
	h->fills = malloc(sizeof(gh_page_fill) * n);
	h->held = malloc(sizeof(int32) * n);
	if (h->refs == NULL || h->fills == NULL || h->held == NULL)
	{
		svc_page_cache_end(h, false);
		return false;
	}
	h->cache = c;
	memcpy(h->refs, refs, sizeof(gh_page_ref) * n);

	pthread_mutex_lock(&c->lock);
	for (uint32 p = 0; p < n; p++)
	{
		PcKey		k = {s->page_spc, s->page_db, s->page_rel, tags[p].block};
		int32		i;
		PcEntry    *e;

		/* the bucket, then the entry, of the pages ahead (see prefetch_ahead) */
		prefetch_ahead(c, s, tags, p, n);

		if (tags[p].lsn == 0)
		{
			h->refs[p].offset = c->mapped + refs[p].offset;
			continue;
		}
		i = hash_find(c, &k);
		if (i >= 0 && entry(c, i)->lsn == tags[p].lsn)
		{
			e = entry(c, i);
			e->refs++;
			e->used = 1;
			c->held++;
			h->held[h->n_held++] = i;
			h->refs[p].offset = entry_address(c, i);
			h->stored++;
			continue;
		}
		if ((i = take_entry(c)) < 0)
		{
			h->refs[p].offset = c->mapped + refs[p].offset;
			continue;
		}
		e = entry(c, i);
		e->key = k;
		e->lsn = tags[p].lsn;
		e->state = PC_FILLING;
		e->refs = 1;
		e->used = 1;
		e->next = -1;
		c->held++;
		h->held[h->n_held++] = i;
		h->fills[h->n_fills].src = c->mapped + refs[p].offset;
		h->fills[h->n_fills].dst = entry_address(c, i);
		h->n_fills++;
		h->refs[p].offset = entry_address(c, i);
		h->stored++;
	}
	pthread_mutex_unlock(&c->lock);
	return true;
}

/*
 * For a walk that reads every page by address (a dimension's rows, an
 * aggregate's fold): the request's pages taken into the cache as above and
 * its misses copied into their store pages now, on the device, before the
 * walk; then *refs, *pages and *pages_bytes name the pages where the walk
 * reads them.  A request the cache does not take is left as it came.
 */
gh_status
svc_page_cache_fill(SvcSlot *s, int ordinal, const SvcPageTag *tags, const gh_page_ref **refs,
					const uint8 **pages, size_t *pages_bytes, SvcPageCacheHold *h)
{
	if (!svc_page_cache_begin(s, ordinal, *refs, tags, (uint32) s->n, h))
		return GH_OK;
	*refs = h->refs;
	*pages = NULL;
	*pages_bytes = GH_PAGE_DATA_AT;
	return gh_page_fill_pages(ordinal, h->fills, h->n_fills);
}

/*
 * The walk is over: its entries let go; after a walk that succeeded (ok)
 * the pages it filled go into the hash, each replacing an older copy of
 * its page, and after one that failed they go back to the free list.
 */
void
svc_page_cache_end(SvcPageCacheHold *h, bool ok)
{
	PageCache  *c = h->cache;

	if (c != NULL)
	{
		pthread_mutex_lock(&c->lock);
		for (uint32 j = 0; j < h->n_held; j++)
		{
			int32		i = h->held[j];
			PcEntry    *e = entry(c, i);

			if (j + PC_AHEAD < h->n_held)
				__builtin_prefetch(entry(c, h->held[j + PC_AHEAD]), 1);

			c->held--;
			if (e->state == PC_FILLING)
			{
				int32		old;

				e->refs = 0;
				if (!ok)
				{
					free_entry(c, i);
					continue;
				}
				if ((old = hash_find(c, &e->key)) >= 0)
				{
					/* an older copy, or one a concurrent walk filled */
					hash_remove(c, old);
					if (entry(c, old)->refs > 0)
						entry(c, old)->state = PC_STALE;
					else
						free_entry(c, old);
				}
				e->state = PC_VALID;
				hash_insert(c, i);
			}
			else if (--e->refs == 0 && e->state == PC_STALE)
				free_entry(c, i);
		}
		pthread_mutex_unlock(&c->lock);
	}
	free(h->refs);
	free(h->fills);
	free(h->held);
	memset(h, 0, sizeof(*h));
}

/*
 * A changed setting, applied once no walk holds a page of a device's
 * cache: off (0), smaller than the cache, or larger where its last arena
 * is short, the store goes back and the cache starts over at the new
 * size.  The dispatcher's sweep calls this.
 */
void
svc_page_cache_trim(void)
{
	uint64		allowed = allowed_pages();

	for (int d = 0; d < PC_MAX_DEVICES; d++)
	{
		PageCache  *c = caches[d];

		if (c == NULL)
			continue;
		pthread_mutex_lock(&c->lock);
		if (c->n_arenas > 0 && c->held == 0 &&
			(allowed < c->n_entries ||
			 (c->n_entries % PC_ARENA_PAGES != 0 && allowed > c->n_entries)))
		{
			for (uint32 a = 0; a < c->n_arenas; a++)
			{
				gh_page_store_free(c->ordinal, c->store[a]);
				free(c->entries[a]);
			}
			c->n_arenas = 0;
			c->n_entries = 0;
			c->free_head = -1;
			c->hand = 0;
			c->failed = false;
			if (c->buckets)
				memset(c->buckets, 0xff, sizeof(int32) * c->nbuckets);
		}
		pthread_mutex_unlock(&c->lock);
	}
}
