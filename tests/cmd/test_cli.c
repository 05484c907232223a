/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - unit tests for cmd/cli.c: every option type, both spellings of
 * long and short options, the value parsers on their own, the exact text of
 * the error lines (stderr is captured), device resolution and --help.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cmd/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct params {
	bool verify;
	bool json;
	int64_t iters;
	int64_t offset;
	int64_t warmup;
	int64_t seed;
	uint64_t size;
	double duration;
	double threshold;
	double scale;
	int precision;
	uint32_t precisions;
	const char *out;
	struct gb_int_list sizes;
	struct gb_device_list devices;
	struct gb_device_list workers;
};

struct globals {
	bool quiet;
};

static const char *const precision_names[] = {"fp32", "tf32", "bf16", NULL};

#define P_OFF(f) offsetof(struct params, f)

static const struct gb_opt test_opts[] = {
	{.type = GB_OPT_BOOL, .short_name = 'v', .long_name = "verify", .offset = P_OFF(verify),
	 .help = "check the results"},
	{.type = GB_OPT_BOOL, .short_name = 'j', .long_name = "json", .offset = P_OFF(json),
	 .help = "print JSON"},
	{.type = GB_OPT_COUNT, .short_name = 'n', .long_name = "iters", .offset = P_OFF(iters),
	 .help = "timed iterations", .min = 1, .max = 1000000},
	{.type = GB_OPT_COUNT, .long_name = "offset", .offset = P_OFF(offset),
	 .help = "signed offset", .min = -10, .max = 10},
	{.type = GB_OPT_COUNT, .long_name = "warmup", .offset = P_OFF(warmup),
	 .help = "warm-up iterations"},
	{.type = GB_OPT_COUNT, .long_name = "debug-seed", .offset = P_OFF(seed),
	 .help = "internal", .flags = GB_OPTF_HIDDEN},
	{.type = GB_OPT_SIZE, .short_name = 's', .long_name = "size", .offset = P_OFF(size),
	 .argh = "SIZE", .help = "bytes per buffer", .min = 1, .max = 1099511627776.0},
	{.type = GB_OPT_DURATION, .short_name = 'd', .long_name = "duration",
	 .offset = P_OFF(duration), .help = "how long to run", .min = 0.001, .max = 86400},
	{.type = GB_OPT_PERCENT, .short_name = 't', .long_name = "threshold",
	 .offset = P_OFF(threshold), .help = "pass threshold", .min = 0, .max = 1},
	{.type = GB_OPT_DOUBLE, .long_name = "scale", .offset = P_OFF(scale), .help = "scale",
	 .min = 0.5, .max = 4},
	{.type = GB_OPT_ENUM, .short_name = 'p', .long_name = "precision",
	 .offset = P_OFF(precision), .help = "math precision", .choices = precision_names},
	{.type = GB_OPT_ENUM_LIST, .long_name = "precisions", .offset = P_OFF(precisions),
	 .help = "precisions to sweep", .choices = precision_names},
	{.type = GB_OPT_STRING, .short_name = 'o', .long_name = "out", .offset = P_OFF(out),
	 .argh = "FILE", .help = "output file"},
	{.type = GB_OPT_INT_LIST, .long_name = "sizes", .offset = P_OFF(sizes),
	 .help = "sizes to sweep", .min = 1, .max = 1073741824.0},
	{.type = GB_OPT_DEVICES, .short_name = 'D', .long_name = "devices",
	 .offset = P_OFF(devices), .help = "GPUs to use"},
	{.type = GB_OPT_DEVICES, .long_name = "workers", .offset = P_OFF(workers),
	 .help = "one worker per entry", .flags = GB_OPTF_ALLOW_DUP},
	GB_OPT_REFUSED('S', "bytes", "is now '--size' (bytes per buffer)"),
	{.type = GB_OPT_END},
};

static const struct gb_opt global_opts[] = {
	{.type = GB_OPT_BOOL, .short_name = 'q', .long_name = "quiet",
	 .offset = offsetof(struct globals, quiet), .help = "less output"},
	{.type = GB_OPT_END},
};

static struct params P;
static struct globals G;
static const struct gb_opt_set test_sets[] = {
	{test_opts, &P},
	{global_opts, &G},
};
#define N_SETS (sizeof(test_sets) / sizeof(test_sets[0]))
#define MAX_POS 2

static const char *pos[MAX_POS];
static size_t npos;
static char errbuf[4096];

/* ---- stderr capture --------------------------------------------------- */

static FILE *cap_file;
static int cap_saved = -1;

static void capture_start(void)
{
	fflush(stderr);
	cap_file = tmpfile();
	assert_non_null(cap_file);
	cap_saved = dup(STDERR_FILENO);
	assert_true(cap_saved >= 0);
	assert_true(dup2(fileno(cap_file), STDERR_FILENO) >= 0);
}

static void capture_stop(char *buf, size_t len)
{
	size_t n;

	fflush(stderr);
	dup2(cap_saved, STDERR_FILENO);
	close(cap_saved);
	cap_saved = -1;
	rewind(cap_file);
	n = fread(buf, 1, len - 1, cap_file);
	buf[n] = '\0';
	fclose(cap_file);
	cap_file = NULL;
}

/* ---- running the parser ----------------------------------------------- */

