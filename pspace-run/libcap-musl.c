// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's libcap.a and libseccomp.a are built against glibc with
 * _FORTIFY_SOURCE, so they call glibc's checked printf entry points.  musl has no such thing;
 * provide them here (the flag and size checks are glibc's business).
 */
#include <stdarg.h>
#include <stdio.h>

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
int __asprintf_chk(char **s, int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	return n;
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	(void)slen;
	va_start(ap, fmt);
	r = vsnprintf(s, n, fmt, ap);
	va_end(ap);
	return r;
}

int __asprintf_chk(char **s, int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vasprintf(s, fmt, ap);
	va_end(ap);
	return n;
}

/* libseccomp's seccomp_export_pfc() */
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}
