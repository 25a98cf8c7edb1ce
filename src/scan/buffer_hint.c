/*-------------------------------------------------------------------------
 *
 * buffer_hint.c
 *	  Pinning an absorbed scan's heap pages (the page path's, and the tuple
 *	  path's all-visible ones) without the buffer mapping lookup: the
 *	  buffer after this backend's last one of the table where it lies in
 *	  order, or a shared table of hints that remembers which buffer last
 *	  held a block; ReadRecentBuffer pins that buffer if it still holds the
 *	  block.
 *
 * ReadBufferExtended finds a block's buffer through the shared buffer
 * mapping table: a hash of the block's tag, a partition lock taken and
 * released, and a walk of a bucket's chain, cache misses all (perf, host
 * twin: three quarters of pinning an all-visible page).  A scan of a
 * relation whose pages are in shared buffers finds each block where the
 * last scan found it.  The hints are slots of a direct-mapped array in
 * shared memory, two per shared buffer: a relation's consecutive blocks
 * land in consecutive slots, so a scan reads the hints in order.  A hint
 * is only a guess: ReadRecentBuffer pins the buffer only after checking,
 * under the buffer header's lock, that it is valid and holds this very
 * block, so a stale or overwritten hint costs a look at one buffer header
 * and the ordinary lookup after it, never a wrong page.  Hints are written
 * and read as single 32-bit atomics, without a lock.
 *
 * Only with gpuhash in shared_preload_libraries (LOAD alone has no shared
 * memory of its own: every page then takes the ordinary lookup).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "buffer_hint.h"

#include "access/heapam.h"
#include "access/relscan.h"
#include "access/xact.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/rel.h"

static pg_atomic_uint32 *hints = NULL;
static uint32 hint_mask = 0;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Two slots per shared buffer, a power of two. */
static uint32
hint_slots(void)
{
	uint32		n = 1024;

	while (n < (uint32) NBuffers * 2 && n < (UINT32_C(1) << 30))
		n <<= 1;
	return n;
}

static void
hint_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(pg_atomic_uint32) * (Size) hint_slots()));
}

static void
hint_shmem_startup(void)
{
	bool		found;
	uint32		n = hint_slots();

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	hints = ShmemInitStruct("gpuhash buffer hints", sizeof(pg_atomic_uint32) * (Size) n, &found);
	if (!found)
	{
		for (uint32 i = 0; i < n; i++)
			pg_atomic_init_u32(&hints[i], InvalidBuffer);
	}
	hint_mask = n - 1;
	LWLockRelease(AddinShmemInitLock);
}

/* From _PG_init, while shared_preload_libraries load. */
void
gpuhash_buffer_hints_register(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = hint_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = hint_shmem_startup;
}

/* Where a relation's block 0 lands: its relfilenode hashed. */
static inline uint32
rel_base(Relation rel)
{
	return hash_bytes_uint32(rel->rd_node.relNode ^
							 (rel->rd_node.dbNode * UINT32_C(0x9e3779b9)));
}

/*
 * This backend's last pinned block of a few relations.  A load, a serial
 * scan or pg_prewarm leaves a table's consecutive blocks in consecutive
 * buffers, so the block d past the last one is usually d buffers past its
 * buffer, whatever the shared hints say: two relations whose runs of hint
 * slots overlap overwrite each other's hints in every scan of both.  The
 * guess is tried only while it has been right for that relation (a table
 * read in by a parallel scan lies interleaved, and a wrong guess costs a
 * look at a buffer header), and checked as a hint is.
 */
typedef struct RecentPin
{
	Oid			relnode;
	BlockNumber blk;
	Buffer		buf;
	bool		in_order;		/* the last guess was right, or none made */
} RecentPin;

#define RECENT_PINS 8
#define IN_ORDER_REACH 64		/* blocks ahead a guess reaches */

/*
 * While a table lies in order, the page PREFETCH_AHEAD buffers on is asked
 * for as this one is pinned: its header and first PREFETCH_LINES cache
 * lines of line pointers (about 58 items), which its reader lists next.  A
 * page's header sits 8 kB from the last one, past what the CPU's own
 * prefetchers follow, so each page otherwise starts with a wait on memory.
 */
#define PREFETCH_AHEAD 2
#define PREFETCH_LINES 4

static RecentPin recent_pins[RECENT_PINS];

/*
 * Buffer cand pinned if it holds block blk of rel's main fork (counted as
 * ReadBufferExtended counts a hit); false otherwise.  An unlocked look at
 * the header's tag filters out wrong candidates without its lock;
 * ReadRecentBuffer checks again under the lock.
 */
