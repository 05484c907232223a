/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - writing a document to what `-o FILE` names without destroying
 * what is there (see outfile.h): the atomic temporary-file-and-rename for
 * regular files and new paths, and a direct write for devices, pipes and
 * this process's own descriptors. As root a rename over /dev/null or
 * /dev/stdout would replace the device node with a regular file.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "result.h"

/* Symbolic links followed before giving up, as the kernel's own limit. */
#define MAX_LINK_HOPS 40
/* How long a named pipe may go without a reader before the write gives up. */
#define FIFO_WAIT_S 10

/* "12" -> 12; -1 unless s is a non-empty run of decimal digits */
static int parse_fd_number(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

/*
 * The descriptor a path names in this process (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N, /proc/<our pid>/fd/N), else -1. The /proc entries are
 * "magic" links whose text ("pipe:[1234]") is not a path: they are written
 * through the descriptor, as the shell does for `> /dev/stdout`.
 */
static int fd_of_path(const char *p)
{
	char own[64];

	if (!strcmp(p, "/dev/stdin"))
		return 0;
	if (!strcmp(p, "/dev/stdout"))
		return 1;
	if (!strcmp(p, "/dev/stderr"))
		return 2;
	if (!strncmp(p, "/dev/fd/", 8))
		return parse_fd_number(p + 8);
	if (!strncmp(p, "/proc/self/fd/", 14))
		return parse_fd_number(p + 14);
	if (!strncmp(p, "/proc/thread-self/fd/", 21))
		return parse_fd_number(p + 21);
	snprintf(own, sizeof(own), "/proc/%ld/fd/", (long)getpid());
	if (!strncmp(p, own, strlen(own)))
		return parse_fd_number(p + strlen(own));
	return -1;
}

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "cannot write '%s': %s", path, why);
	return -1;
}

/* The next path of a link: its text, relative to the link's folder unless absolute. */
static int follow_link(char *cur, size_t len)
{
	char text[4096], *copy;
	ssize_t n = readlink(cur, text, sizeof(text) - 1);
	int w;

	if (n < 0)
		return -1;
	text[n] = '\0';
	if (text[0] == '/') {
		w = snprintf(cur, len, "%s", text);
	} else {
		copy = gb_strdup(cur);
		w = snprintf(cur, len, "%s/%s", dirname(copy), text);
		free(copy);
	}
	if (w < 0 || (size_t)w >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* What an existing non-link path is: 0 with t->kind set, or -1 after fail(). */
static int classify(const char *path, const struct stat *st, struct gb_out_target *t,
		    char *err, size_t errlen)
{
	if (S_ISREG(st->st_mode)) {
		t->kind = GB_OUTK_FILE;
		t->exists = true;
		return 0;
	}
	if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) {
		t->kind = GB_OUTK_DIRECT;
		return 0;
	}
	if (S_ISDIR(st->st_mode))
		return fail(err, errlen, path, "it is a directory");
	if (S_ISBLK(st->st_mode))
		return fail(err, errlen, path, "it is a block device (never written)");
	return fail(err, errlen, path, "it is a socket");
}

int gb_out_target_resolve(const char *path, struct gb_out_target *t, char *err, size_t errlen)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (!strcmp(path, "-")) {
		t->kind = GB_OUTK_STDOUT;
		return 0;
	}
	if (!*path)
		return fail(err, errlen, path, "empty file name");
	if (strlen(path) + sizeof(".tmp.XXXXXX") > sizeof(t->path))
		return fail(err, errlen, path, "path too long");
	snprintf(t->path, sizeof(t->path), "%s", path);
	for (int hop = 0; hop <= MAX_LINK_HOPS; hop++) {
		t->fd = fd_of_path(t->path);
		if (t->fd >= 0) {
			t->kind = GB_OUTK_FD;
			return 0;
		}
		if (lstat(t->path, &st) != 0) {
			if (errno != ENOENT)
				return fail(err, errlen, path, strerror(errno));
			/* a new path, or where a dangling link points: created there */
			t->kind = GB_OUTK_FILE;
			return 0;
		}
		if (!S_ISLNK(st.st_mode))
			return classify(path, &st, t, err, errlen);
		if (follow_link(t->path, sizeof(t->path) - sizeof(".tmp.XXXXXX")))
			return fail(err, errlen, path, strerror(errno));
	}
	return fail(err, errlen, path, strerror(ELOOP));
}

bool gb_out_is_stdout(const char *path)
{
	struct gb_out_target t;
	char err[16];

	if (!path || gb_out_target_resolve(path, &t, err, sizeof(err)))
		return false;
	return t.kind == GB_OUTK_STDOUT || (t.kind == GB_OUTK_FD && t.fd == STDOUT_FILENO);
}

