/*
 * Buffered writer for PostgreSQL COPY text rows (tab separated, newline
 * terminated). Generated values never contain tabs, newlines or backslashes,
 * so no escaping is needed. Formatting is hand-written because printf would
 * dominate the generator's run time.
 */
#ifndef TPCH_OUT_H
#define TPCH_OUT_H

#include <stdint.h>
#include <string.h>

#include "dates.h"

#define OUT_BUF_SIZE (1u << 20)
#define OUT_ROW_MAX 4096

extern char out_buf[OUT_BUF_SIZE];
extern char *out_pos;

void out_flush(void);

/* Call after every row: keeps room for the longest possible next row. */
static inline void out_row_end(void)
{
	out_pos[-1] = '\n';	/* replaces the last field separator */
	if (out_pos > out_buf + OUT_BUF_SIZE - OUT_ROW_MAX)
		out_flush();
}

static inline void out_mem(const char *s, int n)
{
	memcpy(out_pos, s, (size_t)n);
	out_pos += n;
	*out_pos++ = '\t';
}

static inline void out_str(const char *s)
{
	out_mem(s, (int)strlen(s));
}

static inline char *put_uint(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline void out_int(int64_t v)
{
	if (v < 0) {
		*out_pos++ = '-';
		v = -v;
	}
	out_pos = put_uint(out_pos, (uint64_t)v);
	*out_pos++ = '\t';
}

/* A decimal(15,2) value given in hundredths. */
static inline void out_money(int64_t cents)
{
	if (cents < 0) {
		*out_pos++ = '-';
		cents = -cents;
	}
	out_pos = put_uint(out_pos, (uint64_t)(cents / 100));
	*out_pos++ = '.';
	*out_pos++ = (char)('0' + cents / 10 % 10);
	*out_pos++ = (char)('0' + cents % 10);
	*out_pos++ = '\t';
}

/* PREFIX followed by the number zero-padded to 9 digits, e.g. Supplier#000000001. */
static inline void out_tag9(const char *prefix, int64_t v)
{
	size_t n = strlen(prefix);

	memcpy(out_pos, prefix, n);
	out_pos += n;
	for (int i = 8; i >= 0; i--) {
		out_pos[i] = (char)('0' + v % 10);
		v /= 10;
	}
	out_pos += 9;
	*out_pos++ = '\t';
}

static inline void out_date(int day)
{
	out_mem(date_str(day), 10);
}

#endif
