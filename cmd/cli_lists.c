/* SPDX-License-Identifier: MIT */
/*
 * cli_lists.c - the option parser's list values (see cli.h): int lists with
 * ranges ("1K:1M:x2"), device lists ("0,2", "0-3", "all") and resolving a
 * device list against the GPUs found. One error line per rejection.
 * May use: cmd/cli.h, cmd/cli_internal.h, cmd/log.h, the C library.
 */
#include "cmd/cli.h"
#include "cmd/cli_internal.h"
#include "cmd/log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- int lists ---------------------------------------------------------- */

static int list_push(struct gb_int_list *l, uint64_t v, const char *nm)
{
	if (l->n >= GB_INT_LIST_MAX)
		return gb_error("%s has more than %d values", nm, GB_INT_LIST_MAX);
	l->v[l->n++] = v;
	return 0;
}

static int list_value(const char *s, const char *elem, const char *nm, uint64_t *v)
{
	switch (parse_size_ex(s, v)) {
	case P_OK:
		return 0;
	case P_NEG:
		return gb_error("invalid value '%s' in %s: values cannot be negative", elem, nm);
	case P_BIG:
		return gb_error("invalid value '%s' in %s: too large", elem, nm);
	default:
		return gb_error("invalid value '%s' in %s: expected a number like 1024 or 4K, "
				"or a range like 1K:1M:x2", elem, nm);
	}
}

/* number of values in a range, capped at GB_INT_LIST_MAX + 1 */
static size_t range_len(uint64_t start, uint64_t stop, uint64_t step, uint64_t factor)
{
	size_t n = 0;

	if (!factor) {
		uint64_t q = (stop - start) / step;

		return q >= GB_INT_LIST_MAX ? GB_INT_LIST_MAX + 1 : (size_t)q + 1;
	}
	for (uint64_t v = start; v <= stop && n <= GB_INT_LIST_MAX; v *= factor) {
		n++;
		if (v > stop / factor)
			break;
	}
	return n;
}

/* the step part of a range: "4K" (linear) or "x2" (geometric) */
static int range_step(const char *s, const char *elem, const char *nm, uint64_t *step,
		      uint64_t *factor)
{
	int64_t f;

	*step = 0;
	*factor = 0;
	if (s[0] == 'x' || s[0] == 'X') {
		if (parse_count_ex(s + 1, &f) || f < 2 || s[1] == '-' || s[1] == '+')
			return gb_error("invalid range '%s' for %s: the factor must be a whole "
					"number of at least 2, as in 1:64:x2", elem, nm);
		*factor = (uint64_t)f;
		return 0;
	}
	if (list_value(s, elem, nm, step))
		return -1;
	if (!*step)
		return gb_error("invalid range '%s' for %s: the step must be at least 1", elem, nm);
	return 0;
}

static int list_range(const struct gb_opt *o, struct gb_int_list *l, char *work,
		      const char *elem, const char *nm, const char *each)
{
	char *stop_s = strchr(work, ':');
	char *step_s = stop_s ? strchr(stop_s + 1, ':') : NULL;
	uint64_t start, stop, step, factor, v;
	size_t n;

	if (!step_s || strchr(step_s + 1, ':'))
		return gb_error("invalid range '%s' for %s: expected start:stop:step or "
				"start:stop:xF", elem, nm);
	*stop_s++ = '\0';
	*step_s++ = '\0';
	if (list_value(work, elem, nm, &start) || list_value(stop_s, elem, nm, &stop) ||
	    range_step(step_s, elem, nm, &step, &factor))
		return -1;
	if (start > stop)
		return gb_error("invalid range '%s' for %s: start is above stop", elem, nm);
	if (factor && !start)
		return gb_error("invalid range '%s' for %s: a geometric range cannot start at 0",
				elem, nm);
	n = range_len(start, stop, step, factor);
	if (n > GB_INT_LIST_MAX)
		return gb_error("range '%s' gives more than %d values for %s", elem,
				GB_INT_LIST_MAX, nm);
	v = start;
	for (size_t i = 0; i < n; i++) {
		if (check_range(o, GB_OPT_INT_LIST, (double)v, each) || list_push(l, v, nm))
			return -1;
		v = factor ? v * factor : v + step; /* may wrap after the last value; unused */
	}
	return 0;
}

static int list_elem(const struct gb_opt *o, struct gb_int_list *l, const char *s, size_t len,
		     const char *val, const char *nm, const char *each)
{
	char elem[96], work[96];
	uint64_t v;

	if (!len)
		return gb_error("empty element in %s list '%s'", nm, val);
	if (len >= sizeof(elem))
		return gb_error("invalid value '%.*s...' in %s: too long", 32, s, nm);
	memcpy(elem, s, len);
	elem[len] = '\0';
	memcpy(work, elem, len + 1);
	if (strchr(elem, ':'))
		return list_range(o, l, work, elem, nm, each);
	if (list_value(elem, elem, nm, &v) || check_range(o, GB_OPT_INT_LIST, (double)v, each))
		return -1;
	return list_push(l, v, nm);
}

