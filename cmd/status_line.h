/* SPDX-License-Identifier: MIT */
/*
 * status_line.h - a block of lines redrawn in place on a terminal (the live
 * status a benchmark shows through gb_ctx.status: stress's line per GPU),
 * with progress lines printed around it without garbling it.
 *
 * The cursor model: after a block is drawn the cursor sits at column 0 of
 * the line below it. A redraw moves up as many lines as were drawn, rewrites
 * each line after "\r\033[K" and ends each with '\n'; what is left of a
 * taller old block is erased with "\033[J". A line is cut to the terminal's
 * width, so no line wraps and the count of lines to move up stays exact.
 * A line that must stay (a progress line, the final state) is printed by
 * clearing the block, printing the line, and drawing the block again below.
 *
 * gb_status_render() builds the bytes and is pure, for the unit tests; the
 * rest writes them to a FILE under a lock (the benchmark's threads call in).
 */
#ifndef GPUBENCH_CMD_STATUS_LINE_H
#define GPUBENCH_CMD_STATUS_LINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Each line of the block starts with this, as progress lines do. */
#define GB_STATUS_PREFIX "gpubench: "

/* Lines in text: 0 for NULL or "", else one more than its '\n's. */
unsigned gb_status_count_lines(const char *text);

/*
 * Whether a status line reports trouble (drawn red with colour): a nonzero
 * "errors N", or the word "failed", "error" or "hung".
 */
bool gb_status_line_alarm(const char *line, size_t len);

/*
 * The exact bytes that replace a block of prev_lines lines (0: none shown)
 * with text (NULL or "": clear it). cols is the terminal's width (0:
 * unknown, no cutting); each line is cut so prefix and line fill at most
 * cols - 1 columns. color: lines that gb_status_line_alarm() flags are
 * wrapped in red. Writes at most len - 1 bytes and a NUL into buf, like
 * snprintf, and returns the length the whole output needs.
 */
size_t gb_status_render(unsigned prev_lines, const char *text, unsigned cols, bool color, char *buf,
			size_t len);

/* The block shown on one terminal. */
struct gb_status_line {
	FILE *out;
	bool color;
	unsigned lines;        /* lines of the block now shown; 0 none */
	char *text;            /* the block now shown, to draw again after a kept line */
	pthread_mutex_t lock;
};

void gb_status_line_init(struct gb_status_line *s, FILE *out, bool color);
/* Draw text in place of the block now shown; NULL clears it. */
void gb_status_line_show(struct gb_status_line *s, const char *text);
/* Print one line that stays (a '\n' is added): above the block, which is drawn again. */
void gb_status_line_print(struct gb_status_line *s, const char *line);
/*
 * For a process about to end (the watchdog's exit): clear the block and
 * keep the lock, so no thread draws it again. Waits at most wait_s for a
 * thread that holds the lock (stuck writing to a paused terminal, say);
 * false, and nothing written, when it did not get it.
 */
bool gb_status_line_abandon(struct gb_status_line *s, double wait_s);
/* Clear the block and free; s can be initialised again. */
void gb_status_line_release(struct gb_status_line *s);

#endif
