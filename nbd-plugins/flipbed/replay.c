// SPDX-License-Identifier: MIT
/* flipbed-replay: replay a write log (nbdkit-flipbed-plugin writelog=)
 * onto the image the server started with, up to a flush point. See
 * flipbed-replay.pod.
 *
 * The whole log is checked before a byte is written: its header, every
 * record header (check, type, flags, bounds, sequence), and that the
 * point asked for is in it. The result is built in a temporary file
 * beside the output and renamed over it once complete and synced, so
 * that the output is either the old file or the whole result; only
 * --in-place writes into IMAGE itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "common/die.h"
#include "wlog.h"

#define EXIT_BAD 2		/* bad input: nothing was written */
#define EXIT_IO 1		/* writing the result failed */
#define CHUNK (1024 * 1024)

/* What the records between two flushes (or before the first, or after
 * the last) did.
 */
struct span {
	uint64_t seq;		/* the flush's seq; the tail's last seq */
	uint64_t end;		/* log offset just past that record */
	uint64_t writes, zeros, trims, fua, fault, rest, bytes;
};

struct scan {
	struct fb_wlog_header h;
	uint64_t records;
	struct span *spans;	/* [k - 1]: to flush point k; [n]: the tail */
	size_t nflush;
	uint64_t end;		/* log offset past the last whole record */
	uint64_t partial;	/* bytes of a partial record after it */
};

static const char *tmp_path;	/* removed on a signal or an error */

