// SPDX-License-Identifier: MIT
/* nbdkit-flipbed-plugin: serve a raw image like the file plugin and
 * corrupt it on demand, following fault rules armed at start (rules=) or
 * through a control socket (control=), and log what reaches the image
 * (writelog=). See nbdkit-flipbed-plugin.pod.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "control.h"
#include "faultlog.h"
#include "disk.h"
#include "inject.h"
#include "rule.h"
#include "ruleset.h"
#include "stats.h"
#include "witness.h"
#include "writelog.h"

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL

static char *disk_path, *control_path, *faultlog_path, *rules_path;
static char *writelog_path;
static bool extents_on;

static void flipbed_unload(void)
{
	fb_control_close();
	fb_rules_clear();
	fb_disk_close();
	fb_witness_close();
	fb_faultlog_close();
	fb_writelog_close();
	free(disk_path);
	free(control_path);
	free(faultlog_path);
	free(rules_path);
	free(writelog_path);
}

static int set_path(char **dst, const char *key, const char *value)
{
	free(*dst);
	*dst = nbdkit_absolute_path(value);
	return *dst ? 0 : -1;
}

static int flipbed_config(const char *key, const char *value)
{
	int r;

	if (strcmp(key, "file") == 0)
		return set_path(&disk_path, key, value);
	if (strcmp(key, "control") == 0)
		return set_path(&control_path, key, value);
	if (strcmp(key, "faultlog") == 0)
		return set_path(&faultlog_path, key, value);
	if (strcmp(key, "rules") == 0)
		return set_path(&rules_path, key, value);
	if (strcmp(key, "writelog") == 0)
		return set_path(&writelog_path, key, value);
	if (strcmp(key, "extents") == 0) {
		r = nbdkit_parse_bool(value);
		if (r < 0)
			return -1;
		extents_on = r;
		return 0;
	}
	nbdkit_error("unknown parameter '%s' (expected file, control, "
		     "faultlog, rules, writelog or extents)", key);
	return -1;
}

#define flipbed_config_help \
	"file=IMAGE            (required) The raw image to serve.\n" \
	"control=SOCKET        Unix socket to arm rules and release stalls.\n" \
	"faultlog=FILE         Append one JSON line per applied fault.\n" \
	"rules=FILE            Rules to arm at start, one per line.\n" \
	"writelog=FILE         Log writes, zeros, trims, flushes (binary).\n" \
	"extents=on|off        Report holes (SEEK_DATA/SEEK_HOLE); default off."

/* The outcomes of read_line. */
enum line_read { LINE_OK, LINE_EOF, LINE_LONG, LINE_NUL, LINE_ERROR };

/* Read one line of at most FB_LINE_MAX bytes with its newline into buf,
 * without the newline. Stops at the first NUL byte (its 1-based column in
 * *col) or at the first byte past the limit, so that no input, however
 * long, makes it read more than one line's worth.
 */
static enum line_read read_line(FILE *fp, char buf[FB_LINE_MAX], size_t *col)
{
	size_t n = 0;
	int ch;

	while ((ch = getc(fp)) != EOF && ch != '\n') {
		if (ch == '\0') {
			*col = n + 1;
			return LINE_NUL;
		}
		if (n == FB_LINE_MAX - 1)
			return LINE_LONG;
		buf[n++] = ch;
	}
	if (ch == EOF && ferror(fp))
		return LINE_ERROR;
	if (ch == EOF && n == 0)
		return LINE_EOF;
	buf[n] = '\0';
	return LINE_OK;
}

/* A regular file, opened for reading: a FIFO, a device (/dev/zero) or a
 * directory is refused before a byte is read. O_NONBLOCK keeps open from
 * waiting for a FIFO's writer; it changes nothing for a regular file.
 */
