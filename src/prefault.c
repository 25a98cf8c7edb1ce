/*-------------------------------------------------------------------------
 *
 * prefault.c
 *	  Memory about to be written all over, mapped into the process's page
 *	  table in one call rather than one page fault per 4 kB page.
 *
 * A parallel worker is a new process each query: each page of its own
 * memory and of the query's DSA segments costs it a page fault the first
 * time it writes there.  A GPU join that keeps and shares its inner rows
 * writes many such pages, in every participant: kept tuples and their
 * arrays, the shares copied into the DSA, the shared key filter and
 * layout.  Linux's MADV_POPULATE_WRITE (5.14 on) maps a whole range at
 * once; on an H200 machine it took 0.25 us a page of a DSA segment against
 * 1.5 us a fault, and 1.05 us a page of new private memory against 1.6.
 * Reads gain nothing (a read fault maps 16 pages already).  It is only a
 * hint: on a kernel without it, on a small range, or where it fails, the
 * pages fault as they did before.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

/* gpuhash.prefault */
bool		gpuhash_prefault_on = true;

/* Below this, a call costs about what the faults it saves cost. */
#define PREFAULT_MIN_BYTES ((Size) 64 * 1024)

void
gpuhash_prefault(void *p, Size len)
{
#ifdef MADV_POPULATE_WRITE
	static bool unsupported = false;
	static uintptr_t page = 0;
	uintptr_t	start,
				end;

	if (!gpuhash_prefault_on || unsupported || p == NULL || len < PREFAULT_MIN_BYTES)
		return;
	if (page == 0)
		page = (uintptr_t) sysconf(_SC_PAGESIZE);

	/* whole pages inside the range only: a neighbour's page is left alone */
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + len) & ~(page - 1);
	if (end <= start)
		return;
	if (madvise((void *) start, end - start, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
		unsupported = true;		/* a kernel before 5.14 */
#endif
}

/*
 * The same for a large private buffer written once all over (the GPU
 * service's copy of a dimension's rows): asked first to be backed by
 * transparent huge pages where the kernel gives them on request, so that
 * writing it faults once per 2 MB rather than once per 4 kB page.
 */
#define HUGE_PAGE_BYTES ((Size) 2 * 1024 * 1024)

void
gpuhash_prefault_large(void *p, Size len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	uintptr_t	end = ((uintptr_t) p + len) & ~(page - 1);

	/* below a huge page none can back it, and the call only splits the mapping */
	if (gpuhash_prefault_on && p != NULL && len >= HUGE_PAGE_BYTES && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
	gpuhash_prefault(p, len);
}
