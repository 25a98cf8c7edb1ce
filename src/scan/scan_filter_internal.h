/*-------------------------------------------------------------------------
 *
 * scan_filter_internal.h
 *	  A compiled in-place filter (GpuScanFilter), between its compiler
 *	  (scan_filter.c) and its evaluation on heap tuples (scan_filter_eval.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_SCAN_FILTER_INTERNAL_H
#define GPUHASH_SCAN_FILTER_INTERNAL_H

#include "gpuhash.h"

#include "fmgr.h"
#include "utils/memutils.h"

/* The comparison a clause makes of its two operands' order. */
typedef enum FilterOp
{
	FOP_LT,
	FOP_LE,
	FOP_EQ,
	FOP_NE,
	FOP_GE,
	FOP_GT
} FilterOp;

/* How the two operands compare. */
typedef enum FilterMode
{
	FMODE_INT,					/* as signed integers: the same type, or ints */
	FMODE_DATE_TS,				/* a date against a timestamp */
	FMODE_TS_DATE,				/* a timestamp against a date */
	FMODE_TEXT,					/* text: bytes, under a deterministic collation */
	FMODE_BPCHAR				/* char(n): bytes without trailing spaces */
} FilterMode;

typedef enum FilterKind
{
	FK_CMP,						/* column op column, or column op constant */
	FK_IN,						/* column = ANY (constants) */
	FK_IS_NULL,
	FK_NOT_NULL
} FilterKind;

/* A string constant, without its header (and a char(n)'s trailing spaces). */
typedef struct FilterString
{
	const char *data;
	int			len;
} FilterString;

/*
 * A clause: operand -1 is its constant, others index the filter's columns.
 * FK_IN and string comparisons have column col[0] and constants vals[].
 */
typedef struct FilterTerm
{
	uint8		kind;			/* FilterKind */
	uint8		op;				/* FilterOp */
	uint8		mode;			/* FilterMode */
	int8		col[2];			/* a NULL test: col[0] */
	int64		cst[2];
	int			nvals;
	int64	   *ivals;			/* FK_IN of integers */
	FilterString *svals;		/* strings: FK_IN, or FK_CMP's one constant */
} FilterTerm;

#define FILTER_MAX_TERMS 16
#define FILTER_MAX_COLS 8

struct GpuScanFilter
{
	int			nterms;
	FilterTerm	terms[FILTER_MAX_TERMS];
	int			ncols;
	int16		attnum[FILTER_MAX_COLS];	/* 0-based, ascending once compiled */
	uint8		width[FILTER_MAX_COLS]; /* filter_column() */
	/* a tuple without NULLs: its first skip columns end at skip_off */
	int			skip;
	uint32		skip_off;
	MemoryContext detoast_cxt;	/* a compressed or out-of-line string's copy */
};

/* Is this a string comparison (operands of width 0: varlenas)? */
static inline bool
string_mode(uint8 mode)
{
	return mode == FMODE_TEXT || mode == FMODE_BPCHAR;
}

/* A detoasted string's bytes as the filter compares them: char(n)'s without trailing spaces. */
static inline FilterString
string_bytes(struct varlena *v, uint8 mode)
{
	FilterString fs;

	fs.data = VARDATA_ANY(v);
	fs.len = VARSIZE_ANY_EXHDR(v);
	while (mode == FMODE_BPCHAR && fs.len > 0 && fs.data[fs.len - 1] == ' ')
		fs.len--;
	return fs;
}

/* A by-value datum of width bytes as int64. */
static inline int64
datum_int64(Datum d, int width)
{
	switch (width)
	{
		case 2:
			return DatumGetInt16(d);
		case 4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

#endif							/* GPUHASH_SCAN_FILTER_INTERNAL_H */