static FILE *open_rules(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	FILE *fp;

	if (fd < 0) {
		nbdkit_error("rules=%s: %m", path);
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		nbdkit_error("rules=%s: %m", path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		nbdkit_error("rules=%s: not a regular file (rules are read "
			     "from a regular file only)", path);
		close(fd);
		return NULL;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		nbdkit_error("rules=%s: %m", path);
		close(fd);
	}
	return fp;
}

static void bad_line(const char *path, size_t lineno, enum line_read got,
		     size_t col)
{
	if (got == LINE_LONG)
		nbdkit_error("rules=%s:%zu: line longer than %d bytes with "
			     "its newline", path, lineno, FB_LINE_MAX);
	else if (got == LINE_NUL)
		nbdkit_error("rules=%s:%zu: NUL byte at column %zu (a rules "
			     "file is text)", path, lineno, col);
	else
		nbdkit_error("rules=%s:%zu: %m", path, lineno);
}

/* A bare stall holds requests until a release that only the control
 * socket can give.
 */
static int check_release(struct fb_rule *r, char *err, size_t errlen)
{
	if (r->action != FB_STALL || r->stall_ms || control_path)
		return 0;
	snprintf(err, errlen, "a bare stall holds requests until release, "
		 "which needs control=SOCKET (or give stall=MS)");
	fb_rule_free(r);
	return -1;
}

/* Arm every rule of rules=FILE; an error names the file and line. */
static int load_rules(const char *path)
{
	FILE *fp = open_rules(path);
	char line[FB_LINE_MAX], err[512];
	size_t lineno = 0, col;
	enum line_read got;
	struct fb_rule r;
	int ret = 0;

	if (!fp)
		return -1;
	while (ret == 0 && (got = read_line(fp, line, &col)) != LINE_EOF) {
		const char *p;

		lineno++;
		if (got != LINE_OK) {
			bad_line(path, lineno, got, col);
			ret = -1;
			break;
		}
		p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\0')
			continue;
		if (fb_rule_parse(p, &r, err, sizeof err) < 0 ||
		    check_release(&r, err, sizeof err) < 0 ||
		    fb_control_arm(&r, err, sizeof err) < 0) {
			nbdkit_error("rules=%s:%zu: %s", path, lineno, err);
			ret = -1;
		}
	}
	fclose(fp);
	return ret;
}

static int flipbed_config_complete(void)
{
	if (!disk_path) {
		nbdkit_error("file=IMAGE is required");
		return -1;
	}
	if (fb_disk_open(disk_path) < 0) {
		nbdkit_error("file=%s: %m", disk_path);
		return -1;
	}
	/* Before rules=FILE: its rest rules' changes are logged. */
	if (writelog_path && fb_writelog_open(writelog_path) < 0) {
		nbdkit_error("writelog=%s: %m", writelog_path);
		return -1;
	}
	if (faultlog_path && fb_faultlog_open(faultlog_path) < 0) {
		nbdkit_error("faultlog=%s: %m", faultlog_path);
		return -1;
	}
	if (rules_path && load_rules(rules_path) < 0)
		return -1;
	if (control_path && fb_control_bind(control_path) < 0)
		return -1;
	return 0;
}

static int flipbed_after_fork(void)
{
	return fb_control_start();
}

static void *flipbed_open(int readonly)
{
	return NBDKIT_HANDLE_NOT_NEEDED;
}

static int64_t flipbed_get_size(void *handle)
{
	return fb_disk_size();
}

static int flipbed_can_write(void *handle)
{
	return fb_disk_writable();
}

static int flipbed_can_flush(void *handle)
{
	return 1;
}

static int flipbed_can_fua(void *handle)
{
	return NBDKIT_FUA_NATIVE;
}

/* One descriptor for all connections, flushed as a whole. */
static int flipbed_can_multi_conn(void *handle)
{
	return 1;
}

static int flipbed_can_zero(void *handle)
{
	return 1;
}

static int flipbed_can_trim(void *handle)
{
	return 1;
}

static int flipbed_can_extents(void *handle)
{
	return extents_on;
}

static int flipbed_pread(void *handle, void *buf, uint32_t count,
			 uint64_t offset, uint32_t flags)
{
	fb_stats_read();
	if (fb_disk_frozen())
		return fb_disk_pread(buf, count, offset);
	if (fb_rules_armed() || fb_witness_armed())
		return fb_inject_read(buf, count, offset);
	return fb_disk_pread(buf, count, offset);
}

/* Stores a write, zero or trim as it came, and logs it. */
static int store_as_sent(enum fb_op op, const void *buf, uint32_t count,
			 uint64_t offset, uint32_t flags)
{
	int r;

	if (op == FB_OP_WRITE)
		r = fb_disk_pwrite(buf, count, offset);
	else if (op == FB_OP_ZERO)
		r = fb_disk_zero(count, offset, flags & NBDKIT_FLAG_MAY_TRIM);
	else
		r = fb_disk_trim(count, offset);
	if (r == 0 && fb_writelog_active())
		fb_writelog_store(op, fb_writelog_flags(op, flags), buf, count,
				  offset);
	return r;
}

/* Stores a write, zero or trim through the rules, then honours FUA. */
static int store(enum fb_op op, const void *buf, uint32_t count,
		 uint64_t offset, uint32_t flags)
{
	int r;

	fb_stats_write();
	if (fb_disk_frozen())
		return 0;
	if (fb_rules_armed() || fb_witness_armed())
		r = fb_inject_write(op, buf, count, offset, flags);
	else
		r = store_as_sent(op, buf, count, offset, flags);
	if (r == 0 && (flags & NBDKIT_FLAG_FUA))
		r = fb_disk_flush();
	return r;
}

static int flipbed_pwrite(void *handle, const void *buf, uint32_t count,
			  uint64_t offset, uint32_t flags)
{
	return store(FB_OP_WRITE, buf, count, offset, flags);
}

static int flipbed_zero(void *handle, uint32_t count, uint64_t offset,
			uint32_t flags)
{
	return store(FB_OP_ZERO, NULL, count, offset, flags);
}

static int flipbed_trim(void *handle, uint32_t count, uint64_t offset,
			uint32_t flags)
{
	return store(FB_OP_TRIM, NULL, count, offset, flags);
}

static int flipbed_flush(void *handle, uint32_t flags)
{
	if (fb_disk_frozen())
		return 0;
	if (fb_disk_flush() < 0)
		return -1;
	if (fb_writelog_active())
		fb_writelog_flush();
	return 0;
}

static int flipbed_extents(void *handle, uint32_t count, uint64_t offset,
			   uint32_t flags, struct nbdkit_extents *extents)
{
	return fb_disk_extents(count, offset, flags & NBDKIT_FLAG_REQ_ONE,
			       extents);
}

static struct nbdkit_plugin plugin = {
	.name              = "flipbed",
	.longname          = "nbdkit flipbed fault-injection plugin",
	.version           = "1.0",
	.description       = "Serve a raw image and corrupt it on demand",
	.unload            = flipbed_unload,
	.config            = flipbed_config,
	.config_complete   = flipbed_config_complete,
	.config_help       = flipbed_config_help,
	.magic_config_key  = "file",
	.after_fork        = flipbed_after_fork,
	.open              = flipbed_open,
	.get_size          = flipbed_get_size,
	.can_write         = flipbed_can_write,
	.can_flush         = flipbed_can_flush,
	.can_fua           = flipbed_can_fua,
	.can_multi_conn    = flipbed_can_multi_conn,
	.can_zero          = flipbed_can_zero,
	.can_trim          = flipbed_can_trim,
	.can_extents       = flipbed_can_extents,
	.pread             = flipbed_pread,
	.pwrite            = flipbed_pwrite,
	.zero              = flipbed_zero,
	.trim              = flipbed_trim,
	.flush             = flipbed_flush,
	.extents           = flipbed_extents,
	.errno_is_preserved = 1,
};

NBDKIT_REGISTER_PLUGIN(plugin)