/* At exit: after an error (fb_die) the temporary file is still there. */
static void remove_temp(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

static void on_signal(int sig)
{
	remove_temp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void usage(FILE *fp)
{
	fputs("usage: flipbed-replay LOG IMAGE --to-flush K "
	      "[-o OUT | --in-place]\n"
	      "       flipbed-replay LOG IMAGE --to-end [-o OUT | --in-place]\n"
	      "       flipbed-replay --list LOG\n"
	      "Replay the write log LOG (nbdkit-flipbed-plugin writelog=) "
	      "onto IMAGE, the\nimage the server started with, up to flush "
	      "point K (0: nothing; --list\nprints the points). The result "
	      "replaces IMAGE (or goes to OUT) in one\nrename; --in-place "
	      "writes into IMAGE itself. Exit status: 0 done, 1 writing\n"
	      "the result failed, 2 bad input (nothing written).\n", fp);
}

/* Read exactly n bytes at off; 0, or 1 at end of file, or -1. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = pread(fd, p, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 1;
		p += r;
		n -= r;
		off += r;
	}
	return 0;
}

static int write_at(int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= w;
		off += w;
	}
	return 0;
}

static void count(struct span *s, const struct fb_wlog_record *r)
{
	if (r->type == FB_WLOG_WRITE) {
		s->writes++;
		s->bytes += r->length;
	}
	s->zeros += r->type == FB_WLOG_ZERO;
	s->trims += r->type == FB_WLOG_TRIM;
	s->fua += (r->flags & FB_WLOG_FUA) != 0;
	s->fault += (r->flags & FB_WLOG_FAULT) != 0;
	s->rest += (r->flags & FB_WLOG_REST) != 0;
}

/* Check the whole log and find its flush points. */
static void scan_log(const char *path, int fd, struct scan *sc)
{
	uint8_t buf[FB_WLOG_HEADER_SIZE];
	struct fb_wlog_record r;
	struct stat st;
	uint64_t off = FB_WLOG_HEADER_SIZE;
	size_t cap = 16;
	char err[256];
	int got;

	memset(sc, 0, sizeof *sc);
	if (fstat(fd, &st) < 0)
		fb_die(EXIT_BAD, "%s: %s", path, strerror(errno));
	got = read_at(fd, buf, sizeof buf, 0);
	if (got < 0)
		fb_die(EXIT_BAD, "%s: %s", path, strerror(errno));
	if (got > 0)
		fb_die(EXIT_BAD, "%s: shorter than a write log's header (%d "
		       "bytes)", path, FB_WLOG_HEADER_SIZE);
	if (fb_wlog_header_decode(buf, &sc->h, err, sizeof err) < 0)
		fb_die(EXIT_BAD, "%s: %s", path, err);
	sc->spans = calloc(cap, sizeof *sc->spans);
	if (!sc->spans)
		fb_die(EXIT_BAD, "out of memory");
	for (;;) {
		struct span *s;

		if (sc->nflush + 1 == cap) {
			s = realloc(sc->spans, 2 * cap * sizeof *s);
			if (!s)
				fb_die(EXIT_BAD, "out of memory");
			memset(s + cap, 0, cap * sizeof *s);
			sc->spans = s;
			cap *= 2;
		}
		s = &sc->spans[sc->nflush];
		if (off == (uint64_t)st.st_size)
			break;
		got = read_at(fd, buf, FB_WLOG_RECORD_SIZE, off);
		if (got < 0)
			fb_die(EXIT_BAD, "%s: %s", path, strerror(errno));
		if (got > 0)
			break;
		if (fb_wlog_record_decode(buf, sc->h.image_size, &r, err,
					  sizeof err) < 0)
			fb_die(EXIT_BAD, "%s: record %" PRIu64 " at byte %"
			       PRIu64 ": %s", path, sc->records + 1, off, err);
		if (r.seq != sc->records + 1)
			fb_die(EXIT_BAD, "%s: record at byte %" PRIu64 " has "
			       "seq %" PRIu64 ", expected %" PRIu64, path, off,
			       r.seq, sc->records + 1);
		if (r.size > (uint64_t)st.st_size - off)
			break;
		off += r.size;
		sc->records++;
		s->seq = r.seq;
		s->end = off;
		if (r.type == FB_WLOG_FLUSH)
			sc->nflush++;
		else
			count(s, &r);
	}
	sc->end = off;
	sc->partial = st.st_size - off;
}

static void list(const char *path, const struct scan *sc)
{
	size_t k;

	printf("%s: write log version %" PRIu32 ", image %" PRIu64 " bytes, "
	       "XXH64 %016" PRIx64 ", %" PRIu64 " records, %zu flush points\n",
	       path, sc->h.version, sc->h.image_size, sc->h.image_hash,
	       sc->records, sc->nflush);
	printf("%-6s %10s %8s %6s %6s %6s %6s %6s %12s\n", "point", "seq",
	       "writes", "zeros", "trims", "fua", "fault", "rest", "bytes");
	printf("%-6s %10s %8d %6d %6d %6d %6d %6d %12d\n", "0", "-", 0, 0, 0, 0,
	       0, 0, 0);
	for (k = 0; k <= sc->nflush; k++) {
		const struct span *s = &sc->spans[k];
		char point[32];

		if (k == sc->nflush && s->end == 0)
			break;	/* nothing after the last flush */
		snprintf(point, sizeof point, k < sc->nflush ? "%zu" : "end",
			 k + 1);
		printf("%-6s %10" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6"
		       PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %12"
		       PRIu64 "\n", point, s->seq, s->writes, s->zeros,
		       s->trims, s->fua, s->fault, s->rest, s->bytes);
	}
	printf("each row counts the records since the row above; \"end\": "
	       "after the last flush\n");
	if (sc->partial)
		printf("the log ends in a partial record (%" PRIu64 " bytes), "
		       "which is ignored\n", sc->partial);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Hash IMAGE, copying it to out (when out >= 0) as it goes; the copy
 * keeps zero chunks as holes.
 */
static uint64_t hash_copy(const char *path, int in, uint64_t size, int out)
{
	uint8_t *buf = malloc(CHUNK);
	struct fb_xxh64 s;
	uint64_t off;

	if (!buf)
		fb_die(EXIT_BAD, "out of memory");
	if (out >= 0 && ftruncate(out, size) < 0)
		fb_die(EXIT_IO, "%s: %s", tmp_path, strerror(errno));
	fb_xxh64_init(&s, 0);
	for (off = 0; off < size; off += CHUNK) {
		size_t n = size - off < CHUNK ? size - off : CHUNK;

		int got = read_at(in, buf, n, off);

		if (got < 0)
			fb_die(EXIT_BAD, "%s: %s", path, strerror(errno));
		if (got > 0)
			fb_die(EXIT_BAD, "%s: ends before %" PRIu64 " bytes, "
			       "the size of the image the log was recorded on",
			       path, size);
		fb_xxh64_update(&s, buf, n);
		if (out >= 0 && !all_zero(buf, n) &&
		    write_at(out, buf, n, off) < 0)
			fb_die(EXIT_IO, "%s: %s", tmp_path, strerror(errno));
	}
	free(buf);
	return fb_xxh64_digest(&s);
}

static bool unsupported(int e)
{
	return e == EOPNOTSUPP || e == ENOSYS || e == ENODEV;
}

static int write_zeros(int fd, uint64_t len, uint64_t off)
{
	static const uint8_t zeros[CHUNK];

	while (len > 0) {
		uint64_t n = len < CHUNK ? len : CHUNK;

		if (write_at(fd, zeros, n, off) < 0)
			return -1;
		len -= n;
		off += n;
	}
	return 0;
}

/* As the plugin stores them (disk.c): a hole where the client allowed
 * one, else zeroed in place, else zeros written.
 */
static int apply_zero(int fd, const struct fb_wlog_record *r)
{
	if ((r->flags & FB_WLOG_MAY_TRIM) &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      r->offset, r->length) == 0)
		return 0;
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE, r->offset, r->length) == 0)
		return 0;
	if (!unsupported(errno))
		return -1;
	return write_zeros(fd, r->length, r->offset);
}

