// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's libjson-c.a is built against glibc with _FORTIFY_SOURCE: the
 * checked entry points it calls beyond those of libcap-musl.c, for musl
 * (the size checks are glibc's business).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

char *__strcat_chk(char *dst, const char *src, size_t dstlen);
int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap);
void __vsyslog_chk(int prio, int flag, const char *fmt, va_list ap);

char *__strcat_chk(char *dst, const char *src, size_t dstlen)
{
	(void)dstlen;
	return strcat(dst, src);
}

int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vasprintf(s, fmt, ap);
}

int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vfprintf(f, fmt, ap);
}

int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap)
{
	(void)flag;
	(void)slen;
	return vsnprintf(s, n, fmt, ap);
}

void __vsyslog_chk(int prio, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	vsyslog(prio, fmt, ap);
}
