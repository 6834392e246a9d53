// SPDX-License-Identifier: MIT
/* flipbed plugin: the write log (writelog=FILE) and flipbed-replay.
 *
 * A client writes (FUA too), zeroes (with and without a hole allowed),
 * trims and flushes; rules tear, misdirect and change some writes, and
 * rest rules change the image, at start and at run time. The log read
 * with the documented layout (not the plugin's code) must hold every
 * one of them, in order, as stored. flipbed-replay must rebuild the image
 * exactly as it was at each flush point, and at the end of the log as the
 * server left it, into a new file, in place, or replacing the copy; and
 * refuse, with exit 2 and nothing written, a point past the end, another
 * image, a damaged log and bad arguments. Writers on four connections
 * at once: each one's writes are logged in the order it made them, so
 * that at every flush point each holds a prefix of its writes. A log
 * that cannot grow (RLIMIT_FSIZE) ends at its last whole record, nbdkit
 * says so, and requests go on.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "wlog.h"

#define SIZE (4 << 20)
#define POINTS 3		/* flushes the client makes */

static uint8_t *points[POINTS + 1];	/* the image at each flush point */
static uint8_t *final;			/* and when the server stopped */
static char out[65536];			/* the last run's output */

static uint8_t *image_now(void)
{
	uint8_t *b = malloc(SIZE);

	fbt_read_image(b, SIZE, 0);
	return b;
}

static uint8_t *read_file(const char *name, size_t *len)
{
	FILE *fp = fopen(fbt_path(name), "r");
	uint8_t *b;
	long n;

	fbt_assert(fp != NULL, "%s: %m", name);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	b = malloc(n + 1);	/* NUL-terminated, for text */
	fbt_assert(fread(b, 1, n, fp) == (size_t)n, "read %s", name);
	b[n] = '\0';
	fclose(fp);
	*len = n;
	return b;
}

static void write_file(const char *name, const void *b, size_t len)
{
	FILE *fp = fopen(fbt_path(name), "w");

	fbt_assert(fp && fwrite(b, 1, len, fp) == len && fclose(fp) == 0,
		   "write %s: %m", name);
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	uint8_t *b = read_file(from, &len);

	write_file(to, b, len);
	free(b);
}

/* Run flipbed-replay with these arguments (in the test directory);
 * returns its exit status, its output (both streams) in out.
 */
static int replay(const char *fmt, ...)
{
	char args[2048], cmd[4096];
	size_t len;
	uint8_t *o;
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "cd %s && %s %s > replay.out 2>&1",
		 fbt_dir(), FB_REPLAY, args);
	st = system(cmd);
	fbt_assert(st != -1 && WIFEXITED(st), "%s: status 0x%x", cmd, st);
	o = read_file("replay.out", &len);
	snprintf(out, sizeof out, "%.*s", (int)len, o);
	free(o);
	return WEXITSTATUS(st);
}

static void expect_image(const char *name, const uint8_t *want,
			 const char *what)
{
	size_t len, i;
	uint8_t *got = read_file(name, &len);

	fbt_assert(len == SIZE, "%s: %zu bytes", what, len);
	for (i = 0; i < SIZE; i++)
		fbt_assert(got[i] == want[i],
			   "%s: byte %zu is 0x%02x, expected 0x%02x", what,
			   i, got[i], want[i]);
	free(got);
}

/* No temporary file of flipbed-replay is left in the test directory. */
static void expect_no_temp(void)
{
	DIR *d = opendir(fbt_dir());
	struct dirent *e;

	while ((e = readdir(d)))
		fbt_assert(!strstr(e->d_name, ".replay-"), "left behind: %s",
			   e->d_name);
	closedir(d);
}

static void refused(int status, const char *part, const char *what)
{
	fbt_assert(status == 2 && strstr(out, part),
		   "%s: exit %d, wanted 2 and '%s' in: %s", what, status,
		   part, out);
	expect_no_temp();
}

