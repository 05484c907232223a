/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - what `-o FILE` names, and how a document is written there
 * without destroying it (issue 19, item 1).
 *
 * A regular file or a new path gets the atomic write: a temporary file in
 * the same folder, fsync, rename. Anything else that already exists is not
 * replaced by a regular file:
 *   - a symbolic link is followed (the whole chain, also a dangling one) and
 *     the file it points to is written atomically, the link stays;
 *   - a character device or a named pipe (FIFO) is opened and written
 *     directly, as `cat > FILE` would;
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N (also reached
 *     through a link) are written to that descriptor of this process;
 *   - a directory, a block device or a socket is refused.
 * "-" is standard output.
 */
#ifndef GPUBENCH_REPORT_OUTFILE_H
#define GPUBENCH_REPORT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum gb_out_kind {
	GB_OUTK_STDOUT, /* "-" */
	GB_OUTK_FD,     /* a descriptor of this process: /dev/stdout, /dev/fd/N, ... */
	GB_OUTK_DIRECT, /* a character device or FIFO: opened and written in place */
	GB_OUTK_FILE    /* a regular file or a new path: temporary file, then rename */
};

struct gb_out_target {
	enum gb_out_kind kind;
	int fd;          /* GB_OUTK_FD: the descriptor */
	bool exists;     /* GB_OUTK_FILE: the file is there already */
	char path[4096]; /* the file written: a link's final target for GB_OUTK_FILE */
};

/*
 * Classify path (following symbolic links). 0, or -1 with one line in err
 * ("cannot write 'x': it is a directory"): an empty path, a directory, a
 * block device, a socket, a link loop, a path too long.
 */
int gb_out_target_resolve(const char *path, struct gb_out_target *t, char *err, size_t errlen);

/* true when path is standard output: "-", /dev/stdout, /dev/fd/1, or a link to one */
bool gb_out_is_stdout(const char *path);

/*
 * Write a document to what path names without destroying it (outfile.c,
 * outfile.h): a regular file or a new path atomically (a temporary file in
 * the same folder, then rename), a symbolic link's target atomically with
 * the link kept, a character device, a FIFO or /dev/stdout in place.
 * writer(ctx, stream) produces it. "-" is standard output. 0, or -1 with
 * one line in err.
 */
typedef int gb_fmt_writer(const void *ctx, FILE *out);
int gb_fmt_write_file(const char *path, gb_fmt_writer *writer, const void *ctx, char *err,
		      size_t errlen);

#endif
