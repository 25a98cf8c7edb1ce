/*-------------------------------------------------------------------------
 *
 * buffer_hint.h
 *	  The page path's pins through shared hints of where a block's buffer
 *	  is (buffer_hint.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_BUFFER_HINT_H
#define GPUHASH_BUFFER_HINT_H

#include "storage/bufmgr.h"
#include "access/relscan.h"
#include "utils/relcache.h"

extern void gpuhash_buffer_hints_register(void);
extern Buffer gpuhash_read_hinted_buffer(Relation rel, BlockNumber blk,
										 BufferAccessStrategy strategy);
extern void gpuhash_heap_getpage(TableScanDesc sscan, BlockNumber blk);

#endif
