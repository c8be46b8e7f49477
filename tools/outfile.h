/* SPDX-License-Identifier: MIT */
/*
 * Output files written whole or not at all, and written where the user
 * pointed.  A regular file (or a name not there yet) is written beside
 * itself and renamed over itself only when complete, so a failed write
 * leaves it as it was; through a symbolic link, the file the link points
 * to is the one replaced, and the link stays.  Anything else, a FIFO, a
 * terminal, /dev/stdout, /dev/full, is written through, and its write
 * errors are reported.  "-" is standard output.
 */
#ifndef QSIM_TOOLS_OUTFILE_H
#define QSIM_TOOLS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include <glib.h>

struct qsim_out {
	FILE *f;
	char *path;   /* as given, for messages */
	char *tmp;    /* written here, renamed to @target; NULL: through */
	char *target; /* the regular file replaced */
};

/* Does @path write standard output: "-", or the file, pipe or terminal
 * it is (/dev/stdout, /dev/fd/1, or its very file by name)?  Then the
 * data must have it alone. */
bool qsim_out_is_stdout(const char *path);
/* Open @path for writing; false with @error (naming @path) if it cannot
 * be. */
bool qsim_out_open(struct qsim_out *o, const char *path, GError **error);
/*
 * Finish: with @keep, check every write and put the file in place; without
 * (the caller failed), remove what was written beside.  False with @error
 * when a write or the rename failed (then the old file stays).
 */
bool qsim_out_close(struct qsim_out *o, bool keep, GError **error);
/* @len bytes of @data to @o; false with @error (naming @o's path, or
 * standard output, and why: a full disk, a closed pipe) if the write
 * failed.  qsim_out_close(o, false, NULL) must follow a failure. */
bool qsim_out_write(struct qsim_out *o, const void *data, size_t len,
		    GError **error);
/* @text to @path, as above. */
bool qsim_write_file(const char *path, const char *text, GError **error);
/* Standard output's buffered writes, flushed and checked: false with
 * @error if any failed (a full disk, a closed pipe). */
bool qsim_stdout_flush(GError **error);

#endif