int set_int_list(const struct gb_opt *o, struct gb_int_list *field, const char *val,
		 const char *nm)
{
	struct gb_int_list tmp;
	char each[96];
	const char *s = val;

	snprintf(each, sizeof(each), "each value of %s", nm);
	tmp.n = 0;
	if (!*val)
		return gb_error("invalid value '' for %s: expected a list like 1024,4096 or a "
				"range like 1K:1M:x2", nm);
	for (;;) {
		size_t len = strcspn(s, ",");

		if (list_elem(o, &tmp, s, len, val, nm, each))
			return -1;
		if (!s[len])
			break;
		s += len + 1;
	}
	memcpy(field->v, tmp.v, tmp.n * sizeof(tmp.v[0]));
	field->n = tmp.n;
	return 0;
}

/* ---- device lists -------------------------------------------------------- */

/* digits only, no sign; returns the number of characters used, 0 if none or too large */
static size_t scan_index(const char *s, size_t len, int *v)
{
	size_t i = 0;
	long acc = 0;

	while (i < len && isdigit((unsigned char)s[i])) {
		acc = acc * 10 + (s[i] - '0');
		if (acc > 1000000)
			return 0;
		i++;
	}
	*v = (int)acc;
	return i;
}

static int device_push(const struct gb_opt *o, struct gb_device_list *l, int d, const char *nm)
{
	if (!(o->flags & GB_OPTF_ALLOW_DUP)) {
		for (size_t i = 0; i < l->n; i++) {
			if (l->idx[i] == d)
				return gb_error("device %d is listed twice in %s", d, nm);
		}
	}
	if (l->n >= GB_DEVICE_LIST_MAX)
		return gb_error("%s lists more than %d devices", nm, GB_DEVICE_LIST_MAX);
	l->idx[l->n++] = d;
	return 0;
}

static int device_elem(const struct gb_opt *o, struct gb_device_list *l, const char *s,
		       size_t len, const char *val, const char *nm)
{
	int a, b;
	size_t i;

	if (!len)
		return gb_error("empty element in %s list '%s'", nm, val);
	if (s[0] == '-' && len > 1 && isdigit((unsigned char)s[1]))
		return gb_error("invalid device '%.*s' in %s: device indices cannot be negative",
				(int)len, s, nm);
	i = scan_index(s, len, &a);
	b = a;
	if (i && i < len && s[i] == '-') {
		size_t j = scan_index(s + i + 1, len - i - 1, &b);

		i = j ? i + 1 + j : 0;
	}
	if (!i || i != len)
		return gb_error("invalid device '%.*s' in %s: expected an index like 0, a range "
				"like 0-3, or all", (int)len, s, nm);
	if (a > b)
		return gb_error("invalid device range '%.*s' in %s: start is above end", (int)len,
				s, nm);
	for (int d = a; d <= b; d++) {
		if (device_push(o, l, d, nm))
			return -1;
	}
	return 0;
}

int set_devices(const struct gb_opt *o, struct gb_device_list *field, const char *val,
		const char *nm)
{
	struct gb_device_list tmp;
	const char *s = val;

	if (!strcmp(val, "all")) {
		field->all = true;
		field->n = 0;
		return 0;
	}
	if (!*val)
		return gb_error("invalid value '' for %s: expected an index like 0, a range like "
				"0-3, or all", nm);
	tmp.n = 0;
	for (;;) {
		size_t len = strcspn(s, ",");

		if (device_elem(o, &tmp, s, len, val, nm))
			return -1;
		if (!s[len])
			break;
		s += len + 1;
	}
	field->all = false;
	memcpy(field->idx, tmp.idx, tmp.n * sizeof(tmp.idx[0]));
	field->n = tmp.n;
	return 0;
}

int gb_device_list_resolve(struct gb_device_list *list, int count)
{
	if (count < 0)
		count = 0;
	if (list->all) {
		size_t n = count > GB_DEVICE_LIST_MAX ? GB_DEVICE_LIST_MAX : (size_t)count;

		for (size_t i = 0; i < n; i++)
			list->idx[i] = (int)i;
		list->n = n;
		return 0;
	}
	for (size_t i = 0; i < list->n; i++) {
		int d = list->idx[i];

		if (d < 0)
			return gb_error("device index %d is not valid", d);
		if (d < count)
			continue;
		if (count == 0)
			return gb_error("device index %d is beyond the last GPU (found none)", d);
		if (count == 1)
			return gb_error("device index %d is beyond the last GPU (found 1: 0)", d);
		return gb_error("device index %d is beyond the last GPU (found %d: 0..%d)", d,
				count, count - 1);
	}
	return 0;
}
