/* Day number to ISO date text, precomputed for the whole date range. */
#include "dates.h"

static char table[N_DAYS][11];

static int is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

void dates_init(void)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y = 1992, m = 0, d = 1;

	for (int day = 0; day < N_DAYS; day++) {
		char *p = table[day];

		p[0] = (char)('0' + y / 1000);
		p[1] = (char)('0' + y / 100 % 10);
		p[2] = (char)('0' + y / 10 % 10);
		p[3] = (char)('0' + y % 10);
		p[4] = '-';
		p[5] = (char)('0' + (m + 1) / 10);
		p[6] = (char)('0' + (m + 1) % 10);
		p[7] = '-';
		p[8] = (char)('0' + d / 10);
		p[9] = (char)('0' + d % 10);
		if (++d > mdays[m] + (m == 1 && is_leap(y))) {
			d = 1;
			if (++m == 12) {
				m = 0;
				y++;
			}
		}
	}
}

const char *date_str(int day)
{
	return table[day];
}
