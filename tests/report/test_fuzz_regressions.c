/* SPDX-License-Identifier: MIT */
/*
 * test_fuzz_regressions.c - every input the fuzzers ever broke something with
 * stays fixed. Replays each file of tests/data/fuzz-regressions/ (and the
 * seed corpora of tests/fuzz/corpus/) through the same checks the libFuzzer
 * harnesses apply (tests/fuzz/fuzz_*_check.h):
 *
 *   report_load-<what>.json   gb_report_from_json on the parsed bytes, and
 *                             gb_report_load_file on the file itself
 *   cli-<what>.txt            gb_cli_parse on the NUL/newline-separated argv
 *   thresholds-<what>.json    gb_thresholds_from_json on the parsed bytes, and
 *                             gb_thresholds_load_file on the file itself
 *   stress_thresholds-<what>  gb_stress_thresholds_parse (stress --thresholds)
 *
 * Under `make sanitize` this runs with ASan and UBSan, so memory errors and
 * undefined behaviour found by fuzzing are pinned too, not only broken checks.
 *
 * A bug that is known and not fixed yet is listed in known-open.txt there
 * (harness, check id, owner file, what): inputs failing only that way are
 * reported and the test is marked skipped, never passed; an entry whose
 * inputs all pass fails the test, so the line is removed once the bug is fixed.
 *
 * Environment (set by ctest): GPUBENCH_TEST_DATA, the tests/data folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_cli_check.h"
#include "tests/fuzz/fuzz_report_check.h"
#include "tests/fuzz/fuzz_stress_thresholds_check.h"
#include "tests/fuzz/fuzz_thresholds_check.h"

#define MAX_OPEN 64

struct open_bug {
	char harness[32];
	char id[48];
	int hits; /* saved inputs that still fail this way */
};

static struct open_bug open_bugs[MAX_OPEN];
static size_t n_open;
static char data_dir[4096];

static int read_known_open(void)
{
	char path[4200], line[1024];
	FILE *f;

	n_open = 0;
	snprintf(path, sizeof(path), "%s/fuzz-regressions/known-open.txt", data_dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		struct open_bug *b;

		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (n_open == MAX_OPEN) {
			print_error("known-open.txt: more than %d entries\n", MAX_OPEN);
			fclose(f);
			return -1;
		}
		b = &open_bugs[n_open];
		memset(b, 0, sizeof(*b));
		if (sscanf(line, "%31s %47s", b->harness, b->id) != 2) {
			print_error("known-open.txt: cannot read '%s'\n", line);
			fclose(f);
			return -1;
		}
		n_open++;
	}
	fclose(f);
	return 0;
}

static struct open_bug *find_open(const char *harness, const char *id)
{
	for (size_t i = 0; i < n_open; i++)
		if (!strcmp(open_bugs[i].harness, harness) && !strcmp(open_bugs[i].id, id))
			return &open_bugs[i];
	return NULL;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		print_error("cannot read '%s'\n", path);
		fail();
	}
	for (;;) {
		size_t r;

		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* one input through one harness's checks; NULL when all is well */
static const char *check_one(const char *harness, const char *path)
{
	size_t len;
	uint8_t *data = slurp(path, &len);
	const char *why = NULL;

	if (!strcmp(harness, "report_load")) {
		why = fzr_check_bytes(data, len);
		if (!why)
			why = fzr_check_file(path);
	} else if (!strcmp(harness, "thresholds")) {
		why = fzt_check_bytes(data, len);
		if (!why)
			why = fzt_check_file(path);
	} else if (!strcmp(harness, "stress_thresholds")) {
		why = fzs_check_bytes(data, len);
	} else if (!strcmp(harness, "cli")) {
		why = fzc_check_bytes(data, len);
	} else {
		why = fz_fail("no-harness", "no check for harness '%s'", harness);
	}
	free(data);
	return why;
}

struct tally {
	int passed;
	int open;
	int failed;
};

/* every regular file of dir (prefix "" = all, else only "<harness>-*") */
static void replay_dir(const char *dir, const char *harness, bool by_prefix, bool quiet,
		       struct tally *t)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0)
		return; /* no such folder: nothing saved yet */
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t hl = strlen(harness);
		char path[4400];
		const char *why;

		if (name[0] == '.' || !strcmp(name, "known-open.txt") ||
		    !strcmp(name, "README.md") ||
		    (by_prefix && (strncmp(name, harness, hl) || name[hl] != '-')))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		why = check_one(harness, path);
		if (!why) {
			t->passed++;
		} else {
			struct open_bug *b = find_open(harness, fz_last.id);

			if (b) {
				b->hits++;
				t->open++;
				if (!quiet)
					print_message("known open bug [%s] %s: %s\n", fz_last.id,
						      name, why);
			} else {
				t->failed++;
				print_error("%s: [%s] %s\n", path, fz_last.id, why);
			}
		}
