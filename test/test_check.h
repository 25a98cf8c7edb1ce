/*
 * test_check.h
 *		The check of the unit test files that count through two pointers
 *		(core_page.cpp, core_page_bad.cpp, core_agg.cpp): each check adds to
 *		*checks, a failed one to *failures and prints where it was.
 */
#ifndef GPUHASH_TEST_CHECK_H
#define GPUHASH_TEST_CHECK_H

#include <stdio.h>

#define GH_TEST_CHECK(checks, failures, cond, ...) \
	do { \
		(*(checks))++; \
		if (!(cond)) { \
			(*(failures))++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
		} \
	} while (0)

#endif							/* GPUHASH_TEST_CHECK_H */