static bool
pin_if_holds(Relation rel, BlockNumber blk, Buffer cand)
{
	BufferDesc *hdr;
	volatile BufferTag *tag;

	if (cand <= 0 || cand > NBuffers)
		return false;
	hdr = GetBufferDescriptor(cand - 1);
	tag = &hdr->tag;
	if (tag->blockNum != blk || tag->rnode.relNode != rel->rd_node.relNode ||
		tag->forkNum != MAIN_FORKNUM ||
		!ReadRecentBuffer(rel->rd_node, MAIN_FORKNUM, blk, cand))
		return false;
	pgstat_count_buffer_read(rel);
	pgstat_count_buffer_hit(rel);
	return true;
}

/*
 * Block blk of rel's main fork, pinned (no content lock), as
 * ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy) gives
 * it: the buffer after this backend's last one of rel where the table lies
 * in order, else through the shared hint where it still holds, else the
 * ordinary way (and the hint remembers it).
 */
Buffer
gpuhash_read_hinted_buffer(Relation rel, BlockNumber blk, BufferAccessStrategy strategy)
{
	RecentPin  *rp = &recent_pins[rel->rd_node.relNode % RECENT_PINS];
	Buffer		guess = InvalidBuffer;
	pg_atomic_uint32 *slot;
	Buffer		buf;

	if (hints == NULL || RelationUsesLocalBuffers(rel))
		return ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	if (rp->relnode != rel->rd_node.relNode)
	{
		rp->relnode = rel->rd_node.relNode;
		rp->buf = InvalidBuffer;
		rp->in_order = true;
	}
	else if (BufferIsValid(rp->buf) && blk > rp->blk && blk - rp->blk <= IN_ORDER_REACH)
		guess = rp->buf + (Buffer) (blk - rp->blk);
	if (guess != InvalidBuffer && rp->in_order && pin_if_holds(rel, blk, guess))
		buf = guess;
	else
	{
		slot = &hints[(rel_base(rel) + blk) & hint_mask];
		buf = (Buffer) pg_atomic_read_u32(slot);
		if (!pin_if_holds(rel, blk, buf))
		{
			buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
			pg_atomic_write_u32(slot, (uint32) buf);
		}
		/* would the guess have been right?  Then try the next one */
		if (guess != InvalidBuffer)
			rp->in_order = buf == guess;
	}
	rp->blk = blk;
	rp->buf = buf;
	if (rp->in_order && buf > 0 && buf <= NBuffers - PREFETCH_AHEAD)
	{
		const char *ahead = BufferGetBlock(buf + PREFETCH_AHEAD);

		for (int i = 0; i < PREFETCH_LINES; i++)
			gpuhash_prefetch(ahead + i * 64);
	}
	return buf;
}

/*
 * heapgetpage(sscan, blk) for the tuple path's page loop (heap_scan.c), with
 * an all-visible page pinned through its hint: the same visible tuples in
 * rs_vistuples, the page pinned in rs_cbuf.  For an all-visible page
 * heapgetpage takes every LP_NORMAL item under the share lock without a
 * visibility test (a snapshot taken during recovery excepted), which is
 * what this does; it skips the opportunistic pruning, as the page path does
 * on such pages (an all-visible page has nothing to prune), and the
 * serializable conflict checks, by leaving SERIALIZABLE to heapgetpage.
 * Any other page, and every page where hints are off, goes to heapgetpage.
 */
void
gpuhash_heap_getpage(TableScanDesc sscan, BlockNumber blk)
{
	HeapScanDesc scan = (HeapScanDesc) sscan;
	Relation	rel = sscan->rs_rd;
	Buffer		buf;
	Page		page;
	OffsetNumber maxoff;
	int			n = 0;

	if (hints == NULL || RelationUsesLocalBuffers(rel) || IsolationIsSerializable() ||
		sscan->rs_snapshot->takenDuringRecovery || !(sscan->rs_flags & SO_ALLOW_PAGEMODE))
	{
		heapgetpage(sscan, blk);
		return;
	}
	/* as heapgetpage: the last page's pin goes first */
	if (BufferIsValid(scan->rs_cbuf))
	{
		ReleaseBuffer(scan->rs_cbuf);
		scan->rs_cbuf = InvalidBuffer;
	}
	CHECK_FOR_INTERRUPTS();
	buf = gpuhash_read_hinted_buffer(rel, blk, scan->rs_strategy);
	page = BufferGetPage(buf);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	/* as heapgetpage: a page changed past an old snapshot's horizon errors */
	TestForOldSnapshot(sscan->rs_snapshot, rel, page);
	maxoff = PageGetMaxOffsetNumber(page);
	if (!PageIsAllVisible(page) || maxoff > MaxHeapTuplesPerPage)
	{
		/* heapam's way: pruning and visibility under a pin of its own */
		UnlockReleaseBuffer(buf);
		heapgetpage(sscan, blk);
		return;
	}
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		if (ItemIdIsNormal(PageGetItemId(page, off)))
			scan->rs_vistuples[n++] = off;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	scan->rs_cbuf = buf;
	scan->rs_cblock = blk;
	scan->rs_ntuples = n;
}