next:
		free(names[i]);
	}
	free(names);
}

static void replay_harness(const char *harness)
{
	struct tally t = { 0, 0, 0 };
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/fuzz-regressions", data_dir);
	replay_dir(dir, harness, true, false, &t);
	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus/%s", data_dir, harness);
	replay_dir(dir, harness, false, false, &t);
	print_message("%s: %d inputs pass, %d fail with a known open bug, %d fail\n", harness,
		      t.passed, t.open, t.failed);
	assert_int_equal(t.failed, 0);
	if (t.open)
		skip();
}

static void test_report_load_regressions(void **state)
{
	(void)state;
	replay_harness("report_load");
}

static void test_thresholds_regressions(void **state)
{
	(void)state;
	replay_harness("thresholds");
}

static void test_stress_thresholds_regressions(void **state)
{
	(void)state;
	replay_harness("stress_thresholds");
}

static void test_cli_regressions(void **state)
{
	(void)state;
	replay_harness("cli");
}

/* every saved input is named after a harness this test knows */
static void test_names(void **state)
{
	static const char *const known[] = { "report_load-", "cli-", "thresholds-",
					     "stress_thresholds-" };
	struct dirent **names = NULL;
	char dir[4200];
	int n, bad = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/fuzz-regressions", data_dir);
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		bool ok = name[0] == '.' || !strcmp(name, "known-open.txt") ||
			  !strcmp(name, "README.md");

		for (size_t k = 0; !ok && k < sizeof(known) / sizeof(known[0]); k++)
			ok = !strncmp(name, known[k], strlen(known[k]));
		if (!ok) {
			print_error("%s/%s: not named <harness>-<what>.<ext>\n", dir, name);
			bad++;
		}
		free(names[i]);
	}
	free(names);
	assert_int_equal(bad, 0);
}

/* an entry of known-open.txt that no saved input hits any more is fixed: remove it */
static void test_known_open_still_open(void **state)
{
	struct tally t = { 0, 0, 0 };
	char dir[4200];
	int stale = 0;

	(void)state;
	for (size_t i = 0; i < n_open; i++)
		open_bugs[i].hits = 0;
	snprintf(dir, sizeof(dir), "%s/fuzz-regressions", data_dir);
	replay_dir(dir, "report_load", true, true, &t);
	replay_dir(dir, "cli", true, true, &t);
	replay_dir(dir, "thresholds", true, true, &t);
	replay_dir(dir, "stress_thresholds", true, true, &t);
	for (size_t i = 0; i < n_open; i++) {
		if (open_bugs[i].hits)
			continue;
		print_error("known-open.txt lists '%s %s' but no saved input fails that way: it is "
			    "fixed (remove the line) or its input was never saved under "
			    "tests/data/fuzz-regressions/%s-*\n",
			    open_bugs[i].harness, open_bugs[i].id, open_bugs[i].harness);
		stale++;
	}
	assert_int_equal(stale, 0);
}

static int setup(void **state)
{
	const char *v = getenv("GPUBENCH_TEST_DATA");

	(void)state;
	if (!v || !*v) {
		print_error("GPUBENCH_TEST_DATA is not set (ctest sets it; see "
			    "tests/CMakeLists.txt)\n");
		return -1;
	}
	snprintf(data_dir, sizeof(data_dir), "%s", v);
	return read_known_open();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_report_load_regressions),
		cmocka_unit_test(test_cli_regressions),
		cmocka_unit_test(test_thresholds_regressions),
		cmocka_unit_test(test_stress_thresholds_regressions),
		cmocka_unit_test(test_known_open_still_open),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