static void set_defaults(void)
{
	memset(&P, 0, sizeof(P));
	memset(&G, 0, sizeof(G));
	P.verify = true;
	P.iters = 10;
	P.size = 4096;
	P.duration = 30;
	P.threshold = 0.5;
	P.scale = 1;
	P.precision = 0;
	P.precisions = 1;
	P.sizes.v[0] = 7;
	P.sizes.n = 1;
	P.devices.all = true;
	P.workers.all = true;
	memset(pos, 0, sizeof(pos));
	npos = 0;
}

static int run_argv(const char *const *argv)
{
	int argc = 0;
	int rc;

	while (argv[argc])
		argc++;
	set_defaults();
	capture_start();
	rc = gb_cli_parse(test_sets, N_SETS, argc, argv, pos, MAX_POS, &npos);
	capture_stop(errbuf, sizeof(errbuf));
	return rc;
}

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define PARSE(...) run_argv(ARGV(__VA_ARGS__))

static void show_argv(const char *const *argv)
{
	print_message("argv:");
	for (int i = 0; argv[i]; i++)
		print_message(" '%s'", argv[i]);
	print_message("\n");
}

/* a successful parse: OK and nothing on stderr */
static void expect_ok(const char *const *argv)
{
	int rc = run_argv(argv);

	if (rc != GB_CLI_OK || errbuf[0]) {
		show_argv(argv);
		print_message("rc %d, stderr: %s\n", rc, errbuf);
		fail();
	}
}
#define OK(...) expect_ok(ARGV(__VA_ARGS__))

/* exactly one well-formed error line containing want */
static void expect_err(const char *const *argv, const char *want)
{
	static const char prefix[] = "gpubench: error: ";
	int rc = run_argv(argv);
	size_t len = strlen(errbuf);
	const char *nl = strchr(errbuf, '\n');
	bool good = rc == GB_CLI_ERROR && strstr(errbuf, want) &&
		    !strncmp(errbuf, prefix, strlen(prefix)) && nl && nl == errbuf + len - 1 &&
		    len > strlen(prefix) + 1 && errbuf[len - 2] != '.' &&
		    !(errbuf[strlen(prefix)] >= 'A' && errbuf[strlen(prefix)] <= 'Z');

	if (!good) {
		show_argv(argv);
		print_message("rc %d\nstderr: %swant:   %s\n", rc, errbuf, want);
		fail();
	}
}

/* ---- refused spellings (GB_OPTF_REFUSED) ------------------------------- */

/* An old or conflicting spelling: one line saying what to type, before any value is read. */
static void test_refused(void **state)
{
	(void)state;
	expect_err(ARGV("--bytes", "4K"), "'--bytes' is now '--size' (bytes per buffer)");
	expect_err(ARGV("--bytes=4K"), "'--bytes' is now '--size' (bytes per buffer)");
	expect_err(ARGV("-S", "4K"), "'-S' is now '--size' (bytes per buffer)");
	/* bundled: the refused letter stops the bundle */
	expect_err(ARGV("-vS"), "'-S' is now '--size'");
	expect_err(ARGV("--no-bytes"), "'--no-bytes' is now '--size'");
	/* never the answer of "did you mean" */
	expect_err(ARGV("--byte", "1"), "unknown option '--byte'; see --help");
}

/* ---- good values ------------------------------------------------------ */

static void test_size_forms(void **state)
{
	(void)state;
	OK("--size", "4K");
	assert_int_equal(P.size, 4096);
	OK("--size=64K");
	assert_int_equal(P.size, 65536);
	OK("-s1M");
	assert_int_equal(P.size, 1048576);
	OK("-s", "1.5G");
	assert_int_equal(P.size, 1610612736ULL);
	OK("--size", "4KB");
	assert_int_equal(P.size, 4000);
	OK("--size", "1GiB");
	assert_int_equal(P.size, 1ULL << 30);
	OK("--size", "1T");
	assert_int_equal(P.size, 1ULL << 40);
	OK("--size", "1");
	assert_int_equal(P.size, 1);
	/* a second value no longer wins silently (issue 19) */
	expect_err(ARGV("--size", "1K", "--size", "2K"), "option '--size' given twice");
}

static void test_count_forms(void **state)
{
	(void)state;
	OK("--iters", "1000");
	assert_int_equal(P.iters, 1000);
	OK("-n4K");
	assert_int_equal(P.iters, 4096);
	OK("--iters=1e6");
	assert_int_equal(P.iters, 1000000);
	OK("-n", "1");
	assert_int_equal(P.iters, 1);
	OK("--offset", "-10");
	assert_int_equal(P.offset, -10);
	OK("--offset=10");
	assert_int_equal(P.offset, 10);
	OK("--warmup", "0");
	assert_int_equal(P.warmup, 0);
	OK("--warmup", "1e9");
	assert_int_equal(P.warmup, 1000000000);
	OK("--debug-seed", "42");
	assert_int_equal(P.seed, 42);
}

static void test_duration_percent_double(void **state)
{
	(void)state;
	OK("--duration", "500ms");
	assert_true(fabs(P.duration - 0.5) < 1e-12);
	OK("--duration=30s");
	assert_true(P.duration == 30);
	OK("-d10m");
	assert_true(P.duration == 600);
	OK("-d", "1h");
	assert_true(P.duration == 3600);
	OK("--duration", "1.5h");
	assert_true(P.duration == 5400);
	OK("--duration", "24h");
	assert_true(P.duration == 86400);
	OK("--duration", "1ms");
	assert_true(fabs(P.duration - 0.001) < 1e-12);

	OK("--threshold", "90%");
	assert_true(fabs(P.threshold - 0.9) < 1e-12);
	OK("-t12.5%");
	assert_true(fabs(P.threshold - 0.125) < 1e-12);
	OK("--threshold=0%");
	assert_true(P.threshold == 0);
	OK("--threshold=100%");
	assert_true(P.threshold == 1);

	OK("--scale", "1.5");
	assert_true(P.scale == 1.5);
	OK("--scale=4");
	assert_true(P.scale == 4);
	OK("--scale", "5e-1");
	assert_true(P.scale == 0.5);
}