/* ---- writing ---- */

/* mkstemp creates 0600 files: give a new file the mode the user's umask asks for */
static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* the rename is only durable once the folder's entry is on disk */
static void sync_parent_dir(const char *path)
{
	char *copy = gb_strdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/* The replaced file keeps its mode and (where allowed) its owner: a 0600 report stays 0600. */
static int take_over_mode(int fd, const char *target)
{
	struct stat st;

	if (stat(target, &st) != 0)
		return fchmod(fd, 0666 & ~current_umask());
	if (fchown(fd, st.st_uid, st.st_gid) != 0) {
		/* not root: the new file is ours, as any editor's save would make it */
	}
	return fchmod(fd, st.st_mode & 07777);
}

/* Temporary file beside the target, fsync, rename over it. */
static int write_atomic(const char *shown, const char *target, gb_fmt_writer *writer,
			const void *ctx, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *fp = NULL;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", target);
	fd = mkstemp(tmp);
	if (fd < 0 || take_over_mode(fd, target) || !(fp = fdopen(fd, "w"))) {
		fail(err, errlen, shown, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	/* fsync before rename: a crash leaves the old file or the new one, never half */
	errno = 0;
	if (writer(ctx, fp) || fflush(fp) || fsync(fileno(fp))) {
		fail(err, errlen, shown, strerror(errno ? errno : EIO));
		fclose(fp);
		unlink(tmp);
		return -1;
	}
	if (fclose(fp) || rename(tmp, target)) {
		fail(err, errlen, shown, strerror(errno));
		unlink(tmp);
		return -1;
	}
	sync_parent_dir(target);
	return 0;
}

/*
 * Open a named pipe for writing without hanging forever when nobody reads
 * it: a reader has FIFO_WAIT_S seconds to appear. Then it blocks as usual.
 */
static int open_fifo(const char *path)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	int fd = -1;

	for (int i = 0; i < FIFO_WAIT_S * 20; i++) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO)
			break;
		nanosleep(&nap, NULL);
	}
	if (fd < 0) {
		if (errno == ENXIO)
			errno = EPIPE;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Write to an open descriptor through a stream (fd is closed here). */
static int write_stream(const char *shown, int fd, gb_fmt_writer *writer, const void *ctx,
			char *err, size_t errlen)
{
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	int bad;

	if (!fp) {
		fail(err, errlen, shown, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	errno = 0;
	bad = writer(ctx, fp) || fflush(fp);
	if (bad)
		fail(err, errlen, shown, strerror(errno ? errno : EIO));
	if (fclose(fp) && !bad) {
		fail(err, errlen, shown, strerror(errno));
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* A device or a pipe: written in place, never replaced. */
static int write_direct(const char *shown, const char *target, gb_fmt_writer *writer,
			const void *ctx, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (stat(target, &st) == 0 && S_ISFIFO(st.st_mode))
		fd = open_fifo(target);
	else
		fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EPIPE)
			return fail(err, errlen, shown, "no process read the named pipe");
		return fail(err, errlen, shown, strerror(errno));
	}
	return write_stream(shown, fd, writer, ctx, err, errlen);
}

/* One of our descriptors (/dev/stdout): what the process wrote there so far goes first. */
static int write_fd(const char *shown, int fd, gb_fmt_writer *writer, const void *ctx, char *err,
		    size_t errlen)
{
	fflush(stdout); /* check-style: allow stdout-outside-cmd: ordering only, nothing printed */
	fflush(stderr);
	return write_stream(shown, fcntl(fd, F_DUPFD_CLOEXEC, 3), writer, ctx, err, errlen);
}

int gb_fmt_write_file(const char *path, gb_fmt_writer *writer, const void *ctx, char *err,
		      size_t errlen)
{
	struct gb_out_target t;

	if (gb_out_target_resolve(path, &t, err, errlen))
		return -1;
	switch (t.kind) {
	case GB_OUTK_STDOUT:
		/* '-o -' names standard output */
		if (writer(ctx, stdout) == 0 && fflush(stdout) == 0) /* check-style: allow stdout-outside-cmd */
			return 0;
		snprintf(err, errlen, "cannot write to standard output");
		return -1;
	case GB_OUTK_FD:
		return write_fd(path, t.fd, writer, ctx, err, errlen);
	case GB_OUTK_DIRECT:
		return write_direct(path, t.path, writer, ctx, err, errlen);
	case GB_OUTK_FILE:
		break;
	}
	return write_atomic(path, t.path, writer, ctx, err, errlen);
}
