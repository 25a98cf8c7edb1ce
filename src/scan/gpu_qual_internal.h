/*-------------------------------------------------------------------------
 *
 * gpu_qual_internal.h
 *	  The qual compiler's state, shared by gpu_qual.c (expressions) and
 *	  gpu_program.c (programs).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_GPU_QUAL_INTERNAL_H
#define GPUHASH_GPU_QUAL_INTERNAL_H

#include "page_scan.h"

/*
 * Where the program goes and how its Vars map to columns: the scan
 * program's own insn[] (scan quals), or an aggregation program's (the join
 * qual and aggregate conditions over both sides of a join), constants in
 * the scan program's pool either way.  Vars of relid are the scan's columns
 * (desc's layout; NULL desc: typed by the Var, the planner's check); other
 * Vars go through inner_col, or are not taken.
 */
typedef struct QualCompiler
{
	gh_page_scan *s;
	TupleDesc	desc;
	Index		relid;
	gh_qinsn   *insn;
	int16_t    *ninsns;
	int			max_insns;
	GpuQualInnerCol inner_col;
	void	   *inner_arg;
} QualCompiler;

extern bool gpuhash_qual_emit(QualCompiler *qc, uint8 op, uint8 b, uint8 c, uint32 a);
extern gh_col_type gpuhash_qual_need_column(QualCompiler *qc, AttrNumber attno);
extern bool gpuhash_qual_compile_bool(QualCompiler *qc, Node *n);

#endif							/* GPUHASH_GPU_QUAL_INTERNAL_H */