static void test_bool_forms(void **state)
{
	(void)state;
	OK("--no-verify");
	assert_false(P.verify);
	OK("--verify");
	assert_true(P.verify);
	OK("--json");
	assert_true(P.json);
	OK("-j");
	assert_true(P.json);
	OK("-vj");
	assert_true(P.verify);
	assert_true(P.json);
	/* the same flag twice says nothing new */
	OK("-v", "--verify");
	assert_true(P.verify);
	OK("--no-verify", "--no-verify");
	assert_false(P.verify);
	/* a bundle may end in an option that takes a value */
	OK("-jn5");
	assert_true(P.json);
	assert_int_equal(P.iters, 5);
	/* options from the second set */
	OK("-q");
	assert_true(G.quiet);
	OK("--no-quiet");
	assert_false(G.quiet);
}

/*
 * Issue 19: one value per option. A second value used to win silently
 * ("theory --compare A --compare B" compared B only); now it is exit 2.
 */
static void test_repeated_options(void **state)
{
	(void)state;
	expect_err(ARGV("--iters", "5", "--iters", "6"),
		   "option '--iters' given twice; give it once");
	expect_err(ARGV("-n", "5", "--iters=6"), "option '--iters' given twice");
	expect_err(ARGV("--out", "a", "-o", "b"), "option '--out' given twice");
	expect_err(ARGV("--size", "4K", "-s4K"), "option '--size' given twice");
	expect_err(ARGV("--precision", "fp32", "-p", "bf16"), "option '--precision' given twice");
	expect_err(ARGV("--sizes", "1K", "--sizes", "2K"), "option '--sizes' given twice");
	expect_err(ARGV("--devices", "0", "-D", "1"), "option '--devices' given twice");
	expect_err(ARGV("--precisions", "fp32", "--precisions", "bf16"),
		   "option '--precisions' given twice");
	expect_err(ARGV("--duration", "1s", "--duration", "1s"), "option '--duration' given twice");
	/* a flag and its negation conflict, whichever comes first */
	expect_err(ARGV("--no-verify", "--verify"),
		   "option '--verify' given both as '--verify' and '--no-verify'");
	expect_err(ARGV("--verify", "--no-verify"), "given both as '--verify' and '--no-verify'");
	expect_err(ARGV("--no-verify", "-vj"), "given both as '--verify' and '--no-verify'");
	expect_err(ARGV("--quiet", "--no-quiet"), "given both as '--quiet' and '--no-quiet'");
	/* options of the second set are counted too; different options never clash */
	OK("-q", "--iters", "5", "--size", "8K", "--out", "x", "-j");
	assert_int_equal(P.iters, 5);
}

static void test_enum_string(void **state)
{
	(void)state;
	OK("--precision", "tf32");
	assert_int_equal(P.precision, 1);
	OK("-pbf16");
	assert_int_equal(P.precision, 2);
	OK("--precisions", "fp32,bf16");
	assert_int_equal(P.precisions, 5);
	OK("--precisions=all");
	assert_int_equal(P.precisions, 7);
	OK("--precisions", "bf16,bf16");
	assert_int_equal(P.precisions, 4);
	OK("--precisions", "tf32,all");
	assert_int_equal(P.precisions, 7);

	OK("-o", "result.json");
	assert_string_equal(P.out, "result.json");
	/* a lone "-" is a value here ... */
	OK("--out", "-");
	assert_string_equal(P.out, "-");
	OK("--out=");
	assert_string_equal(P.out, "");
	/* ... and a positional there */
	OK("-");
	assert_int_equal(npos, 1);
	assert_string_equal(pos[0], "-");
}

static void expect_list(const struct gb_int_list *l, const uint64_t *want, size_t n)
{
	assert_int_equal(l->n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l->v[i], want[i]);
}

static void test_int_list(void **state)
{
	(void)state;
	OK("--sizes", "1024,2048");
	expect_list(&P.sizes, (const uint64_t[]){1024, 2048}, 2);
	OK("--sizes=1K:4K:1K");
	expect_list(&P.sizes, (const uint64_t[]){1024, 2048, 3072, 4096}, 4);
	/* stop is included only when the step lands on it */
	OK("--sizes", "1:10:4");
	expect_list(&P.sizes, (const uint64_t[]){1, 5, 9}, 3);
	OK("--sizes", "1:64:x2");
	expect_list(&P.sizes, (const uint64_t[]){1, 2, 4, 8, 16, 32, 64}, 7);
	OK("--sizes", "1:100:x2");
	expect_list(&P.sizes, (const uint64_t[]){1, 2, 4, 8, 16, 32, 64}, 7);
	OK("--sizes", "4K:1M:x4");
	expect_list(&P.sizes, (const uint64_t[]){4096, 16384, 65536, 262144, 1048576}, 5);
	OK("--sizes", "8,1:3:1,1e3");
	expect_list(&P.sizes, (const uint64_t[]){8, 1, 2, 3, 1000}, 5);
	OK("--sizes", "5:5:1");
	expect_list(&P.sizes, (const uint64_t[]){5}, 1);
	OK("--sizes", "1G");
	expect_list(&P.sizes, (const uint64_t[]){1ULL << 30}, 1);
	OK("--sizes", "1:256:1");
	assert_int_equal(P.sizes.n, GB_INT_LIST_MAX);
	assert_int_equal(P.sizes.v[255], 256);
	OK("--sizes", "512M:1G:x2");
	expect_list(&P.sizes, (const uint64_t[]){1ULL << 29, 1ULL << 30}, 2);
}

