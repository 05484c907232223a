/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report_check.h - what "the report loader behaved" means, shared by the
 * libFuzzer harness (fuzz_report_load.c) and the regression test that replays
 * every saved crash (tests/report/test_fuzz_regressions.c).
 *
 * For one input (bytes meant to be a JSON report):
 *   - cJSON_ParseWithLength; input that is not JSON is not the loader's business;
 *   - gb_report_from_json either succeeds, or fails with exactly one non-empty
 *     line in err: no newline or other control character (the line is printed
 *     as it is by the commands that load reports, and comes from the input);
 *   - a failed load leaves the run releasable again, as json.h promises;
 *   - a loaded run prints as text (both layouts), writes back as JSON, and that
 *     JSON loads again to the same document: numbers equal up to the TFLOPS and
 *     GB/s scaling on disk, everything else exactly.
 * Each check returns NULL when all is well, else what broke (fuzz_common.h).
 * Header-only: both users are single files built outside the core library.
 */
#ifndef GPUBENCH_TESTS_FUZZ_REPORT_CHECK_H
#define GPUBENCH_TESTS_FUZZ_REPORT_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/json.h"
#include "report/result.h"
#include "report/text.h"

#include "fuzz_common.h"

/* equal, or within the rounding of the x1e12 (TFLOPS) and x1e9 (GB/s) scaling */
FZ_STATIC int fzr_same_number(double a, double b)
{
	if (a == b)
		return 1;
	if (!isfinite(a) || !isfinite(b))
		return 0;
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* structural equality of two documents, keys and elements in order */
FZ_STATIC int fzr_same_json(const cJSON *a, const cJSON *b, int depth)
{
	const cJSON *x, *y;

	if (depth > 4000 || (a->type & 0xff) != (b->type & 0xff))
		return 0;
	if (cJSON_IsNumber(a))
		return fzr_same_number(a->valuedouble, b->valuedouble);
	if (cJSON_IsString(a))
		return !strcmp(a->valuestring, b->valuestring);
	if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
		return 1;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
		if (cJSON_IsObject(a) &&
		    strcmp(x->string ? x->string : "", y->string ? y->string : ""))
			return 0;
		if (!fzr_same_json(x, y, depth + 1))
			return 0;
	}
	return !x && !y;
}

FZ_STATIC FILE *fzr_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* a loaded run: text, write, load again, same document */
FZ_STATIC const char *fzr_round_trip(const struct gb_run *run)
{
	struct gb_text_opts topts = { .color = true, .device_detail = true };
	struct gb_run again;
	char err[1024] = "";
	const char *why = NULL;
	cJSON *first, *second;

	gb_text_print(run, fzr_devnull(), &topts);
	topts.color = false;
	topts.device_detail = false;
	gb_text_print(run, fzr_devnull(), &topts);
	first = gb_report_to_json(run);
	if (!first)
		return fz_fail("write-null", "gb_report_to_json returned NULL for a loaded run");
	if (gb_report_from_json(first, &again, err, sizeof(err))) {
		cJSON_Delete(first);
		return fz_fail("reload-fails",
			       "a report written from a loaded run does not load again: %.1500s",
			       err);
	}
	second = gb_report_to_json(&again);
	if (!second || !fzr_same_json(first, second, 0)) {
		char *t1 = cJSON_PrintUnformatted(first);
		char *t2 = second ? cJSON_PrintUnformatted(second) : NULL;

		why = fz_fail("round-trip-changed",
			      "load -> write -> load -> write changed the document; "
			      "first: %.900s; second: %.900s",
			      t1 ? t1 : "?", t2 ? t2 : "?");
		cJSON_free(t1);
		cJSON_free(t2);
	}
	cJSON_Delete(second);
	cJSON_Delete(first);
	gb_run_release(&again);
	return why;
}

/* The loader on one parsed document. */
FZ_STATIC const char *fzr_check_doc(const cJSON *doc)
{
	struct gb_run run;
	char err[1024] = "";
	const char *why;

	memset(&run, 0, sizeof(run));
	if (gb_report_from_json(doc, &run, err, sizeof(err)) == 0)
		why = fzr_round_trip(&run);
	else
		why = fz_check_err_line(err, "load");
	/* loaded or not, the run is releasable; after a failed load, again */
	gb_run_release(&run);
	return why;
}

/* The loader on bytes, as the fuzzer gives them. */
FZ_STATIC const char *fzr_check_bytes(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	const char *why;

	if (!doc)
		return NULL;
	why = fzr_check_doc(doc);
	cJSON_Delete(doc);
	return why;
}

/* gb_report_load_file on a saved input: the same checks, through the file reader. */
FZ_STATIC const char *fzr_check_file(const char *path)
{
	struct gb_run run;
	char err[1024] = "";
	const char *why;

	if (gb_report_load_file(path, &run, err, sizeof(err)) == 0)
		why = fzr_round_trip(&run);
	else
		why = fz_check_err_line(err, "load");
	gb_run_release(&run);
	return why;
}

#endif