/* The client's side of the run: requests and flushes, rules on the way;
 * then the server stops.
 */
static void run_client(void **state)
{
	static uint8_t b[1 << 20];
	struct nbd_handle *h = fbt_connect();
	size_t i;

	memset(b, 0x11, 4096);
	fbt_pwrite(h, b, 4096, 0, 0);
	memset(b, 0x22, 1000);
	fbt_pwrite(h, b, 1000, 8192, LIBNBD_CMD_FLAG_FUA);
	fbt_assert(nbd_flush(h, 0) == 0, "flush: %s", nbd_get_error());
	points[1] = image_now();

	fbt_assert(nbd_zero(h, 4096, 16384, LIBNBD_CMD_FLAG_NO_HOLE) == 0 &&
		   nbd_zero(h, 8192, 32768, 0) == 0 &&
		   nbd_trim(h, 65536, 131072, 0) == 0, "zero, trim: %s",
		   nbd_get_error());
	memset(b, 0x33, 50);
	fbt_pwrite(h, b, 50, 100, 0);
	fbt_assert(nbd_flush(h, 0) == 0, "flush: %s", nbd_get_error());
	points[2] = image_now();

	fbt_ctl_ok("add on=write at=262144 len=8192 torn=2 count=1");
	memset(b, 0x44, 8192);
	fbt_pwrite(h, b, 8192, 262144, 0);
	fbt_ctl_ok("add on=write at=300000 len=16 misdirect=4096 count=1");
	memset(b, 0x55, 64);
	fbt_pwrite(h, b, 64, 299990, 0);
	fbt_ctl_ok("add on=write at=310000 len=2 ones count=1");
	memset(b, 0x66, 16);
	fbt_pwrite(h, b, 16, 309995, 0);
	fbt_ctl_ok("add on=rest at=320000 len=8 zero");
	for (i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)(i * 7 + (i >> 12));
	fbt_pwrite(h, b, sizeof b, 1 << 20, LIBNBD_CMD_FLAG_FUA);
	fbt_assert(nbd_flush(h, 0) == 0, "flush: %s", nbd_get_error());
	points[3] = image_now();

	memset(b, 0x77, 4096);
	fbt_pwrite(h, b, 4096, 2 << 20, 0);	/* never flushed */
	nbd_close(h);
	fbt_stop();
	final = image_now();
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* One record as the log must hold it; data NULL: every byte is fill. */
struct want {
	unsigned type, flags;
	uint64_t offset, length;
	int fill;		/* -1: no data */
	const uint8_t *data;
};

#define W(t, f, o, l, d) { FB_WLOG_##t, f, o, l, d, NULL }

/* The log, read with the layout flipbed-replay.pod documents. */
static void check_log(void **state)
{
	static uint8_t big[1 << 20];
	const struct want want[] = {
		W(WRITE, FB_WLOG_REST, 3000000, 4, 0xff),
		W(WRITE, 0, 0, 4096, 0x11),
		W(WRITE, FB_WLOG_FUA, 8192, 1000, 0x22),
		W(FLUSH, 0, 0, 0, -1),
		W(ZERO, 0, 16384, 4096, -1),
		W(ZERO, FB_WLOG_MAY_TRIM, 32768, 8192, -1),
		W(TRIM, 0, 131072, 65536, -1),
		W(WRITE, 0, 100, 50, 0x33),
		W(FLUSH, 0, 0, 0, -1),
		W(WRITE, FB_WLOG_FAULT, 262144, 1024, 0x44),
		W(WRITE, FB_WLOG_FAULT, 299990, 10, 0x55),
		W(WRITE, FB_WLOG_FAULT, 304096, 16, 0x55),
		W(WRITE, FB_WLOG_FAULT, 300016, 38, 0x55),
		W(WRITE, FB_WLOG_FAULT, 309995, 5, 0x66),
		W(WRITE, FB_WLOG_FAULT, 310000, 2, 0xff),
		W(WRITE, FB_WLOG_FAULT, 310002, 9, 0x66),
		W(WRITE, FB_WLOG_REST, 320000, 8, 0),
		{ FB_WLOG_WRITE, FB_WLOG_FUA, 1 << 20, 1 << 20, 0, big },
		W(FLUSH, 0, 0, 0, -1),
		W(WRITE, 0, 2 << 20, 4096, 0x77),
	};
	size_t n = sizeof want / sizeof want[0], len, k, i;
	uint8_t *log = read_file("log.wlog", &len), *p;
	uint64_t ns = 0;

	for (i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 7 + (i >> 12));
	assert_true(len >= 64 && memcmp(log, "FLIPBEDW", 8) == 0 &&
		    le(log + 8, 4) == 1 && le(log + 12, 4) == 64 &&
		    le(log + 16, 8) == SIZE && le(log + 32, 4) == 48 &&
		    le(log + 36, 4) == 64 << 20);
	/* the header's hash is the image's at start, before the rest rule
	 * of rules=FILE
	 */
	assert_int_equal(le(log + 24, 8), fb_xxh64(points[0], SIZE, 0));
	assert_int_equal(le(log + 60, 4), (uint32_t)fb_xxh64(log, 60, 0));
	for (p = log + 64, k = 0; k < n; k++) {
		const struct want *w = &want[k];
		uint64_t size = 48 + (w->type == FB_WLOG_WRITE ? w->length : 0);

		fbt_assert(p + 48 <= log + len, "record %zu missing", k + 1);
		fbt_assert(le(p, 4) == size && le(p + 4, 2) == w->type &&
			   le(p + 6, 2) == w->flags && le(p + 8, 8) == k + 1 &&
			   le(p + 24, 8) == w->offset &&
			   le(p + 32, 8) == w->length,
			   "record %zu: size %lu type %lu flags %lu seq %lu "
			   "offset %lu length %lu", k + 1,
			   (unsigned long)le(p, 4), (unsigned long)le(p + 4, 2),
			   (unsigned long)le(p + 6, 2), (unsigned long)le(p + 8, 8),
			   (unsigned long)le(p + 24, 8),
			   (unsigned long)le(p + 32, 8));
		fbt_assert(le(p + 16, 8) >= ns, "record %zu: ns goes back",
			   k + 1);
		ns = le(p + 16, 8);
		fbt_assert(le(p + 44, 4) == (uint32_t)fb_xxh64(p, 44, 0),
			   "record %zu: check", k + 1);
		for (i = 0; w->type == FB_WLOG_WRITE && i < w->length; i++)
			fbt_assert(p[48 + i] == (w->data ? w->data[i] :
						 w->fill),
				   "record %zu: data byte %zu", k + 1, i);
		p += size;
	}
	fbt_assert(p == log + len, "%zu bytes after the last record",
		   (size_t)(log + len - p));
	free(log);
}

static void check_list(void **state)
{
	/* point seq writes zeros trims fua fault rest bytes */
	static const unsigned long rows[][9] = {
		{ 1, 4, 3, 0, 0, 1, 0, 1, 4 + 4096 + 1000 },
		{ 2, 9, 1, 2, 1, 0, 0, 0, 50 },
		{ 3, 19, 9, 0, 0, 1, 7, 1, 1024 + 64 + 16 + 8 + (1 << 20) },
	};
	unsigned long v[9];
	const char *l;
	size_t r, i;

	fbt_assert(replay("--list log.wlog") == 0, "--list: %s", out);
	fbt_assert(strstr(out, "image 4194304 bytes") &&
		   strstr(out, "20 records, 3 flush points"), "--list: %s",
		   out);
	for (r = 0; r < 3; r++) {
		char key[16];

		snprintf(key, sizeof key, "\n%lu ", rows[r][0]);
		l = strstr(out, key);
		fbt_assert(l && sscanf(l + 1, "%lu %lu %lu %lu %lu %lu %lu %lu "
				       "%lu", &v[0], &v[1], &v[2], &v[3], &v[4],
				       &v[5], &v[6], &v[7], &v[8]) == 9,
			   "row %zu: %s", r + 1, out);
		for (i = 0; i < 9; i++)
			fbt_assert(v[i] == rows[r][i], "--list row %zu column "
				   "%zu is %lu, expected %lu: %s", r + 1, i + 1,
				   v[i], rows[r][i], out);
	}
	l = strstr(out, "\nend ");
	fbt_assert(l && sscanf(l + 5, "%lu %lu", &v[0], &v[1]) == 2 &&
		   v[0] == 20 && v[1] == 1, "--list end row: %s", out);
}

static void check_replays(void **state)
{
	char name[64];
	int k;

	for (k = 0; k <= POINTS; k++) {
		snprintf(name, sizeof name, "point%d.img", k);
		fbt_assert(replay("log.wlog start.img --to-flush %d -o %s", k,
				  name) == 0, "--to-flush %d: %s", k, out);
		expect_image(name, points[k], name);
	}
	fbt_assert(replay("log.wlog start.img --to-end -o end.img") == 0,
		   "--to-end: %s", out);
	expect_image("end.img", final, "--to-end");
	expect_image("start.img", points[0], "-o leaves IMAGE alone");

	/* Without -o the result replaces IMAGE; --in-place writes into it. */
	copy_file("start.img", "copy.img");
	fbt_assert(replay("log.wlog copy.img --to-flush 2") == 0, "replace: %s",
		   out);
	expect_image("copy.img", points[2], "IMAGE replaced");
	copy_file("start.img", "copy.img");
	fbt_assert(replay("log.wlog copy.img --to-flush 3 --in-place") == 0,
		   "--in-place: %s", out);
	expect_image("copy.img", points[3], "--in-place");
	expect_no_temp();
}

static void check_refusals(void **state)
{
	uint8_t *b;
	size_t len;

	refused(replay("log.wlog start.img --to-flush 4 -o x.img"),
		"--to-flush 4: log.wlog has 3 flush points (0 to 3",
		"past end");
	assert_true(access(fbt_path("x.img"), F_OK) < 0);

	b = read_file("start.img", &len);
	b[123456] ^= 0x10;
	write_file("other.img", b, len);
	refused(replay("log.wlog other.img --to-flush 1"),
		"but log.wlog was recorded on an image with XXH64",
		"another image");
	fbt_assert(strstr(out, "not the image the server started with"), "%s",
		   out);
	expect_image("other.img", b, "a refused IMAGE is left alone");
	b[123456] ^= 0x10;
	write_file("short.img", b, len - 512);
	refused(replay("log.wlog short.img --to-flush 1 -o x.img"),
		"short.img: 4193792 bytes, but log.wlog was recorded on an "
		"image of 4194304 bytes", "another size");
	free(b);

	b = read_file("log.wlog", &len);
	b[64 + 48 + 4 + 48 + 4096 + 24] ^= 1;	/* record 3's offset */
	write_file("bad.wlog", b, len);
	refused(replay("bad.wlog start.img --to-end -o x.img"),
		"bad.wlog: record 3 at byte 4260: damaged record header",
		"damaged record");
	b[64 + 48 + 4 + 48 + 4096 + 24] ^= 1;
	b[8] = 2;
	write_file("bad.wlog", b, len);
	refused(replay("--list bad.wlog"), "write log version 2",
		"another version");
	write_file("bad.wlog", b, 40);
	refused(replay("--list bad.wlog"), "shorter than a write log's header",
		"short log");
	refused(replay("--list start.img"), "not a flipbed write log",
		"not a log");

	/* A log cut inside its last record: replayed up to the one before. */
	b[8] = 1;
	write_file("cut.wlog", b, len - 100);
	fbt_assert(replay("--list cut.wlog") == 0 &&
		   strstr(out, "19 records, 3 flush points") &&
		   strstr(out, "partial record (4044 bytes)"), "cut log: %s",
		   out);
	fbt_assert(replay("cut.wlog start.img --to-end -o cut.img") == 0,
		   "cut log --to-end: %s", out);
	expect_image("cut.img", points[3], "a cut log to its end");
	free(b);

	refused(replay("log.wlog start.img"), "--to-flush K or --to-end",
		"no point");
	refused(replay("log.wlog start.img --to-flush -1"),
		"--to-flush -1: expected a flush point", "negative point");
	refused(replay("log.wlog start.img --to-flush 1x"), "--to-flush 1x",
		"not a number");
	refused(replay("log.wlog start.img --to-flush 1 --to-end"),
		"--to-flush K or --to-end", "both");
	refused(replay("log.wlog start.img --to-end -o x.img --in-place"),
		"exclude each other", "-o and --in-place");
	refused(replay("--list log.wlog start.img"), "--list takes the log "
		"alone", "--list with an image");
	refused(replay("missing.wlog start.img --to-end"),
		"missing.wlog: No such file or directory", "no log");
	assert_true(access(fbt_path("x.img"), F_OK) < 0);
	expect_image("start.img", points[0], "IMAGE after the refusals");
}

#define WRITERS 4
#define WRITES 64		/* per writer, a flush after every 8th */
#define REGION (1 << 20)	/* writer t writes block i at t * REGION + i * 4096 */

static uint8_t fill(long t, int i)
{
	return (uint8_t)((t * WRITES + i) % 251 + 1);
}

static void *writer(void *arg)
{
	struct nbd_handle *h = fbt_connect();
	uint8_t b[4096];
	long t = (long)arg;
	int i;

	for (i = 0; i < WRITES; i++) {
		memset(b, fill(t, i), sizeof b);
		fbt_pwrite(h, b, sizeof b, t * REGION + i * 4096, 0);
		if (i % 8 == 7)
			fbt_assert(nbd_flush(h, 0) == 0, "flush: %s",
				   nbd_get_error());
	}
	nbd_close(h);
	return NULL;
}

/* Block i of writer t holds its write (1), or the pattern before it. */
static int written(const uint8_t *img, long t, int i)
{
	uint64_t off = t * REGION + i * 4096, j;
	const uint8_t *p = img + off;

	for (j = 0; j < 4096 && p[j] == fill(t, i); j++)
		;
	if (j == 4096)
		return 1;
	for (j = 0; j < 4096; j++)
		fbt_assert(p[j] == fbt_pattern(off + j), "writer %ld block %d: "
			   "byte %lu is 0x%02x", t, i, (unsigned long)j, p[j]);
	return 0;
}

static void check_writers(void **state)
{
	char wl[600], name[64];
	pthread_t th[WRITERS];
	uint8_t *img;
	long t;
	int k, i, n;

	fbt_make_image(SIZE);
	copy_file("image", "start.img");
	snprintf(wl, sizeof wl, "writelog=%s", fbt_path("writers.wlog"));
	fbt_start(wl, NULL);
	for (t = 0; t < WRITERS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, writer,
						(void *)t), 0);
	for (t = 0; t < WRITERS; t++)
		pthread_join(th[t], NULL);
	fbt_stop();
	free(final);
	final = image_now();
	fbt_assert(replay("--list writers.wlog") == 0 &&
		   strstr(out, "288 records, 32 flush points"), "--list: %s",
		   out);
	fbt_assert(replay("writers.wlog start.img --to-end -o w.img") == 0,
		   "--to-end: %s", out);
	expect_image("w.img", final, "four writers, to the end");
	for (k = 1; k <= WRITERS * WRITES / 8; k += 3) {
		snprintf(name, sizeof name, "--to-flush %d -o w.img", k);
		fbt_assert(replay("writers.wlog start.img %s", name) == 0,
			   "%s: %s", name, out);
		img = read_file("w.img", &(size_t){ 0 });
		for (t = 0; t < WRITERS; t++) {
			for (n = 0; n < WRITES && written(img, t, n); n++)
				;
			for (i = n; i < WRITES; i++)
				fbt_assert(!written(img, t, i), "flush point "
					   "%d: writer %ld has block %d but not "
					   "%d", k, t, i, n);
		}
		free(img);
	}
}