static void expect_devices(const struct gb_device_list *l, const int *want, size_t n)
{
	assert_false(l->all);
	assert_int_equal(l->n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l->idx[i], want[i]);
}

static void test_devices(void **state)
{
	(void)state;
	OK("--devices", "0,2");
	expect_devices(&P.devices, (const int[]){0, 2}, 2);
	OK("-D0-3");
	expect_devices(&P.devices, (const int[]){0, 1, 2, 3}, 4);
	OK("--devices=1,3-4");
	expect_devices(&P.devices, (const int[]){1, 3, 4}, 3);
	OK("--devices", "7");
	expect_devices(&P.devices, (const int[]){7}, 1);
	OK("--devices", "all");
	assert_true(P.devices.all);
	assert_int_equal(P.devices.n, 0);
	OK("--devices", "0-63");
	assert_int_equal(P.devices.n, GB_DEVICE_LIST_MAX);
	OK("--workers", "0,0,1");
	expect_devices(&P.workers, (const int[]){0, 0, 1}, 3);
	/* untouched when not given: the caller's default stays */
	OK("--size", "1K");
	assert_true(P.devices.all);
	assert_int_equal(P.devices.n, 0);
}

static void test_positional_and_dashdash(void **state)
{
	(void)state;
	OK("a", "--size", "1K", "b");
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "a");
	assert_string_equal(pos[1], "b");
	assert_int_equal(P.size, 1024);
	OK("--", "--size");
	assert_int_equal(npos, 1);
	assert_string_equal(pos[0], "--size");
	assert_int_equal(P.size, 4096);
	OK("--", "-h", "--");
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "-h");
	assert_string_equal(pos[1], "--");
	expect_ok((const char *const[]){NULL});
	assert_int_equal(npos, 0);
}

static void test_help(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-h"), GB_CLI_HELP);
	assert_int_equal(PARSE("--help"), GB_CLI_HELP);
	assert_int_equal(PARSE("--size", "4K", "--help"), GB_CLI_HELP);
	assert_int_equal(PARSE("-vh"), GB_CLI_HELP);
	assert_int_equal(PARSE("-h", "--size", "12Q"), GB_CLI_HELP);
	assert_int_equal(PARSE("x", "y", "--help", "z"), GB_CLI_HELP);
	assert_string_equal(errbuf, "");
	/* left to right: an earlier error wins */
	assert_int_equal(PARSE("--size", "12Q", "-h"), GB_CLI_ERROR);
}

/* ---- bad values: one table, the error line must contain the text ------- */

struct bad_case {
	const char *argv[5];
	const char *want;
};

