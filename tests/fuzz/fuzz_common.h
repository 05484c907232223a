/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - how the fuzz checks (fuzz_*_check.h) say what broke, shared
 * by the libFuzzer harnesses and tests/report/test_fuzz_regressions.c.
 *
 * A check returns NULL when all is well, else a message (control characters
 * written as \xNN, so printing it is safe); fz_last.id then
 * names the kind of failure ("load-error-ctrl", "round-trip-changed", ...).
 * A bug that is known and not fixed yet is listed, with its id, in
 * tests/data/fuzz-regressions/known-open.txt: build-and-run.sh passes those ids
 * to the harnesses in GPUBENCH_FUZZ_TOLERATE (comma-separated) so fuzzing can
 * look for other bugs meanwhile, and the regression test reports inputs that
 * fail only that way as skipped, not passed, until the entry is removed.
 */
#ifndef GPUBENCH_TESTS_FUZZ_COMMON_H
#define GPUBENCH_TESTS_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* functions of these header-only checks: each user needs only some of them */
#define FZ_STATIC static __attribute__((unused))

struct fz_failure {
	char id[48];
	char why[2048];
};

static struct fz_failure fz_last;

__attribute__((format(printf, 2, 3))) FZ_STATIC const char *fz_fail(const char *id, const char *fmt,
								    ...)
{
	va_list ap;

	char raw[sizeof(fz_last.why)];
	size_t o = 0;

	snprintf(fz_last.id, sizeof(fz_last.id), "%s", id);
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* the message quotes hostile input: control characters are shown, never sent */
	for (const char *p = raw; *p && o + 5 < sizeof(fz_last.why); p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(fz_last.why + o, sizeof(fz_last.why) - o, "\\x%02x",
					      c);
		else
			fz_last.why[o++] = (char)c;
	}
	fz_last.why[o] = '\0';
	return fz_last.why;
}

/*
 * err holds one non-empty line without control characters: loaders' error
 * messages are printed as they are, and quote their input. The failure ids are
 * "<kind>-error-empty" and "<kind>-error-ctrl".
 */
FZ_STATIC const char *fz_check_err_line(const char *err, const char *kind)
{
	char id[48];

	if (!err[0]) {
		snprintf(id, sizeof(id), "%s-error-empty", kind);
		return fz_fail(id, "a failed %s left its error message empty", kind);
	}
	for (const char *p = err; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(id, sizeof(id), "%s-error-ctrl", kind);
			return fz_fail(id,
				       "a %s error holds control character 0x%02x at byte %zu, so "
				       "it is not one clean line: %.1500s",
				       kind, (unsigned)(unsigned char)*p, (size_t)(p - err), err);
		}
	}
	return NULL;
}

/* is id one of the comma-separated ids in list? */
FZ_STATIC bool fz_listed(const char *id, const char *list)
{
	size_t n = strlen(id);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ", ");

		if (len == n && !strncmp(p, id, n))
			return true;
		p += len;
		p += strspn(p, ", ");
	}
	return false;
}

/*
 * The body of every harness's LLVMFuzzerTestOneInput: run the check, and abort
 * (a crash to libFuzzer, which saves the input) when it fails, unless the
 * failure's id is in GPUBENCH_FUZZ_TOLERATE (comma-separated; build-and-run.sh
 * sets it from known-open.txt) so fuzzing goes on past a known open bug.
 */
FZ_STATIC int fz_run(const char *harness, const char *(*check)(const uint8_t *, size_t),
		     const uint8_t *data, size_t size)
{
	static const char *tolerate;
	const char *why;

	if (!tolerate) {
		tolerate = getenv("GPUBENCH_FUZZ_TOLERATE");
		if (!tolerate)
			tolerate = "";
	}
	why = check(data, size);
	if (why && !fz_listed(fz_last.id, tolerate)) {
		fprintf(stderr, "%s: [%s] %s\n", harness, fz_last.id, why);
		abort();
	}
	return 0;
}

#endif
