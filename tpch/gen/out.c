/* Output buffer flushing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "out.h"

char out_buf[OUT_BUF_SIZE];
char *out_pos = out_buf;

void out_flush(void)
{
	const char *p = out_buf;

	while (p < out_pos) {
		ssize_t n = write(STDOUT_FILENO, p, (size_t)(out_pos - p));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("tpchgen: write");
			exit(1);
		}
		p += n;
	}
	out_pos = out_buf;
}
