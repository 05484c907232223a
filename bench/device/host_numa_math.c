/* SPDX-License-Identifier: MIT */
/* host_numa_math.c - CPU lists, PCI sysfs names, page placement (see host_numa_math.h). */
#include "bench/device/host_numa_math.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONG_BITS (8 * sizeof(unsigned long))

static void set_bit(unsigned long *mask, size_t i)
{
	mask[i / LONG_BITS] |= 1ul << (i % LONG_BITS);
}

static bool has_bit(const unsigned long *mask, size_t i)
{
	return (mask[i / LONG_BITS] >> (i % LONG_BITS)) & 1ul;
}

/* One decimal number at *p, advancing it; false if there is none or it is too large. */
static bool read_num(const char **p, size_t limit, size_t *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= limit)
		return false;
	*p = end;
	*out = v;
	return true;
}

int gb_cpulist_parse(const char *text, unsigned long *mask, size_t nbits)
{
	const char *p = text;
	int count = 0;

	memset(mask, 0, (nbits + LONG_BITS - 1) / LONG_BITS * sizeof(unsigned long));
	while (*p && *p != '\n') {
		size_t lo, hi;

		if (!read_num(&p, nbits, &lo))
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!read_num(&p, nbits, &hi) || hi < lo)
				return -1;
		}
		for (size_t i = lo; i <= hi; i++) {
			if (!has_bit(mask, i))
				count++;
			set_bit(mask, i);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return count;
}

void gb_cpulist_format(const unsigned long *mask, size_t nbits, char *buf, size_t len)
{
	size_t pos = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < nbits && pos < len; i++) {
		size_t j = i;

		if (!has_bit(mask, i))
			continue;
		while (j + 1 < nbits && has_bit(mask, j + 1))
			j++;
		if (j == i)
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%zu", pos ? "," : "", i);
		else
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%zu-%zu", pos ? "," : "", i,
						j);
		i = j;
	}
}

/* n hex digits at s, lowercased into out; false if any is not hex */
static bool hex_field(const char *s, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	return true;
}

bool gb_pci_sysfs_name(const char *bus_id, char *buf, size_t len)
{
	char dom[9] = { 0 }, bus[3] = { 0 }, dev[3] = { 0 }, fn[2] = { 0 };
	size_t dlen;
	const char *colon = bus_id ? strchr(bus_id, ':') : NULL;

	if (!colon)
		return false;
	dlen = (size_t)(colon - bus_id);
	/* domain: 4 or 8 hex digits, the upper 4 of 8 must be zero to name a sysfs entry */
	if ((dlen != 4 && dlen != 8) || !hex_field(bus_id, dlen, dom))
		return false;
	if (dlen == 8) {
		if (strncmp(dom, "0000", 4))
			return false;
		memmove(dom, dom + 4, 5);
	}
	/* ":BB:DD.F" and nothing after it */
	if (strlen(colon) != 8 || colon[3] != ':' || colon[6] != '.' ||
	    !hex_field(colon + 1, 2, bus) || !hex_field(colon + 4, 2, dev) ||
	    !hex_field(colon + 7, 1, fn))
		return false;
	return snprintf(buf, len, "%s:%s:%s.%s", dom, bus, dev, fn) < (int)len;
}

int gb_pages_majority(const int *status, size_t n, size_t *on_node, size_t *placed)
{
	int best = -1;
	size_t best_n = 0, total = 0;

	for (size_t i = 0; i < n; i++) {
		size_t c = 0;

		if (status[i] < 0)
			continue;
		total++;
		for (size_t j = 0; j < n; j++)
			c += status[j] == status[i];
		if (c > best_n || (c == best_n && status[i] < best)) {
			best = status[i];
			best_n = c;
		}
	}
	*on_node = best_n;
	*placed = total;
	return best;
}
