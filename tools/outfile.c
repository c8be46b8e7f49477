// SPDX-License-Identifier: MIT
/* Output files; see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "tools/outfile.h"

static bool fail_errno(GError **error, int e, const char *path,
		       const char *doing)
{
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s%s",
		    path, doing, g_strerror(e));
	return false;
}

/* Is @path the file (or pipe, terminal) open as descriptor @fd? */
static bool same_as_fd(const char *path, int fd)
{
	struct stat a, b;

	return stat(path, &a) == 0 && fstat(fd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool qsim_out_is_stdout(const char *path)
{
	return strcmp(path, "-") == 0 || same_as_fd(path, STDOUT_FILENO);
}

bool qsim_out_open(struct qsim_out *o, const char *path, GError **error)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = g_strdup(path);
	if (qsim_out_is_stdout(path)) {
		o->f = stdout;
		return true;
	}
	/* /dev/stderr and the like: the file the shell opened for it is
	 * its to append to or truncate, so write through that descriptor */
	if (same_as_fd(path, STDERR_FILENO)) {
		int d = dup(STDERR_FILENO);

		o->f = d >= 0 ? fdopen(d, "w") : NULL;
		if (!o->f) {
			fail_errno(error, errno, path, "");
			if (d >= 0)
				close(d);
			goto fail;
		}
		return true;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a FIFO, a device, a terminal: written through */
		if (S_ISDIR(st.st_mode)) {
			fail_errno(error, EISDIR, path, "");
			goto fail;
		}
		o->f = fopen(path, "w");
		if (!o->f) {
			fail_errno(error, errno, path, "");
			goto fail;
		}
		return true;
	}
	/* A regular file through any links, or a new name; a dangling
	 * link's target is made where the link points, the link kept. */
	o->target = g_strdup(path);
	for (int hops = 0; lstat(o->target, &st) == 0 && S_ISLNK(st.st_mode);
	     hops++) {
		g_autofree char *to = g_file_read_link(o->target, NULL);
		char *next;

		if (!to || hops == 40) {
			fail_errno(error, ELOOP, path, "");
			goto fail;
		}
		if (g_path_is_absolute(to)) {
			next = g_steal_pointer(&to);
		} else {
			g_autofree char *dir = g_path_get_dirname(o->target);

			next = g_build_filename(dir, to, NULL);
		}
		g_free(o->target);
		o->target = next;
	}
	o->tmp = g_strdup_printf("%s.XXXXXX", o->target);
	fd = g_mkstemp_full(o->tmp, O_RDWR, 0666); /* umask applies */
	if (fd < 0) {
		fail_errno(error, errno, path, "");
		goto fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		fail_errno(error, errno, path, "");
		close(fd);
		g_unlink(o->tmp);
		goto fail;
	}
	return true;
fail:
	g_clear_pointer(&o->path, g_free);
	g_clear_pointer(&o->tmp, g_free);
	g_clear_pointer(&o->target, g_free);
	return false;
}

bool qsim_out_close(struct qsim_out *o, bool keep, GError **error)
{
	bool ok = true;

	if (!o->f)
		return true;
	if (o->f == stdout) {
		ok = !keep || qsim_stdout_flush(error);
	} else {
		bool bad;
		int e = 0;

		/* what is still buffered first: its errno says why */
		errno = 0;
		bad = fflush(o->f) != 0;
		if (bad)
			e = errno;
		if (!bad && ferror(o->f)) {
			bad = true;
			e = EIO;
		}
		if (fclose(o->f) != 0 && !bad) {
			bad = true;
			e = errno;
		}
		if (keep && bad)
			ok = fail_errno(error, e, o->path, "writing: ");
		if (o->tmp) {
			if (keep && ok && g_rename(o->tmp, o->target) != 0)
				ok = fail_errno(error, errno, o->path, "");
			if (!keep || !ok)
				g_unlink(o->tmp);
		}
	}
	o->f = NULL;
	g_clear_pointer(&o->path, g_free);
	g_clear_pointer(&o->tmp, g_free);
	g_clear_pointer(&o->target, g_free);
	return ok;
}

bool qsim_out_write(struct qsim_out *o, const void *data, size_t len,
		    GError **error)
{
	int e;

	errno = 0;
	if (fwrite(data, 1, len, o->f) == len)
		return true;
	/* now, while errno says why: the flush at the close may not */
	e = errno ? errno : EIO;
	if (o->f == stdout) {
		clearerr(stdout);
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "writing standard output: %s", g_strerror(e));
		return false;
	}
	return fail_errno(error, e, o->path, "writing: ");
}

bool qsim_write_file(const char *path, const char *text, GError **error)
{
	struct qsim_out o;

	if (!qsim_out_open(&o, path, error))
		return false;
	if (!qsim_out_write(&o, text, strlen(text), error)) {
		qsim_out_close(&o, false, NULL);
		return false;
	}
	return qsim_out_close(&o, true, error);
}

bool qsim_stdout_flush(GError **error)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = errno ? errno : EIO;

		clearerr(stdout);
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "writing standard output: %s", g_strerror(e));
		return false;
	}
	return true;
}
