/* SPDX-License-Identifier: MIT */
/*
 * test_status_line.c - the live status block (cmd/status_line.c): the exact
 * bytes that redraw, shrink and clear it, the width cut, colour, and lines
 * printed above it through a real FILE.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/bench.h"
#include "cmd/log.h"
#include "cmd/status_line.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RENDER(prev, text, cols, color, buf) \
	gb_status_render((prev), (text), (cols), (color), (buf), sizeof(buf))

static void test_count_lines(void **state)
{
	(void)state;
	assert_int_equal(gb_status_count_lines(NULL), 0);
	assert_int_equal(gb_status_count_lines(""), 0);
	assert_int_equal(gb_status_count_lines("gpu 0"), 1);
	assert_int_equal(gb_status_count_lines("gpu 0\ngpu 1\ngpu 2"), 3);
}

/* The first block: no move up, each line cleared, prefixed and ended. */
static void test_first_draw(void **state)
{
	char buf[256];
	const char *want = "\r\033[Kgpubench: gpu 0\n\r\033[Kgpubench: gpu 1\n";

	(void)state;
	assert_int_equal(RENDER(0, "gpu 0\ngpu 1", 0, false, buf), strlen(want));
	assert_string_equal(buf, want);
}

/* A redraw moves up exactly the lines drawn before. */
static void test_redraw_same_height(void **state)
{
	char buf[256];

	(void)state;
	RENDER(2, "a\nb", 0, false, buf);
	assert_string_equal(buf, "\033[2A\r\033[Kgpubench: a\n\r\033[Kgpubench: b\n");
	RENDER(1, "a", 0, false, buf);
	assert_string_equal(buf, "\033[1A\r\033[Kgpubench: a\n");
}

/* A shorter block erases what the taller one leaves below it; a taller one needs nothing. */
static void test_redraw_height_changes(void **state)
{
	char buf[256];

	(void)state;
	RENDER(3, "a", 0, false, buf);
	assert_string_equal(buf, "\033[3A\r\033[Kgpubench: a\n\r\033[J");
	RENDER(1, "a\nb", 0, false, buf);
	assert_string_equal(buf, "\033[1A\r\033[Kgpubench: a\n\r\033[Kgpubench: b\n");
}

static void test_clear(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(RENDER(4, NULL, 0, false, buf), strlen("\033[4A\r\033[J"));
	assert_string_equal(buf, "\033[4A\r\033[J");
	RENDER(2, "", 0, false, buf);
	assert_string_equal(buf, "\033[2A\r\033[J");
	/* nothing shown, nothing to clear */
	assert_int_equal(RENDER(0, NULL, 0, false, buf), 0);
	assert_string_equal(buf, "");
}

/* Lines are cut to the width less one column, so none wraps and the count stays right. */
static void test_cut_to_width(void **state)
{
	char buf[256];

	(void)state;
	/* 16 columns: "gpubench: " (10) + 5 of the line */
	RENDER(0, "0123456789\nab", 16, false, buf);
	assert_string_equal(buf, "\r\033[Kgpubench: 01234\n\r\033[Kgpubench: ab\n");
	/* exactly fits: 10 + 5 = 15 = cols - 1 */
	RENDER(0, "01234", 16, false, buf);
	assert_string_equal(buf, "\r\033[Kgpubench: 01234\n");
	/* a terminal narrower than the prefix still gets one line per line */
	RENDER(0, "abc", 5, false, buf);
	assert_string_equal(buf, "\r\033[Kgpubench: \n");
}