static const struct bad_case bad_cases[] = {
	/* sizes */
	{{"--size", "0"}, "--size must be between 1 B and 1 TiB (got 0 B)"},
	{{"--size", "2T"}, "--size must be between 1 B and 1 TiB (got 2 TiB)"},
	{{"--size", "-4K"}, "invalid value '-4K' for --size: a size cannot be negative"},
	{{"--size", "1e30"}, "invalid value '1e30' for --size: too large"},
	{{"--size", "99999999999T"}, "invalid value '99999999999T' for --size: too large"},
	{{"--size", "18446744073709551616"}, "too large"},
	{{"--size", "12Q"}, "invalid value '12Q' for --size: expected a size like 4096, 64K, 1G"},
	{{"--size", "abc"}, "invalid value 'abc' for --size: expected a size"},
	{{"--size="}, "invalid value '' for --size: expected a size"},
	{{"--size", "4K "}, "invalid value '4K ' for --size"},
	{{"--size", " 4K"}, "invalid value ' 4K' for --size"},
	{{"--size", "0x10"}, "invalid value '0x10' for --size"},
	{{"--size", "inf"}, "invalid value 'inf' for --size"},
	{{"--size", "4KK"}, "invalid value '4KK' for --size"},
	{{"--size", "1.5.5"}, "invalid value '1.5.5' for --size"},
	{{"--size"}, "option '--size' needs a value"},
	{{"-s"}, "option '-s' needs a value"},
	{{"--size", "--iters", "5"}, "option '--size' needs a value"},
	/* counts */
	{{"--iters", "0"}, "--iters must be between 1 and 1000000 (got 0)"},
	{{"-n", "-5"}, "--iters must be between 1 and 1000000 (got -5)"},
	{{"--iters", "2M"}, "--iters must be between 1 and 1000000 (got 2097152)"},
	{{"--iters", "1.5"},
	 "invalid value '1.5' for --iters: expected a whole number like 1000, 4K, 1e6"},
	{{"--iters", "1e-3"}, "invalid value '1e-3' for --iters: expected a whole number"},
	{{"--iters", "ten"}, "invalid value 'ten' for --iters: expected a whole number"},
	{{"--iters", ""}, "invalid value '' for --iters"},
	{{"--iters", "99999999999999999999"},
	 "invalid value '99999999999999999999' for --iters: too large"},
	{{"--iters", "1e30"}, "too large"},
	{{"--offset", "11"}, "--offset must be between -10 and 10 (got 11)"},
	{{"--offset", "-11"}, "--offset must be between -10 and 10 (got -11)"},
	{{"--warmup", "-1"}, "--warmup cannot be negative (got -1)"},
	/* durations */
	{{"--duration", "30"}, "value '30' for --duration needs a unit: 30s, 10m, 1h"},
	{{"-d", "5"}, "'5' for --duration needs a unit"},
	{{"--duration", "10x"},
	 "invalid value '10x' for --duration: expected a duration like 500ms, 30s, 10m, 1h"},
	{{"--duration", "30S"}, "invalid value '30S' for --duration"},
	{{"--duration", "1.5hours"}, "invalid value '1.5hours' for --duration"},
	{{"--duration", "s"}, "invalid value 's' for --duration"},
	{{"--duration", ""}, "invalid value '' for --duration"},
	{{"--duration", "-5s"},
	 "invalid value '-5s' for --duration: a duration cannot be negative"},
	{{"--duration", "25h"}, "--duration must be between 1ms and 24h (got 25h)"},
	{{"--duration", "0s"}, "--duration must be between 1ms and 24h (got 0s)"},
	{{"--duration", "86401s"}, "(got 86401s)"},
	{{"--duration", "1441m"}, "(got 1441m)"},
	/* percents */
	{{"--threshold", "90"}, "value '90' for --threshold needs a percent sign, e.g. 90%"},
	{{"--threshold", "0.9"}, "needs a percent sign"},
	{{"--threshold", "150%"}, "--threshold must be between 0% and 100% (got 150%)"},
	{{"--threshold", "-1%"}, "--threshold must be between 0% and 100% (got -1%)"},
	{{"--threshold", "90%%"},
	 "invalid value '90%%' for --threshold: expected a percentage like 90%"},
	{{"--threshold", "%"}, "invalid value '%' for --threshold"},
	/* doubles */
	{{"--scale", "5"}, "--scale must be between 0.5 and 4 (got 5)"},
	{{"--scale", "0.25"}, "--scale must be between 0.5 and 4 (got 0.25)"},
	{{"--scale", "nan"}, "invalid value 'nan' for --scale: expected a number"},
	{{"--scale", "1.0x"}, "invalid value '1.0x' for --scale"},
	{{"--scale", "1e999"}, "invalid value '1e999' for --scale: too large"},
	/* enums */
	{{"--precision", "fp64"},
	 "invalid value 'fp64' for --precision: expected one of: fp32, tf32, bf16"},
	{{"--precision", "FP32"}, "invalid value 'FP32' for --precision"},
	{{"--precision", ""}, "invalid value '' for --precision"},
	{{"--precisions", "fp32,,bf16"}, "empty element in --precisions list 'fp32,,bf16'"},
	{{"--precisions", "fp32,"}, "empty element in --precisions list 'fp32,'"},
	{{"--precisions", ""},
	 "invalid value '' for --precisions: expected a list of: fp32, tf32, bf16; or all"},
	{{"--precisions", "fp32,fp64"},
	 "invalid value 'fp64' in --precisions: expected one of: fp32, tf32, bf16; or all"},
	/* int lists */
	{{"--sizes", ""}, "invalid value '' for --sizes"},
	{{"--sizes", "1,,2"}, "empty element in --sizes list '1,,2'"},
	{{"--sizes", ",1"}, "empty element in --sizes list ',1'"},
	{{"--sizes", "1:10:0"}, "invalid range '1:10:0' for --sizes: the step must be at least 1"},
	{{"--sizes", "10:1:1"}, "invalid range '10:1:1' for --sizes: start is above stop"},
	{{"--sizes", "1:1000000:1"}, "range '1:1000000:1' gives more than 256 values"},
	{{"--sizes", "1:257:1"}, "range '1:257:1' gives more than 256 values"},
	{{"--sizes", "1:200:1,201:400:1"}, "--sizes has more than 256 values"},
	{{"--sizes", "1:64:x1"},
	 "invalid range '1:64:x1' for --sizes: the factor must be a whole number of at least 2"},
	{{"--sizes", "1:64:x1.5"}, "the factor must be a whole number of at least 2"},
	{{"--sizes", "1:64:x"}, "the factor must be a whole number of at least 2"},
	{{"--sizes", "0:64:x2"},
	 "invalid range '0:64:x2' for --sizes: a geometric range cannot start at 0"},
	{{"--sizes", "1:10"},
	 "invalid range '1:10' for --sizes: expected start:stop:step or start:stop:xF"},
	{{"--sizes", "1:2:3:4"}, "expected start:stop:step or start:stop:xF"},
	{{"--sizes", "0"}, "each value of --sizes must be between 1 and 1073741824 (got 0)"},
	{{"--sizes", "0:4:2"}, "each value of --sizes must be between 1 and 1073741824 (got 0)"},
	{{"--sizes", "512M:4G:x2"},
	 "each value of --sizes must be between 1 and 1073741824 (got 2147483648)"},
	{{"--sizes", "-1"}, "invalid value '-1' in --sizes: values cannot be negative"},
	{{"--sizes", "abc"}, "invalid value 'abc' in --sizes: expected a number like 1024 or 4K"},
	{{"--sizes", "1:abc:1"}, "invalid value '1:abc:1' in --sizes"},
	{{"--sizes", "1e30"}, "invalid value '1e30' in --sizes: too large"},
	/* devices */
	{{"--devices", ""},
	 "invalid value '' for --devices: expected an index like 0, a range like 0-3, or all"},
	{{"--devices", "0,,1"}, "empty element in --devices list '0,,1'"},
	{{"--devices", "1,"}, "empty element in --devices list '1,'"},
	{{"--devices", "0,1,0"}, "device 0 is listed twice in --devices"},
	{{"--devices", "0-2,1"}, "device 1 is listed twice in --devices"},
	{{"--devices", "-1"},
	 "invalid device '-1' in --devices: device indices cannot be negative"},
	{{"--devices", "gpu0"},
	 "invalid device 'gpu0' in --devices: expected an index like 0, a range like 0-3, or all"},
	{{"--devices", "0-"}, "invalid device '0-' in --devices"},
	{{"--devices", "1.5"}, "invalid device '1.5' in --devices"},
	{{"--devices", "all,1"}, "invalid device 'all' in --devices"},
	{{"--devices", "3-1"}, "invalid device range '3-1' in --devices: start is above end"},
	{{"--devices", "0-64"}, "--devices lists more than 64 devices"},
	{{"--devices", "99999999999"}, "invalid device '99999999999' in --devices"},
	/* bools */
	{{"--verify=yes"}, "option '--verify' takes no value (got 'yes')"},
	{{"--no-verify=1"}, "option '--no-verify' takes no value (got '1')"},
	{{"-v=1"}, "option '-v' takes no value (got '1')"},
	/* unknown options */
	{{"--sise", "4K"}, "unknown option '--sise'; did you mean '--size'?"},
	{{"--sise=4K"}, "unknown option '--sise'; did you mean '--size'?"},
	{{"--iter", "5"}, "unknown option '--iter'; did you mean '--iters'?"},
	{{"--thresh", "5%"}, "unknown option '--thresh'; did you mean '--threshold'?"},
	{{"--no-verfy"}, "unknown option '--no-verfy'; did you mean '--no-verify'?"},
	{{"--hlep"}, "unknown option '--hlep'; did you mean '--help'?"},
	{{"--frobnicate"}, "unknown option '--frobnicate'; see --help"},
	{{"--debug-see", "1"}, "unknown option '--debug-see'; see --help"},
	{{"--no-size"}, "unknown option '--no-size'"},
	{{"-z"}, "unknown option '-z'; see --help"},
	{{"-vz"}, "unknown option '-z'; see --help"},
	{{"-size", "4K"}, "unknown option '-size'; did you mean '--size'?"},
	{{"-help"}, "unknown option '-help'; did you mean '--help'?"},
	{{"-5"}, "unknown option '-5'"},
	/* positionals */
	{{"a", "b", "c"}, "unexpected argument 'c'"},
	{{"a", "b", "--", "-c"}, "unexpected argument '-c'"},
	/* help does not rescue an earlier error */
	{{"--sise", "-h"}, "unknown option '--sise'"},
};

