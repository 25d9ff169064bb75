#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

void
msg_warnx(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fputs("tapd-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errno = saved;
}

void
msg_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fputs("tapd-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	errno = saved;
}