static void test_alarm(void **state)
{
	static const char *const bad[] = {
		"stress gpu 0:  45% eta 5m  700 TFLOP/s  71 C  650 W  1755 MHz  errors 3",
		"stress gpu 1: 100% eta -  - TFLOP/s  - C  - W  - MHz  errors 0  hung",
		"stress gpu 1: 100% eta -  errors 0  failed",
		"stress gpu 1: 100% eta -  errors 0  error",
		"errors 0010",
	};
	static const char *const good[] = {
		"stress gpu 0:  45% eta 5m  700 TFLOP/s  71 C  650 W  1755 MHz  errors 0",
		"stress gpu 0:  45% eta 5m  errors 0  done",
		"stress gpu 0: errors 000  starting",
		"no errors here",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_true(gb_status_line_alarm(bad[i], strlen(bad[i])));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_false(gb_status_line_alarm(good[i], strlen(good[i])));
	/* only the length given counts */
	assert_false(gb_status_line_alarm("errors 0\nerrors 5", 8));
}

/* Colour marks only the lines in trouble, and only when asked for. */
static void test_color(void **state)
{
	char buf[256];

	(void)state;
	RENDER(0, "gpu 0 errors 0\ngpu 1 errors 2", 0, true, buf);
	assert_string_equal(buf, "\r\033[Kgpubench: gpu 0 errors 0\n"
				 "\r\033[K\033[31mgpubench: gpu 1 errors 2\033[0m\n");
	RENDER(0, "gpu 1 errors 2", 0, false, buf);
	assert_string_equal(buf, "\r\033[Kgpubench: gpu 1 errors 2\n");
}

/* A short buffer is filled and terminated; the return says what was needed. */
static void test_truncated_buffer(void **state)
{
	char small[8];
	const char *want = "\033[2A\r\033[Kgpubench: a\n\r\033[J";

	(void)state;
	assert_int_equal(gb_status_render(2, "a", 0, false, small, sizeof(small)), strlen(want));
	assert_string_equal(small, "\033[2A\r\033[");
	assert_int_equal(gb_status_render(2, "a", 0, false, NULL, 0), strlen(want));
}

/* A block drawn into memory: what it writes lands in mem->buf once closed. */
struct mem_out {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_block(struct gb_status_line *s, struct mem_out *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	gb_status_line_init(s, m->f, false);
}

/* Through a FILE: a kept line goes above the block, the block is drawn again, release clears. */
static void test_print_around_block(void **state)
{
	struct gb_status_line s;
	struct mem_out m;

	(void)state;
	mem_block(&s, &m);
	gb_status_line_show(&s, "g0\ng1");
	gb_status_line_print(&s, "gpubench: kept");
	gb_status_line_show(&s, "g0");
	gb_status_line_release(&s);
	fclose(m.f);
	assert_string_equal(m.buf,
			    /* the block */
			    "\r\033[Kgpubench: g0\n\r\033[Kgpubench: g1\n"
			    /* cleared, the line, the block again */
			    "\033[2A\r\033[J" "gpubench: kept\n"
			    "\r\033[Kgpubench: g0\n\r\033[Kgpubench: g1\n"
			    /* shrunk to one line */
			    "\033[2A\r\033[Kgpubench: g0\n\r\033[J"
			    /* cleared at the end */
			    "\033[1A\r\033[J");
	free(m.buf);
}

/* With no block shown a kept line is just the line. */
static void test_print_without_block(void **state)
{
	struct gb_status_line s;
	struct mem_out m;

	(void)state;
	mem_block(&s, &m);
	gb_status_line_print(&s, "gpubench: only");
	gb_status_line_release(&s);
	fclose(m.f);
	assert_string_equal(m.buf, "gpubench: only\n");
	free(m.buf);
}

/* A diagnostic (cmd/log.c) while a block is shown goes above it; after, to stderr again. */
static void test_warning_above_block(void **state)
{
	struct gb_status_line s;
	struct mem_out m;

	(void)state;
	mem_block(&s, &m);
	gb_status_line_show(&s, "g0");
	gb_log_set_live_block(&s);
	gb_warn("no progress for %d s", 120);
	gb_log_set_live_block(NULL);
	gb_status_line_release(&s);
	gb_warn("after the block: on stderr, not in the block's file");
	fclose(m.f);
	assert_string_equal(m.buf, "\r\033[Kgpubench: g0\n"
				 "\033[1A\r\033[J" "gpubench: warning: no progress for 120 s\n"
				 "\r\033[Kgpubench: g0\n"
				 "\033[1A\r\033[J");
	free(m.buf);
}

/*
 * The watchdog's exit: the block is cleared and stays so (the lock is kept,
 * so no thread draws it again), and what is logged after goes to stderr.
 */
static void test_drop_block_for_exit(void **state)
{
	struct gb_status_line s;
	struct mem_out m;

	(void)state;
	mem_block(&s, &m);
	gb_status_line_show(&s, "g0\ng1");
	gb_log_set_live_block(&s);
	gb_log_drop_live_block();
	gb_warn("after the drop: on stderr, not in the block's file");
	assert_int_equal(pthread_mutex_trylock(&s.lock), EBUSY);
	/* a second drop finds no block; a holder that never lets go is not waited for */
	gb_log_drop_live_block();
	assert_false(gb_status_line_abandon(&s, 0.05));
	free(s.text); /* an abandoned block is never released: the process ends */
	fclose(m.f);
	assert_string_equal(m.buf, "\r\033[Kgpubench: g0\n\r\033[Kgpubench: g1\n"
				 "\033[2A\r\033[J");
	free(m.buf);
}

/* gb_status() (bench.h) is a watchdog beat, as a progress line is, with or without a block. */
struct seen {
	int beats, shows;
	const char *beat_line, *shown;
};

static void seen_beat(void *user, const char *line, double expect_s)
{
	struct seen *s = user;

	(void)expect_s;
	s->beats++;
	s->beat_line = line;
}

static void seen_status(void *user, const char *text)
{
	struct seen *s = user;

	s->shows++;
	s->shown = text;
}

static void test_status_beats(void **state)
{
	struct seen s = { 0, 0, NULL, NULL };
	struct gb_ctx ctx;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.beat = seen_beat;
	ctx.beat_user = &s;
	ctx.status = seen_status;
	ctx.status_user = &s;
	gb_status(&ctx, "gpu 0\ngpu 1");
	assert_int_equal(s.beats, 1);
	assert_int_equal(s.shows, 1);
	assert_string_equal(s.beat_line, "gpu 0\ngpu 1");
	assert_string_equal(s.shown, "gpu 0\ngpu 1");
	gb_status(&ctx, NULL);
	assert_int_equal(s.beats, 2);
	assert_null(s.shown);
	/* no status channel (not a terminal): still a beat */
	ctx.status = NULL;
	gb_status(&ctx, "gpu 0");
	assert_int_equal(s.beats, 3);
	assert_int_equal(s.shows, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_lines),
		cmocka_unit_test(test_first_draw),
		cmocka_unit_test(test_redraw_same_height),
		cmocka_unit_test(test_redraw_height_changes),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_cut_to_width),
		cmocka_unit_test(test_alarm),
		cmocka_unit_test(test_color),
		cmocka_unit_test(test_truncated_buffer),
		cmocka_unit_test(test_print_around_block),
		cmocka_unit_test(test_print_without_block),
		cmocka_unit_test(test_warning_above_block),
		cmocka_unit_test(test_drop_block_for_exit),
		cmocka_unit_test(test_status_beats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