static void test_bad_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_err(bad_cases[i].argv, bad_cases[i].want);
}

/* a rejected value leaves the field as it was */
static void test_error_keeps_defaults(void **state)
{
	(void)state;
	assert_int_equal(PARSE("--size", "0"), GB_CLI_ERROR);
	assert_int_equal(P.size, 4096);
	assert_int_equal(PARSE("--sizes", "1,2,x"), GB_CLI_ERROR);
	expect_list(&P.sizes, (const uint64_t[]){7}, 1);
	assert_int_equal(PARSE("--devices", "0,1,1"), GB_CLI_ERROR);
	assert_true(P.devices.all);
	assert_int_equal(P.devices.n, 0);
	assert_int_equal(PARSE("--precisions", "fp32,x"), GB_CLI_ERROR);
	assert_int_equal(P.precisions, 1);
}

static void test_no_positionals_allowed(void **state)
{
	int rc;

	(void)state;
	set_defaults();
	capture_start();
	rc = gb_cli_parse(test_sets, N_SETS, 1, ARGV("x"), NULL, 0, &npos);
	capture_stop(errbuf, sizeof(errbuf));
	assert_int_equal(rc, GB_CLI_ERROR);
	assert_string_equal(errbuf, "gpubench: error: unexpected argument 'x'\n");
}

/* ---- the value parsers on their own ----------------------------------- */

struct size_case {
	const char *s;
	uint64_t v;
};

static void test_parse_size(void **state)
{
	static const struct size_case good[] = {
		{"0", 0},
		{"4096", 4096},
		{"4K", 4096},
		{"4k", 4096},
		{"4KiB", 4096},
		{"4kib", 4096},
		{"4KB", 4000},
		{"4kb", 4000},
		{"1M", 1048576},
		{"1MiB", 1048576},
		{"1MB", 1000000},
		{"1G", 1073741824},
		{"1GB", 1000000000},
		{"2T", 2ULL << 40},
		{"1TB", 1000000000000ULL},
		{"1.5G", 1610612736ULL},
		{"1.5K", 1536},
		{"0.1K", 102},
		{".5K", 512},
		{"1e3", 1000},
		{"1e3K", 1024000},
		{"96B", 96},
		{"18446744073709551615", UINT64_MAX},
		{"16777215T", 16777215ULL << 40},
		/* 'theory --grad-bytes' promises up to 1 PiB (issue 19) */
		{"1P", 1ULL << 50},
		{"1PiB", 1ULL << 50},
		{"2PB", 2000000000000000ULL},
		{"16383P", 16383ULL << 50},
	};
	static const char *const bad[] = {
		"", "K", "-1", "-4K", "+4", "1.5.5", "4 K", " 4K", "4K ", "0x10", "inf", "nan",
		"1e30", "1e", "4KK", "4KiBs", "4Q", "18446744073709551616", "16777216T",
		"99999999999T", "1e400", "16384P", "1Pi", "1E",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		if (gb_parse_size(good[i].s, &v) || v != good[i].v) {
			print_message("size '%s' -> %llu\n", good[i].s, (unsigned long long)v);
			fail();
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!gb_parse_size(bad[i], &v)) {
			print_message("size '%s' accepted\n", bad[i]);
			fail();
		}
	}
}

