/* SPDX-License-Identifier: MIT */
/* status_line.c - a block of lines redrawn in place on a terminal; see status_line.h. */
#include "status_line.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bench/device/clock.h"
#include "bench/device/deadline_math.h"

#define COLOR_RED "\033[31m"
#define COLOR_OFF "\033[0m"

unsigned gb_status_count_lines(const char *text)
{
	unsigned n = 1;

	if (!text || !*text)
		return 0;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* word occurs in line[0, len) with no letter on either side */
static bool has_word(const char *line, size_t len, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= len; i++) {
		if (strncmp(line + i, word, w))
			continue;
		if ((i == 0 || !isalpha((unsigned char)line[i - 1])) &&
		    (i + w == len || !isalpha((unsigned char)line[i + w])))
			return true;
	}
	return false;
}

/* "errors N" with N > 0 somewhere in line[0, len) */
static bool nonzero_errors(const char *line, size_t len)
{
	static const char key[] = "errors ";
	const size_t k = sizeof(key) - 1;

	for (size_t i = 0; i + k < len; i++) {
		size_t j = i + k;

		if (strncmp(line + i, key, k))
			continue;
		while (j < len && line[j] == '0')
			j++;
		if (j < len && isdigit((unsigned char)line[j]))
			return true;
	}
	return false;
}

bool gb_status_line_alarm(const char *line, size_t len)
{
	return nonzero_errors(line, len) || has_word(line, len, "failed") ||
	       has_word(line, len, "error") || has_word(line, len, "hung");
}

/* An snprintf-like appender that keeps counting past the end of buf. */
struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->used < o->len) {
		size_t room = o->len - 1 - o->used;

		memcpy(o->buf + o->used, s, n < room ? n : room);
	}
	o->used += n;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* One line of the block: cleared, prefixed, cut to the width, ended with '\n'. */
static void put_line(struct out *o, const char *line, size_t n, unsigned cols, bool color)
{
	const size_t prefix = sizeof(GB_STATUS_PREFIX) - 1;
	bool red = color && gb_status_line_alarm(line, n);

	/* the last column stays empty: some terminals wrap as soon as it is written */
	if (cols)
		n = cols <= prefix + 1 ? 0 : n < cols - 1 - prefix ? n : cols - 1 - prefix;
	put_str(o, "\r\033[K");
	if (red)
		put_str(o, COLOR_RED);
	put_str(o, GB_STATUS_PREFIX);
	put(o, line, n);
	if (red)
		put_str(o, COLOR_OFF);
	put_str(o, "\n");
}

size_t gb_status_render(unsigned prev_lines, const char *text, unsigned cols, bool color, char *buf,
			size_t len)
{
	struct out o = { buf, len, 0 };
	unsigned lines = gb_status_count_lines(text);
	char up[32];

	if (prev_lines) {
		snprintf(up, sizeof(up), "\033[%uA", prev_lines);
		put_str(&o, up);
	}
	for (const char *p = text; lines && p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		put_line(&o, p, n, cols, color);
		p = nl ? nl + 1 : NULL;
	}
	/* what a taller old block leaves below the new one (all of it when clearing) */
	if (prev_lines > lines)
		put_str(&o, "\r\033[J");
	if (len)
		buf[o.used < len ? o.used : len - 1] = '\0';
	return o.used;
}

/* ---- writing to a terminal ---- */

static unsigned term_cols(FILE *f)
{
	struct winsize ws;

	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

void gb_status_line_init(struct gb_status_line *s, FILE *out, bool color)
{
	memset(s, 0, sizeof(s[0]));
	s->out = out;
	s->color = color;
	pthread_mutex_init(&s->lock, NULL);
}

/* Draw text over the block now shown (lock held). */
static void draw_locked(struct gb_status_line *s, const char *text)
{
	unsigned cols = term_cols(s->out);
	size_t need = gb_status_render(s->lines, text, cols, s->color, NULL, 0);
	char *buf = malloc(need + 1);

	if (!buf)
		return;
	gb_status_render(s->lines, text, cols, s->color, buf, need + 1);
	fwrite(buf, 1, need, s->out);
	fflush(s->out);
	free(buf);
	s->lines = gb_status_count_lines(text);
}

void gb_status_line_show(struct gb_status_line *s, const char *text)
{
	char *copy = text ? strdup(text) : NULL;

	pthread_mutex_lock(&s->lock);
	draw_locked(s, text);
	free(s->text);
	s->text = copy;
	pthread_mutex_unlock(&s->lock);
}

void gb_status_line_print(struct gb_status_line *s, const char *line)
{
	pthread_mutex_lock(&s->lock);
	draw_locked(s, NULL);
	fprintf(s->out, "%s\n", line);
	draw_locked(s, s->text);
	pthread_mutex_unlock(&s->lock);
}

bool gb_status_line_abandon(struct gb_status_line *s, double wait_s)
{
	if (!gb_mutex_lock_until(&s->lock, gb_now_s() + wait_s))
		return false;
	draw_locked(s, NULL);
	return true;
}

void gb_status_line_release(struct gb_status_line *s)
{
	if (!s->out)
		return;
	gb_status_line_show(s, NULL);
	pthread_mutex_destroy(&s->lock);
	s->out = NULL;
}