static int apply_trim(int fd, const struct fb_wlog_record *r)
{
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      r->offset, r->length) == 0)
		return 0;
	return unsupported(errno) ? 0 : -1;
}

/* Apply the records before log offset end to fd. */
static void apply(const char *log, int lfd, const struct scan *sc,
		  uint64_t end, int fd, const char *target)
{
	uint8_t head[FB_WLOG_RECORD_SIZE], *data = malloc(FB_WLOG_DATA_MAX);
	uint64_t off = FB_WLOG_HEADER_SIZE;
	struct fb_wlog_record r;
	char err[256];
	int ret;

	if (!data)
		fb_die(EXIT_IO, "out of memory");
	while (off < end) {
		if (read_at(lfd, head, sizeof head, off) != 0 ||
		    fb_wlog_record_decode(head, sc->h.image_size, &r, err,
					  sizeof err) < 0)
			fb_die(EXIT_IO, "%s: changed while it was replayed "
			       "(record at byte %" PRIu64 ")", log, off);
		off += FB_WLOG_RECORD_SIZE;
		switch (r.type) {
		case FB_WLOG_WRITE:
			if (read_at(lfd, data, r.length, off) != 0)
				fb_die(EXIT_IO, "%s: reading record %" PRIu64
				       ": %s", log, r.seq, strerror(errno));
			ret = write_at(fd, data, r.length, r.offset);
			off += r.length;
			break;
		case FB_WLOG_ZERO:
			ret = apply_zero(fd, &r);
			break;
		case FB_WLOG_TRIM:
			ret = apply_trim(fd, &r);
			break;
		default:
			ret = 0;
			break;
		}
		if (ret < 0)
			fb_die(EXIT_IO, "%s: record %" PRIu64 " (%s at %" PRIu64
			       "): %s", target, r.seq,
			       fb_wlog_type_name(r.type), r.offset,
			       strerror(errno));
	}
	free(data);
}

/* A temporary file beside out, in its directory. */
static int make_temp(const char *out, char **ret_path)
{
	char *dir = strdup(out), *base = strdup(out), *path;
	int fd;

	if (!dir || !base || asprintf(&path, "%s/.%s.replay-XXXXXX",
				      dirname(dir), basename(base)) < 0)
		fb_die(EXIT_IO, "out of memory");
	free(dir);
	free(base);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		fb_die(EXIT_IO, "%s: %s", path, strerror(errno));
	tmp_path = path;
	*ret_path = path;
	return fd;
}

/* Sync the directory holding path, so that a rename in it lasts. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

struct opts {
	const char *log, *image, *out;
	bool list, in_place, to_end;
	long long to_flush;	/* -1: not given */
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "to-flush", required_argument, NULL, 'k' },
		{ "to-end", no_argument, NULL, 'e' },
		{ "list", no_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct opts){ .to_flush = -1 };
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			errno = 0;
			o->to_flush = strtoll(optarg, &end, 10);
			if (errno || *end || end == optarg || o->to_flush < 0 ||
			    optarg[0] == '-' || optarg[0] == '+')
				fb_die(EXIT_BAD, "--to-flush %s: expected a "
				       "flush point, 0 or more (--list prints "
				       "them)", optarg);
			break;
		case 'e':
			o->to_end = true;
			break;
		case 'l':
			o->list = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'i':
			o->in_place = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(EXIT_BAD);
		}
	}
	o->log = optind < argc ? argv[optind] : NULL;
	o->image = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (o->list) {
		if (!o->log || optind + 1 != argc || o->to_flush >= 0 ||
		    o->to_end || o->out || o->in_place)
			fb_die(EXIT_BAD, "--list takes the log alone: "
			       "flipbed-replay --list LOG");
		return;
	}
	if (!o->image || optind + 2 != argc) {
		usage(stderr);
		exit(EXIT_BAD);
	}
	if ((o->to_flush >= 0) == o->to_end)
		fb_die(EXIT_BAD, "say how far to replay: --to-flush K or "
		       "--to-end");
	if (o->out && o->in_place)
		fb_die(EXIT_BAD, "-o OUT and --in-place exclude each other");
}