struct count_case {
	const char *s;
	int64_t v;
};

static void test_parse_count(void **state)
{
	static const struct count_case good[] = {
		{"0", 0},
		{"1000", 1000},
		{"4K", 4096},
		{"4k", 4096},
		{"1M", 1048576},
		{"1G", 1073741824},
		{"1e6", 1000000},
		{"2.5e3", 2500},
		{"1.5K", 1536},
		{"-5", -5},
		{"+7", 7},
		{"9223372036854775807", INT64_MAX},
		{"-9223372036854775808", INT64_MIN},
	};
	static const char *const bad[] = {
		"", "1.5", "1e-3", "abc", "10 ", " 10", "4KB", "4Ki", "9223372036854775808",
		"1e19", "8388608T", "0x10", "inf", "-",
	};
	int64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		if (gb_parse_count(good[i].s, &v) || v != good[i].v) {
			print_message("count '%s' -> %lld\n", good[i].s, (long long)v);
			fail();
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!gb_parse_count(bad[i], &v)) {
			print_message("count '%s' accepted\n", bad[i]);
			fail();
		}
	}
}

struct double_case {
	const char *s;
	double v;
};

static void check_doubles(int (*fn)(const char *, double *), const char *what,
			  const struct double_case *good, size_t n_good, const char *const *bad,
			  size_t n_bad)
{
	double v;

	for (size_t i = 0; i < n_good; i++) {
		v = -12345;
		if (fn(good[i].s, &v) || fabs(v - good[i].v) > 1e-12 * fmax(1, fabs(v))) {
			print_message("%s '%s' -> %g\n", what, good[i].s, v);
			fail();
		}
	}
	for (size_t i = 0; i < n_bad; i++) {
		if (!fn(bad[i], &v)) {
			print_message("%s '%s' accepted\n", what, bad[i]);
			fail();
		}
	}
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_parse_duration(void **state)
{
	static const struct double_case good[] = {
		{"500ms", 0.5}, {"30s", 30},   {"10m", 600},  {"1h", 3600},
		{"1.5h", 5400}, {"0s", 0},     {"0.5s", 0.5}, {"2.5m", 150},
	};
	static const char *const bad[] = {
		"", "30", "s", "30S", "30 s", "1.5hours", "-1s", "1d", "10us", "ms", "1h30m", "inf",
	};

	(void)state;
	check_doubles(gb_parse_duration, "duration", good, N_OF(good), bad, N_OF(bad));
}

static void test_parse_percent(void **state)
{
	static const struct double_case good[] = {
		{"90%", 0.9}, {"12.5%", 0.125}, {"0%", 0},
		{"100%", 1},  {"-5%", -0.05},   {"250%", 2.5},
	};
	static const char *const bad[] = {
		"", "90", "0.9", "%", "90%%", "abc%", "90 %", "% 90", "nan%",
	};

	(void)state;
	check_doubles(gb_parse_percent, "percent", good, N_OF(good), bad, N_OF(bad));
}

static void test_parse_double(void **state)
{
	static const struct double_case good[] = {
		{"1.5", 1.5}, {"-2", -2}, {"1e3", 1000}, {".5", 0.5}, {"0", 0}, {"+3", 3},
	};
	static const char *const bad[] = {
		"", "inf", "nan", "1.5x", "0x1p3", " 1", "1 ", "-", ".", "e5", "1e999",
	};

	(void)state;
	check_doubles(gb_parse_double, "double", good, N_OF(good), bad, N_OF(bad));
}

/* ---- device resolution ------------------------------------------------- */

static void test_device_resolve(void **state)
{
	struct gb_device_list l;
	int rc;

	(void)state;
	memset(&l, 0, sizeof(l));
	l.all = true;
	assert_int_equal(gb_device_list_resolve(&l, 2), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.idx[0], 0);
	assert_int_equal(l.idx[1], 1);

	memset(&l, 0, sizeof(l));
	l.all = true;
	assert_int_equal(gb_device_list_resolve(&l, 0), 0);
	assert_int_equal(l.n, 0);

	memset(&l, 0, sizeof(l));
	l.all = true;
	assert_int_equal(gb_device_list_resolve(&l, 100), 0);
	assert_int_equal(l.n, GB_DEVICE_LIST_MAX);

	memset(&l, 0, sizeof(l));
	l.idx[0] = 1;
	l.idx[1] = 0;
	l.n = 2;
	assert_int_equal(gb_device_list_resolve(&l, 2), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.idx[0], 1);

	l.idx[1] = 3;
	capture_start();
	rc = gb_device_list_resolve(&l, 2);
	capture_stop(errbuf, sizeof(errbuf));
	assert_int_equal(rc, -1);
	assert_string_equal(errbuf, "gpubench: error: device index 3 is beyond the last GPU "
				    "(found 2: 0..1)\n");

	l.n = 1;
	l.idx[0] = 1;
	capture_start();
	rc = gb_device_list_resolve(&l, 1);
	capture_stop(errbuf, sizeof(errbuf));
	assert_int_equal(rc, -1);
	assert_string_equal(errbuf, "gpubench: error: device index 1 is beyond the last GPU "
				    "(found 1: 0)\n");

	l.idx[0] = 0;
	capture_start();
	rc = gb_device_list_resolve(&l, 0);
	capture_stop(errbuf, sizeof(errbuf));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(errbuf, "device index 0 is beyond the last GPU"));

	/* parse then resolve */
	assert_int_equal(PARSE("--devices", "0,5"), GB_CLI_OK);
	capture_start();
	rc = gb_device_list_resolve(&P.devices, 4);
	capture_stop(errbuf, sizeof(errbuf));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(errbuf, "device index 5 is beyond the last GPU (found 4: 0..3)"));
}

