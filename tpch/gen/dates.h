/* Dates as day numbers counted from 1992-01-01 (STARTDATE of the spec). */
#ifndef TPCH_DATES_H
#define TPCH_DATES_H

#define DAY_START 0		/* 1992-01-01 */
#define DAY_CURRENT 1263	/* 1995-06-17, CURRENTDATE */
#define DAY_END 2556		/* 1998-12-31, ENDDATE */
#define N_DAYS (DAY_END + 1)

void dates_init(void);

/* "YYYY-MM-DD" (10 characters, not terminated) for a day number. */
const char *date_str(int day);

#endif