int main(int argc, char **argv)
{
	struct opts o;
	struct scan sc;
	struct stat st;
	uint64_t end, hash, nrec;
	const char *target;
	char *tmp = NULL;
	int lfd, ifd, fd;

	fb_program = "flipbed-replay";
	atexit(remove_temp);
	parse_args(argc, argv, &o);
	lfd = open(o.log, O_RDONLY | O_CLOEXEC);
	if (lfd < 0)
		fb_die(EXIT_BAD, "%s: %s", o.log, strerror(errno));
	scan_log(o.log, lfd, &sc);
	if (o.list) {
		list(o.log, &sc);
		free(sc.spans);
		return 0;
	}
	if (o.to_end) {
		end = sc.end;
		nrec = sc.records;
	} else if ((unsigned long long)o.to_flush > sc.nflush) {
		fb_die(EXIT_BAD, "--to-flush %lld: %s has %zu flush points (0 "
		       "to %zu; --list prints them)", o.to_flush, o.log,
		       sc.nflush, sc.nflush);
	} else if (o.to_flush == 0) {
		end = FB_WLOG_HEADER_SIZE;
		nrec = 0;
	} else {
		end = sc.spans[o.to_flush - 1].end;
		nrec = sc.spans[o.to_flush - 1].seq;
	}

	ifd = open(o.image, (o.in_place ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (ifd < 0 || fstat(ifd, &st) < 0)
		fb_die(EXIT_BAD, "%s: %s", o.image, strerror(errno));
	if (!S_ISREG(st.st_mode) && !o.in_place && !o.out)
		fb_die(EXIT_BAD, "%s: not a regular file, which a rename would "
		       "replace: give -o OUT or --in-place", o.image);
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size != sc.h.image_size)
		fb_die(EXIT_BAD, "%s: %" PRIu64 " bytes, but %s was recorded "
		       "on an image of %" PRIu64 " bytes", o.image,
		       (uint64_t)st.st_size, o.log, sc.h.image_size);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	target = o.in_place ? o.image : o.out ? o.out : o.image;
	fd = o.in_place ? ifd : make_temp(target, &tmp);
	hash = hash_copy(o.image, ifd, sc.h.image_size, o.in_place ? -1 : fd);
	if (hash != sc.h.image_hash)
		fb_die(EXIT_BAD, "%s: XXH64 %016" PRIx64 ", but %s was "
		       "recorded on an image with XXH64 %016" PRIx64 ": not "
		       "the image the server started with", o.image, hash,
		       o.log, sc.h.image_hash);
	apply(o.log, lfd, &sc, end, fd, o.in_place ? o.image : tmp);
	if (fsync(fd) < 0)
		fb_die(EXIT_IO, "%s: %s", o.in_place ? o.image : tmp,
		       strerror(errno));
	if (!o.in_place) {
		if (fchmod(fd, st.st_mode & 07777) < 0 ||
		    rename(tmp, target) < 0)
			fb_die(EXIT_IO, "%s: %s", target, strerror(errno));
		tmp_path = NULL;
		sync_dir(target);
		free(tmp);
	}
	if (!o.in_place)
		close(ifd);
	close(fd);
	close(lfd);
	if (o.to_end)
		printf("%s: %" PRIu64 " records replayed, to the end, into "
		       "%s\n", o.log, nrec, target);
	else
		printf("%s: %" PRIu64 " records replayed, to flush point %lld, "
		       "into %s\n", o.log, nrec, o.to_flush, target);
	if (sc.partial)
		printf("%s: a partial record at the end (%" PRIu64 " bytes) "
		       "was ignored\n", o.log, sc.partial);
	free(sc.spans);
	return 0;
}