static void check_log_full(void **state)
{
	struct rlimit old, lim;
	struct nbd_handle *h;
	static uint8_t b[16384];
	char wl[600];
	uint8_t *got;
	size_t len;
	int i;

	fbt_make_image(SIZE);
	snprintf(wl, sizeof wl, "writelog=%s", fbt_path("full.wlog"));
	/* nbdkit inherits both: no file may grow past 40000 bytes, room
	 * for two records of 16 KiB in the log, not three. The image is
	 * written below that.
	 */
	fbt_assert(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit: %m");
	lim = old;
	lim.rlim_cur = 40000;
	signal(SIGXFSZ, SIG_IGN);
	fbt_assert(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %m");
	fbt_start(wl, NULL);
	fbt_assert(setrlimit(RLIMIT_FSIZE, &old) == 0, "setrlimit: %m");
	signal(SIGXFSZ, SIG_DFL);
	h = fbt_connect();
	for (i = 0; i < 4; i++) {
		memset(b, 0x10 + i, sizeof b);
		fbt_pwrite(h, b, sizeof b, 0, 0);
	}
	fbt_assert(nbd_flush(h, 0) == 0, "flush: %s", nbd_get_error());
	nbd_close(h);
	fbt_read_image(b, sizeof b, 0);
	assert_true(b[0] == 0x13 && b[sizeof b - 1] == 0x13);
	got = read_file("full.wlog", &len);
	free(got);
	fbt_assert(len == 64 + 2 * (48 + sizeof b), "a full log of %zu bytes",
		   len);
	fbt_assert(replay("--list full.wlog") == 0 &&
		   strstr(out, "2 records, 0 flush points") &&
		   !strstr(out, "partial"), "--list of a full log: %s", out);
	got = read_file("nbdkit.log", &len);
	fbt_assert(strstr((char *)got, "flipbed: write log: record 3: File "
			  "too large; nothing more is logged (the log ends "
			  "with record 2)"), "nbdkit says the log ended: %s",
		   got);
	free(got);
#ifndef FB_LIBASAN
	/* With libasan, exit can deadlock after an error with %m. */
	fbt_stop();
#endif
}

/* writelog= in a directory that does not exist stops nbdkit. */
static void check_missing_dir(void **state)
{
	char img[600], *err;

	snprintf(img, sizeof img, "file=%s", fbt_path("image"));
	err = fbt_start_fails(img, "writelog=/nonexistent/dir/log", NULL);
	fbt_assert(strstr(err, "writelog=/nonexistent/dir/log: No such file "
			  "or directory"), "writelog= in a missing directory: "
		   "%s", err);
	free(err);
}

/* The image at flush point 0 kept, a rest rule in rules=, the log. */
static int setup(void **state)
{
	char wl[600], rules[600];

	fbt_make_image(SIZE);
	points[0] = image_now();
	copy_file("image", "start.img");
	write_file("start.rules", "on=rest at=3000000 len=4 ones\n", 30);
	snprintf(wl, sizeof wl, "writelog=%s", fbt_path("log.wlog"));
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("start.rules"));
	fbt_start(wl, rules, NULL);
	return 0;
}

FBT_MAIN(setup,
	cmocka_unit_test(run_client),
	cmocka_unit_test(check_log),
	cmocka_unit_test(check_list),
	cmocka_unit_test(check_replays),
	cmocka_unit_test(check_refusals),
	cmocka_unit_test(check_missing_dir),
	cmocka_unit_test(check_writers),
	cmocka_unit_test(check_log_full))