/* ---- formatting -------------------------------------------------------- */

struct bytes_case {
	double b;
	const char *s;
};

static void test_format_bytes(void **state)
{
	static const struct bytes_case cases[] = {
		{0, "0 B"},
		{96, "96 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{4096, "4 KiB"},
		{1500, "1.46 KiB"},
		{1e6, "977 KiB"},
		{10240, "10 KiB"},
		{12345678, "11.8 MiB"},
		{512.0 * 1048576, "512 MiB"},
		{1.5 * 1073741824, "1.5 GiB"},
		{1099511627776.0, "1 TiB"},
		{1048565, "1 MiB"},
		{1152921504606846976.0, "1 EiB"},
		{-2048, "-2 KiB"},
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < N_OF(cases); i++) {
		gb_format_bytes(buf, sizeof(buf), cases[i].b);
		if (strcmp(buf, cases[i].s)) {
			print_message("%.17g -> '%s', want '%s'\n", cases[i].b, buf, cases[i].s);
			fail();
		}
	}
	/* a short buffer is truncated, never overrun */
	memset(buf, 'x', sizeof(buf));
	gb_format_bytes(buf, 4, 1536);
	assert_int_equal(strlen(buf), 3);
	assert_int_equal(buf[5], 'x');
}

/* ---- --help ------------------------------------------------------------ */

static char *find_line(char *text, const char *needle)
{
	char *hit = strstr(text, needle);

	if (!hit)
		return NULL;
	while (hit > text && hit[-1] != '\n')
		hit--;
	return hit;
}

/* column where the help text starts on the line holding needle */
static long help_column(char *text, const char *needle, const char *help)
{
	char *line = find_line(text, needle);
	char *h;

	assert_non_null(line);
	h = strstr(line, help);
	assert_non_null(h);
	return h - line;
}

static void test_usage(void **state)
{
	static char out[8192];
	FILE *f = tmpfile();
	size_t n;
	long col;

	(void)state;
	assert_non_null(f);
	gb_cli_usage(f, "gpubench test [options] [FILE]", "run a test", test_sets, N_SETS);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);

	assert_int_equal(strncmp(out, "usage: gpubench test [options] [FILE]\n\nrun a test\n\n"
				      "options:\n",
				 strlen("usage: gpubench test [options] [FILE]\n\nrun a test\n\n"
					"options:\n")),
			 0);
	assert_non_null(strstr(out, "\n  -s, --size SIZE "));
	assert_non_null(strstr(out, "bytes per buffer [1 B..1 TiB]\n"));
	assert_non_null(strstr(out, "timed iterations [1..1000000]\n"));
	assert_non_null(strstr(out, "signed offset [-10..10]\n"));
	assert_non_null(strstr(out, "warm-up iterations\n"));
	assert_non_null(strstr(out, "how long to run [1ms..24h]\n"));
	assert_non_null(strstr(out, "pass threshold [0%..100%]\n"));
	assert_non_null(strstr(out, "math precision [one of: fp32, tf32, bf16]\n"));
	assert_non_null(strstr(out, "precisions to sweep [any of: fp32, tf32, bf16; or all]\n"));
	assert_non_null(strstr(out, "sizes to sweep [each 1..1073741824]\n"));
	assert_non_null(strstr(out, "\n      --offset N "));
	assert_non_null(strstr(out, "\n  -o, --out FILE "));
	assert_non_null(strstr(out, "\n  -v, --verify "));
	assert_non_null(strstr(out, "\n  -q, --quiet "));
	assert_non_null(strstr(out, "\n  -h, --help "));
	assert_non_null(strstr(out, "show this help\n"));
	assert_null(strstr(out, "debug-seed"));
	/* a refused spelling is not offered */
	assert_null(strstr(out, "--bytes"));
	assert_null(strstr(out, "-S"));
	assert_null(strstr(out, " \n"));

	/* one column for every help text */
	col = help_column(out, "--size SIZE", "bytes per buffer");
	assert_int_equal(help_column(out, "--verify", "check the results"), col);
	assert_int_equal(help_column(out, "--precisions LIST", "precisions to sweep"), col);
	assert_int_equal(help_column(out, "--help", "show this help"), col);
	assert_int_equal(help_column(out, "--quiet", "less output"), col);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_size_forms),
		cmocka_unit_test(test_count_forms),
		cmocka_unit_test(test_duration_percent_double),
		cmocka_unit_test(test_bool_forms),
		cmocka_unit_test(test_repeated_options),
		cmocka_unit_test(test_enum_string),
		cmocka_unit_test(test_int_list),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_positional_and_dashdash),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_error_keeps_defaults),
		cmocka_unit_test(test_no_positionals_allowed),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_percent),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_device_resolve),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
