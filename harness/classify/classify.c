// SPDX-License-Identifier: MIT
/*
 * The classifier: one transcript.log in, one outcome out (classify.h).
 *
 * A transcript interleaves "C " console lines, "A " agent lines (among them
 * "A kmsg SEQ LEVEL USEC TEXT", the same kernel messages read from
 * /dev/kmsg) and "H " host lines. Kernel messages are normalised (the
 * "C "/"A kmsg ..." prefix and the printk timestamp removed, kmsg's \xNN
 * escapes decoded) and given to the kernel-log module (klog.c), whose
 * tables say what each message means. This file decides the case:
 *
 * detect is the first class present in the order csum, sanity (and
 * ambiguous), io, then io from a step that ended "err EIO" (no kernel line;
 * detail is that step), then mount (a "mount" or "remount" step ended in err),
 * else none; detail is the first line of that class (for csum, the first
 * csum-error line when there is one: it names the object). The errno
 * signal (below) makes it csum, or decides an ambiguous message.
 *
 * reaction, the most severe present (outcome.h's order):
 *   kasan, oops, panic, hang   kernel reports (klog.c); after an oops with
 *                   panic_on_oops the oops wins; "H exit timeout" is a hang
 *                   when the guest had gone silent (see slow below)
 *   mount-refused   a "mount" or "remount" step ended in err
 *   then, the worst over the workload's mounts (a mount step that succeeds
 *   starts one), each judged by its own last probes and its own lines:
 *   shutdown        its LAST write probe (FB_PROBE_MARK, probe.h) ended
 *                   "err EIO" and its LAST read probe (FB_PROBE_READ_MARK)
 *                   too: the filesystem is not read-only (that write would
 *                   get EROFS) and fails a read that cannot reach the fault
 *   remount-ro      its LAST write probe ended "err EROFS" ("Remounting
 *                   filesystem read-only" alone proves nothing), or, in a
 *                   mount the probes never reached, one of its steps
 *                   failed with EROFS after an ext4 error of that mount
 *   error-continue  an "EXT4-fs error" line of that mount and its probe
 *                   ended ok. An umount step's lines are no mount's: an
 *                   error logged while the umount ran (ext4_put_super's
 *                   "Couldn't clean up the journal") is umount_error, and
 *                   a mount after it starts clean: a filesystem that went
 *                   read-only never turns error-continue by a later mount.
 *   recovered       a csum-error line ending in "recovered", no "EXT4-fs
 *                   error" line, and the probe ended ok
 *   none            also every mount asked for read-only ("mount ro",
 *                   "remount ro") but for shutdown: its writes get EROFS
 *                   by request, and a successful remount starts a mount
 *                   of its own
 * outcome.h ranks error-continue above recovered: a run that recovered one
 * checksum failure and let another error through is error-continue.
 *
 * umount_error: the first ext4/jbd2 error line logged while the LAST umount
 * step ran (between the step before and its result: the agent drains the
 * kernel's messages before each result).
 *
 * note: the first line of the kernel checking its own state (klog.c's
 * FB_KLOG_NOTE, jbd2's "Spotted dirty metadata buffer"): never a detection,
 * and it sets warning: the kernel warns of its own state.
 *
 * signals (outcome.h struct fb_signals): the detection as the message
 * tells it (detail's line, its class and function from klog.c) and as the
 * errno ext4 passed on tells it: the first FAN_FS_ERROR event ("A fserror
 * ERRNO INO COUNT", the error ext4 recorded first) that is no consequence
 * (an EROFS, or an EIO once the journal aborted or ext4 went read-only;
 * an error line no rule names logged then is a consequence too) or, when none came, the
 * first failing step whose errno names a class (EBADMSG csum, EUCLEAN
 * sanity, EIO io; an EIO after the journal aborted or ext4 went read-only
 * is their consequence, EROFS names none). Two known classes that differ
 * are a conflict (an ambiguous message excepted), explained by klog.c's
 * table or "unexplained". detect (decide_detect) is csum when either says
 * csum; without the fanotify witness ("A fserror-watch", no
 * "fserror-unavailable") the errno does not decide.
 *
 * The order property's inputs (order.h): whether a csum-error line came,
 * the first ext4 error line (or ext4/jbd2 detection line) that no checksum
 * failure prints and that came before any csum-error line, with the
 * function that printed it, and the first FAN_FS_ERROR event's errno,
 * consequence or not.
 *
 * warning: "WARNING:", "BUG:" or "UBSAN:" in a kernel line.
 *
 * infra: "H exit qemu-error ..." or "H exit nbdkit-error ..." (the rest of
 * that line), or no "A ready" and no panic, oops or KASAN report (the guest
 * never came up, and no kernel crash explains it), or a slow step.
 *
 * slow: a timeout is no verdict of the kernel's by itself. The agent beats
 * ("A beat N") each second step N runs, and the host's timeout line says
 * how long before it the agent's last line came ("H exit timeout ...; the
 * agent's last line S s before"). With S at most SILENCE_MAX and no kernel
 * hang report (hung task, lockup, RCU stall), the kernel kept answering
 * to the end: the step was slow (a walk of a huge file), and the case is
 * infra, not a hang. A longer silence, or a timeout line that says
 * nothing of it, is a hang.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify.h"
#include "classify/klog.h"
#include "classify/probe.h"

/* printk's longest record is shorter than this (PRINTKRB_RECORD_MAX) */
#define TEXT_MAX 1024

/* One kernel message, normalised. */
struct kline {
	char text[TEXT_MAX];
	size_t len;
	long long usec;		/* printk time, -1 when the line has none */
	char src;		/* 'C' console, 'A' agent kmsg */
};

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* The next line of [*pos, end) without its "\n" or "\r\n". */
static bool next_line(const char **pos, const char *end,
		      const char **line, size_t *len)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', end - p);
	*line = p;
	*len = (nl ? nl : end) - p;
	while (*len && p[*len - 1] == '\r')
		(*len)--;
	*pos = nl ? nl + 1 : end;
	return true;
}

/* Parse an unsigned decimal; advance *p. */
static bool parse_ull(const char **p, const char *end, unsigned long long *v)
{
	const char *s = *p;

	*v = 0;
	while (s < end && isdigit((unsigned char)*s))
		*v = *v * 10 + (*s++ - '0');
	if (s == *p)
		return false;
	*p = s;
	return true;
}

/*
 * Skip a console line's "[    1.234567] " stamp (and a "[    T1] " caller
 * id after it, CONFIG_PRINTK_CALLER); *usec gets the time, or -1.
 */
static const char *skip_stamp(const char *p, const char *end, long long *usec)
{
	const char *s = p + 1;
	unsigned long long sec, frac;

	*usec = -1;
	if (p >= end || *p != '[')
		return p;
	while (s < end && *s == ' ')
		s++;
	if (!parse_ull(&s, end, &sec) || s >= end || *s != '.')
		return p;
	s++;
	if (!parse_ull(&s, end, &frac) || s >= end || *s != ']')
		return p;
	*usec = sec * 1000000 + frac;
	s++;
	if (s < end && *s == '[') {
		const char *c = memchr(s, ']', end - s);

		if (c && c - s < 12)
			s = c + 1;
	}
	if (s < end && *s == ' ')
		s++;
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Copy [p, end) into k->text, decoding /dev/kmsg's \xNN escapes if asked. */
static void set_text(struct kline *k, const char *p, const char *end,
		     bool unescape)
{
	size_t n = 0;

	while (p < end && n < sizeof(k->text) - 1) {
		if (unescape && *p == '\\' && end - p >= 4 && p[1] == 'x' &&
		    hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
			k->text[n++] = hexval(p[2]) << 4 | hexval(p[3]);
			p += 4;
			continue;
		}
		k->text[n++] = *p++;
	}
	k->text[n] = '\0';
	k->len = n;
}

/* If LINE is a kernel message ("C ..." or "A kmsg ..."), normalise it. */
static bool kernel_line(const char *line, size_t len, struct kline *k)
{
	const char *end = line + len, *p;
	unsigned long long seq, level, usec;

	if (starts(line, len, "C ")) {
		p = skip_stamp(line + 2, end, &k->usec);
		set_text(k, p, end, false);
		k->src = 'C';
		return true;
	}
	if (!starts(line, len, "A kmsg "))
		return false;
	p = line + 7;
	if (!parse_ull(&p, end, &seq) || p >= end || *p++ != ' ' ||
	    !parse_ull(&p, end, &level) || p >= end || *p++ != ' ' ||
	    !parse_ull(&p, end, &usec))
		return false;
	if (p < end && *p == ' ')
		p++;
	k->usec = usec;
	set_text(k, p, end, true);
	k->src = 'A';
	return true;
}

/* A step result line "A step N TEXT -> ok|err ERRNAME [DETAIL]". */
struct step_line {
	const char *text;	/* TEXT, not NUL-terminated */
	size_t text_len;
	bool ok;
	char err[24];		/* ERRNAME when !ok */
};

static bool parse_step(const char *line, size_t len, struct step_line *s)
{
	const char *end = line + len, *p = line + 7, *arrow;
	unsigned long long n;
	size_t k = 0;

	if (!starts(line, len, "A step ") || !parse_ull(&p, end, &n) ||
	    p >= end || *p++ != ' ')
		return false;
	arrow = memmem(p, end - p, " -> ", 4);
	if (!arrow)
		return false;
	s->text = p;
	s->text_len = arrow - p;
	p = arrow + 4;
	s->ok = starts(p, end - p, "ok");
	s->err[0] = '\0';
	if (s->ok)
		return true;
	if (!starts(p, end - p, "err "))
		return false;
	for (p += 4; p < end && *p != ' ' && k < sizeof(s->err) - 1; p++)
		s->err[k++] = *p;
	s->err[k] = '\0';
	return true;
}

/* Whether step TEXT (after an "expect ERRNAME " or "may " prefix) is operation OP. */
static bool is_op(const char *text, size_t len, const char *op)
{
	const char *end = text + len, *sp;
	size_t k = strlen(op);

	if (starts(text, len, "may ")) {
		text += 4;
	} else if (starts(text, len, "expect ")) {
		sp = memchr(text + 7, ' ', end - text - 7);
		if (!sp)
			return false;
		text = sp + 1;
	}
	return starts(text, end - text, op) &&
	       ((size_t)(end - text) == k || text[k] == ' ');
}

/* A mount step: mount, or remount (a refused remount is a refused mount too). */
static bool is_mount(const char *text, size_t len)
{
	return is_op(text, len, "mount") || is_op(text, len, "remount");
}

/*
 * Whether mount step TEXT asks for a read-only filesystem: "ro" among its
 * comma-separated options (guest/ops.c passes it as MS_RDONLY).
 */
static bool asks_ro(const char *text, size_t len)
{
	const char *end = text + len, *p = memchr(text, ' ', len);

	if (p && starts(text, len, "may "))
		p = memchr(p + 1, ' ', end - p - 1);
	else if (p && starts(text, len, "expect "))
		p = (p = memchr(p + 1, ' ', end - p - 1)) ? memchr(p + 1, ' ', end - p - 1) : NULL;
	for (p = p ? p + 1 : end; p < end;) {
		const char *c = memchr(p, ',', end - p);
		size_t n = (c ? c : end) - p;

		if (n == 2 && !memcmp(p, "ro", 2))
			return true;
		p += n + 1;
	}
	return false;
}

static bool is_umount(const char *text, size_t len)
{
	return is_op(text, len, "umount");
}

/* Everything fb_classify() collects in one pass. */
struct findings {
	char detail[FB_KLOG_AMBIGUOUS + 1][256];	/* first line of each class, "" if none */
	char func[FB_KLOG_AMBIGUOUS + 1][64];	/* the function that printed it */
	bool csumerr_detail;	/* detail[FB_KLOG_CSUM] is a csum-error line */
	int ext4_error;		/* "EXT4-fs error" lines of the current mount */
	int win_errors;		/* "EXT4-fs error" lines since the last step result */
	char win_line[256];	/* the first ext4/jbd2 error line since then */
	char umount_line[256];	/* win_line at the last umount step's result */
	char note[256];		/* the first FB_KLOG_NOTE line */
	bool gone_ro;		/* the journal aborted or ext4 went read-only */
	bool fan_watched, fan_unavailable;
	char fan_err[24];	/* the first FAN_FS_ERROR event's errno that is no
				   consequence, "" before one */
	char fan_first[24];	/* the first event's errno, consequence or not */
	bool csum_line;		/* a csum-error line came */
	char before_line[256];	/* the first error line no checksum failure prints,
				   before any csum-error line */
	char before_func[64];
	char step_err[24];	/* the first failing step's errno that names a class */
	char step_line[160];	/* that step, "step N TEXT" */
	bool recovered;		/* a csum-error line ending in "recovered" */
	unsigned reactions;
	bool ready;
	int mount;		/* mount steps: 0 none, 1 all ok, -1 one refused */
	char mount_line[256];
	/* of the current mount (a mount step that succeeds starts another) */
	int probe;		/* last write probe: 0 none, 1 ok, 2 EROFS, 3 EIO, -1 other */
	int read_probe;		/* last read probe: 0 none, 1 ok, 2 EIO, -1 other */
	bool step_erofs;	/* a workload step of this mount failed with EROFS
				   after an ext4 error of this mount */
	bool ro_asked;		/* the mount step asked for ro: EROFS is its answer */
	enum fb_reaction mounts_reaction;	/* the worst of the mounts before */
	char eio_line[256];	/* first step that ended "err EIO" */
	char exit_kind[32];	/* "H exit KIND" */
	char exit_detail[200];
	int beat;		/* the step of the last "A beat N", 0: none */
};

/* Seconds of silence before a timeout that still count as the guest answering: beats are 1 s apart. */
#define SILENCE_MAX 5.0

static void copy_line(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static bool ends_with_word(const char *t, size_t len, const char *word)
{
	size_t k = strlen(word);

	while (len && isspace((unsigned char)t[len - 1]))
		len--;
	return len > k && t[len - k - 1] == ' ' && !memcmp(t + len - k, word, k);
}

/* Lines that say the journal aborted or ext4 stopped writing: later EIOs are theirs. */
static bool goes_read_only(const char *t)
{
	return strstr(t, "Remounting filesystem read-only") || strstr(t, "Aborting journal") ||
	       strstr(t, "Detected aborted journal");
}

static void see_kernel(struct findings *f, const struct kline *k)
{
	char func[64];
	enum fb_klog_class c = fb_klog_rule(k->text, func, sizeof(func));
	enum fb_klog_family fam = fb_klog_family(k->text);
	bool detection = c == FB_KLOG_CSUM || c == FB_KLOG_SANITY || c == FB_KLOG_IO ||
			 c == FB_KLOG_AMBIGUOUS;

	f->reactions |= fb_klog_reactions(k->text);
	if (fam == FB_KLOG_FAM_ERROR)
		f->win_errors++;
	if (fam == FB_KLOG_FAM_CSUMERR)
		f->csum_line = true;
	/*
	 * The order property (order.h): an ext4 error line, or a jbd2 or
	 * ext4 line of a detection, that no checksum failure prints, logged
	 * before any csum-error line
	 */
	if (!f->csum_line && !f->before_line[0] && c != FB_KLOG_CSUM && c != FB_KLOG_NOTE &&
	    (fam == FB_KLOG_FAM_ERROR || detection)) {
		copy_line(f->before_line, sizeof(f->before_line), k->text, k->len);
		snprintf(f->before_func, sizeof(f->before_func), "%s", func);
	}
	if (!f->win_line[0] && fam != FB_KLOG_FAM_ANY && (fam == FB_KLOG_FAM_ERROR || detection))
		copy_line(f->win_line, sizeof(f->win_line), k->text, k->len);
	/*
	 * An error line that does not say which check failed, logged once
	 * the journal aborted or ext4 went read-only, reports a refusal the
	 * earlier error caused ("mark_inode_dirty error" of an EROFS), not a
	 * check of the disk
	 */
	if (c == FB_KLOG_AMBIGUOUS && f->gone_ro)
		detection = false;
	f->gone_ro |= goes_read_only(k->text);
	if (fam == FB_KLOG_FAM_CSUMERR && ends_with_word(k->text, k->len, "recovered"))
		f->recovered = true;
	if (c == FB_KLOG_NOTE && !f->note[0])
		copy_line(f->note, sizeof(f->note), k->text, k->len);
	if (!detection)
		return;
	if (!f->detail[c][0] || (fam == FB_KLOG_FAM_CSUMERR && !f->csumerr_detail)) {
		copy_line(f->detail[c], sizeof(f->detail[c]), k->text, k->len);
		snprintf(f->func[c], sizeof(f->func[c]), "%s", func);
		if (fam == FB_KLOG_FAM_CSUMERR)
			f->csumerr_detail = true;
	}
}

/* The class of an errno name as ext4 passes it on (EFSBADCRC is EBADMSG). */
static enum fb_signal errno_signal(const char *e)
{
	if (!strcmp(e, "EBADMSG") || !strcmp(e, "EFSBADCRC"))
		return FB_SIGNAL_CSUM;
	if (!strcmp(e, "EUCLEAN") || !strcmp(e, "EFSCORRUPTED"))
		return FB_SIGNAL_SANITY;
	if (!strcmp(e, "EIO"))
		return FB_SIGNAL_IO;
	return FB_SIGNAL_NONE;
}

/*
 * The agent's fserror lines (witness/fserror.h has their full grammar):
 * whether the workload was watched, and the first event's errno, a word
 * of at most 23 bytes.
 */
static void see_fserror(struct findings *f, const char *line, size_t len)
{
	const char *p = line + strlen("A fserror "), *end = line + len;
	size_t n;

	if (starts(line, len, "A fserror-watch "))
		f->fan_watched = true;
	else if (starts(line, len, "A fserror-unavailable "))
		f->fan_unavailable = true;
	if (!starts(line, len, "A fserror "))
		return;
	for (n = 0; p + n < end && p[n] != ' '; n++)
		;
	if (!f->fan_first[0] && n && n < sizeof(f->fan_first))
		copy_line(f->fan_first, sizeof(f->fan_first), p, n);
	if (f->fan_err[0])
		return;
	/*
	 * ext4 records EROFS only for an operation refused after it went
	 * read-only or its journal aborted, and an EIO after that is the
	 * abort's: consequences, never the detection (ext4_journal_check_start,
	 * __ext4_std_error). An error that sends no event of its own
	 * (__ext4_grp_locked_error) is then known by its message alone.
	 */
	if ((n == 5 && !memcmp(p, "EROFS", 5)) || (f->gone_ro && n == 3 && !memcmp(p, "EIO", 3)))
		return;
	if (n && n < sizeof(f->fan_err))
		copy_line(f->fan_err, sizeof(f->fan_err), p, n);
}

/*
 * How the filesystem of the current mount reacted, by its last probes and
 * its own ext4 errors:
 *   shutdown        the write probe and the read probe ended "err EIO"
 *   remount-ro      the write probe ended "err EROFS", or, in a mount the
 *                   probes never reached (the workload unmounted it), a
 *                   step failed with EROFS after an ext4 error of the mount
 *   error-continue  an "EXT4-fs error" line and the write probe ended ok
 *   recovered       a csum-error line ending in "recovered" and the probe ok
 */
static enum fb_reaction mount_reaction(const struct findings *f)
{
	if (f->probe == 3 && f->read_probe == 2)
		return FB_REACT_SHUTDOWN;
	/*
	 * Mounted read-only on request: every write gets EROFS before ext4
	 * looks at it, and ext4_handle_error() changes nothing on a read-only
	 * superblock: no reaction can be seen but the ones above.
	 */
	if (f->ro_asked)
		return FB_REACT_NONE;
	if (f->probe == 2 || (!f->probe && f->step_erofs))
		return FB_REACT_REMOUNT_RO;
	if (f->probe == 1 && f->ext4_error)
		return FB_REACT_ERROR_CONTINUE;
	if (f->probe == 1 && f->recovered)
		return FB_REACT_RECOVERED;
	return FB_REACT_NONE;
}

/* A mount ends (another starts): keep its reaction, forget its probes. */
static void close_mount(struct findings *f)
{
	enum fb_reaction r = mount_reaction(f);

	if (r > f->mounts_reaction)
		f->mounts_reaction = r;
	f->probe = 0;
	f->read_probe = 0;
	f->ext4_error = 0;
	f->step_erofs = false;
	f->ro_asked = false;
}

static void see_step(struct findings *f, const char *line, size_t len,
		     const struct step_line *s)
{
	/* the detail names the agent's line without its "A " */
	const char *text = line + 2;
	size_t n = len - 2;

	/*
	 * A refused mount is the kernel's answer whichever mount step of the
	 * pass it is: a workload that writes, unmounts and mounts again meets a
	 * fault written at the umount only there. The line kept is the first
	 * refused mount's, else the first mount's.
	 */
	if (is_mount(s->text, s->text_len) && f->mount >= 0 && (!s->ok || !f->mount)) {
		f->mount = s->ok ? 1 : -1;
		copy_line(f->mount_line, sizeof(f->mount_line), text, n);
	}
	if (memmem(s->text, s->text_len, FB_PROBE_MARK, strlen(FB_PROBE_MARK)))
		f->probe = s->ok ? 1 : !strcmp(s->err, "EROFS") ? 2 :
			   !strcmp(s->err, "EIO") ? 3 : -1;
	if (memmem(s->text, s->text_len, FB_PROBE_READ_MARK,
		   strlen(FB_PROBE_READ_MARK)))
		f->read_probe = s->ok || !strcmp(s->err, "ENODATA") ? 1 :
				!strcmp(s->err, "EIO") ? 2 : -1;
	if (!s->ok && !strcmp(s->err, "EIO") && !f->eio_line[0])
		copy_line(f->eio_line, sizeof(f->eio_line), text, n);
	/* an EIO after the journal aborted or ext4 went read-only is theirs */
	if (!s->ok && !f->step_err[0] && errno_signal(s->err) != FB_SIGNAL_NONE &&
	    !(f->gone_ro && !strcmp(s->err, "EIO"))) {
		snprintf(f->step_err, sizeof(f->step_err), "%s", s->err);
		snprintf(f->step_line, sizeof(f->step_line), "%.*s",
			 (int)(s->text + s->text_len - text), text);
	}
	/*
	 * The ext4 errors the reaction weighs are those of the probe's mount:
	 * a mount starts them afresh with its own, an umount's are its own
	 * (umount_line), never a reaction of the workload.
	 */
	if (is_mount(s->text, s->text_len) && s->ok) {
		close_mount(f);
		f->ro_asked = asks_ro(s->text, s->text_len);
		f->ext4_error = f->win_errors;
	} else if (is_umount(s->text, s->text_len)) {
		snprintf(f->umount_line, sizeof(f->umount_line), "%s", f->win_line);
	} else {
		f->ext4_error += f->win_errors;
		if (!s->ok && !strcmp(s->err, "EROFS") && f->ext4_error &&
		    !memmem(s->text, s->text_len, FB_PROBE_MARK, strlen(FB_PROBE_MARK)))
			f->step_erofs = true;
	}
	f->win_errors = 0;
	f->win_line[0] = '\0';
}

static void see_exit(struct findings *f, const char *line, size_t len)
{
	const char *p = line + 7, *end = line + len;
	const char *sp = memchr(p, ' ', end - p);

	copy_line(f->exit_kind, sizeof(f->exit_kind), p, (sp ? sp : end) - p);
	if (sp)
		copy_line(f->exit_detail, sizeof(f->exit_detail), sp + 1,
			  end - sp - 1);
}

static void scan(const char *t, size_t len, struct findings *f, struct kline *k)
{
	const char *pos = t, *end = t + len, *line;
	size_t n;

	while (next_line(&pos, end, &line, &n)) {
		struct step_line s;

		if (kernel_line(line, n, k))
			see_kernel(f, k);
		else if (n == 7 && starts(line, n, "A ready"))
			f->ready = true;
		else if (parse_step(line, n, &s))
			see_step(f, line, n, &s);
		else if (starts(line, n, "H exit "))
			see_exit(f, line, n);
		else if (starts(line, n, "A beat "))
			f->beat = atoi(line + 7);
		else if (starts(line, n, "A fserror"))
			see_fserror(f, line, n);
	}
	/* the lines after the last step: the agent's sync before "done" */
	f->ext4_error += f->win_errors;
}

/*
 * The message's class: the first line of the first class present in the
 * order csum, ambiguous (it may be a checksum), sanity, io.
 */
static void message_signal(const struct findings *f, struct fb_signals *sig)
{
	static const struct { enum fb_klog_class c; enum fb_signal s; } order[] = {
		{ FB_KLOG_CSUM, FB_SIGNAL_CSUM },
		{ FB_KLOG_AMBIGUOUS, FB_SIGNAL_AMBIGUOUS },
		{ FB_KLOG_SANITY, FB_SIGNAL_SANITY },
		{ FB_KLOG_IO, FB_SIGNAL_IO },
	};

	sig->msg = FB_SIGNAL_NONE;
	sig->msg_line[0] = sig->msg_func[0] = '\0';
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (f->detail[order[i].c][0]) {
			sig->msg = order[i].s;
			snprintf(sig->msg_line, sizeof(sig->msg_line), "%s", f->detail[order[i].c]);
			snprintf(sig->msg_func, sizeof(sig->msg_func), "%s", f->func[order[i].c]);
			return;
		}
	}
}

/*
 * The errno's class: the first FAN_FS_ERROR event's that is no
 * consequence (the error ext4 recorded first), or with none the first failing step's that names a
 * class; an EIO after the journal aborted or ext4 went read-only is theirs,
 * and EROFS names none.
 */
static void errno_signal_of(const struct findings *f, struct fb_signals *sig)
{
	const char *e = f->fan_err[0] ? f->fan_err : f->step_err;

	sig->fanotify = f->fan_watched && !f->fan_unavailable;
	if (!*e)
		return;
	sig->err = errno_signal(e);
	snprintf(sig->err_name, sizeof(sig->err_name), "%s", e);
	snprintf(sig->err_source, sizeof(sig->err_source), "%s",
		 f->fan_err[0] ? "fanotify" : f->step_line);
}

static enum fb_klog_class klog_of(enum fb_signal s)
{
	return s == FB_SIGNAL_CSUM ? FB_KLOG_CSUM : s == FB_SIGNAL_SANITY ? FB_KLOG_SANITY :
	       s == FB_SIGNAL_IO ? FB_KLOG_IO : FB_KLOG_NONE;
}

/*
 * Two known classes that differ (an ambiguous message excepted) are a
 * conflict: said, with the kernel function that explains it, or
 * "unexplained".
 */
static void conflict(struct fb_signals *sig)
{
	const char *why;

	sig->conflict[0] = '\0';
	if (sig->msg == FB_SIGNAL_NONE || sig->msg == FB_SIGNAL_AMBIGUOUS ||
	    sig->err == FB_SIGNAL_NONE || sig->msg == sig->err)
		return;
	why = fb_klog_conflict(sig->msg_func, sig->msg_line, klog_of(sig->msg), klog_of(sig->err),
			       strcmp(sig->err_source, "fanotify") != 0);
	snprintf(sig->conflict, sizeof(sig->conflict), "message %s (%s), errno %s (%s, %s): %s",
		 fb_signal_name(sig->msg), sig->msg_func[0] ? sig->msg_func : "?",
		 fb_signal_name(sig->err), sig->err_name, sig->err_source,
		 why ? why : "unexplained");
}

static enum fb_detect detect_of(enum fb_signal s)
{
	return s == FB_SIGNAL_CSUM ? FB_DETECT_CSUM : s == FB_SIGNAL_IO ? FB_DETECT_IO :
	       FB_DETECT_SANITY;
}

/*
 * detect: csum when either signal says csum (the errno only with the
 * fanotify witness: without it the case is decided from the message, as
 * before the witness); else the message's class, an ambiguous message
 * taking the errno's class, else sanity; else, with the witness,
 * a csum or sanity errno no message explained; then a step's EIO, a
 * refused mount, none.
 */
static enum fb_detect decide_detect(const struct findings *f, struct fb_signals *sig,
				    char *detail, size_t size)
{
	enum fb_signal e;

	message_signal(f, sig);
	errno_signal_of(f, sig);
	conflict(sig);
	e = sig->fanotify ? sig->err : FB_SIGNAL_NONE;
	if (sig->msg != FB_SIGNAL_NONE) {
		snprintf(detail, size, "%s", sig->msg_line);
		if (e == FB_SIGNAL_CSUM)
			return FB_DETECT_CSUM;
		/* a message that does not say which check: the errno does */
		if (sig->msg == FB_SIGNAL_AMBIGUOUS && e != FB_SIGNAL_NONE)
			return detect_of(e);
		return detect_of(sig->msg);
	}
	if (e == FB_SIGNAL_CSUM || e == FB_SIGNAL_SANITY) {
		snprintf(detail, size, "%s %s", sig->err_source, sig->err_name);
		return detect_of(e);
	}
	if (f->eio_line[0]) {
		snprintf(detail, size, "%s", f->eio_line);
		return FB_DETECT_IO;
	}
	if (f->mount < 0) {
		snprintf(detail, size, "%s", f->mount_line);
		return FB_DETECT_MOUNT;
	}
	detail[0] = '\0';
	return FB_DETECT_NONE;
}

/*
 * A timeout while the guest kept answering: the agent's last line came at
 * most SILENCE_MAX s before it (the host's timeout line says), and the
 * kernel reported no hang of its own.
 */
static bool slow_step(const struct findings *f, double *silence)
{
	const char *p = strstr(f->exit_detail, "the agent's last line ");
	char *end;

	if (strcmp(f->exit_kind, "timeout") || (f->reactions & FB_KLOG_HANG) || !p)
		return false;
	*silence = strtod(p + strlen("the agent's last line "), &end);
	return end != p + strlen("the agent's last line ") && *silence <= SILENCE_MAX;
}

static enum fb_reaction decide_reaction(const struct findings *f)
{
	enum fb_reaction r;
	double silence;

	if (f->reactions & FB_KLOG_KASAN)
		return FB_REACT_KASAN;
	if (f->reactions & FB_KLOG_OOPS)
		return FB_REACT_OOPS;
	if (f->reactions & FB_KLOG_PANIC)
		return FB_REACT_PANIC;
	if ((f->reactions & FB_KLOG_HANG) ||
	    (!strcmp(f->exit_kind, "timeout") && !slow_step(f, &silence)))
		return FB_REACT_HANG;
	if (f->mount < 0)
		return FB_REACT_MOUNT_REFUSED;
	r = mount_reaction(f);
	return r > f->mounts_reaction ? r : f->mounts_reaction;
}

static void decide_infra(const struct findings *f, char *infra, size_t size)
{
	double silence;

	infra[0] = '\0';
	if (slow_step(f, &silence)) {
		char step[32] = "a step";

		if (f->beat)
			snprintf(step, sizeof(step), "step %d", f->beat);
		snprintf(infra, size,
			 "slow step: %s ran past the timeout while the kernel kept answering (the agent's last line %.1f s before it, no hang report)",
			 step, silence);
	} else if (!strcmp(f->exit_kind, "qemu-error") ||
		   !strcmp(f->exit_kind, "nbdkit-error")) {
		snprintf(infra, size, "%s%s%s", f->exit_kind,
			 f->exit_detail[0] ? " " : "", f->exit_detail);
	} else if (!f->ready && !(f->reactions & (FB_KLOG_PANIC | FB_KLOG_OOPS | FB_KLOG_KASAN))) {
		snprintf(infra, size,
			 "the guest never came up: no 'ready' from the agent, no kernel crash (exit: %s)",
			 f->exit_kind[0] ? f->exit_kind : "none logged");
	}
}

int fb_classify(const char *transcript, size_t len, struct fb_outcome *ret)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct kline *k = malloc(sizeof(*k));

	if (!f || !k) {
		free(f);
		free(k);
		return -ENOMEM;
	}
	scan(transcript, len, f, k);
	memset(&ret->sig, 0, sizeof(ret->sig));
	ret->detect = decide_detect(f, &ret->sig, ret->detail, sizeof(ret->detail));
	ret->sig.csum_line = f->csum_line;
	snprintf(ret->sig.before_line, sizeof(ret->sig.before_line), "%s", f->before_line);
	snprintf(ret->sig.before_func, sizeof(ret->sig.before_func), "%s", f->before_func);
	snprintf(ret->sig.fan_first, sizeof(ret->sig.fan_first), "%s", f->fan_first);
	snprintf(ret->umount_error, sizeof(ret->umount_error), "%s", f->umount_line);
	snprintf(ret->note, sizeof(ret->note), "%s", f->note);
	ret->reaction = decide_reaction(f);
	ret->warning = (f->reactions & FB_KLOG_WARNING) || f->note[0];
	ret->fsck = FB_FSCK_NOT_RUN;
	ret->data = FB_DATA_NOT_CHECKED;
	ret->attrib = FB_ATTRIB_NA;
	ret->attrib_detail[0] = '\0';
	decide_infra(f, ret->infra, sizeof(ret->infra));
	free(f);
	free(k);
	return 0;
}

/*
 * dmesg: the kernel lines, each message once. The console and kmsg carry
 * the same messages (the console only those above its loglevel), in an
 * order that can differ; a message may also legitimately repeat. So a line
 * is kept when its text has now been seen more often from its own source
 * than from the other one: each copy on one side pairs with one copy on the
 * other, and the output holds max(console, kmsg) copies of every text.
 */
struct seen {
	const char *text;	/* in the arena; NULL = empty slot */
	size_t len;
	unsigned long hash;
	unsigned count[2];	/* [0] console, [1] kmsg */
};

struct dmesg {
	char *arena;		/* the kept texts, NUL-separated */
	size_t used;
	struct seen *table;
	size_t mask;
	struct { size_t off, len; long long usec; bool matters; } *lines;
	size_t nlines;
};

static unsigned long hash_text(const char *s, size_t n)
{
	unsigned long h = 14695981039346656037UL;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211UL;
	return h;
}

/*
 * Count one copy of K; return its entry when it is a new line of the
 * output, NULL when it pairs with a copy from the other source.
 */
static const struct seen *dedup(struct dmesg *d, const struct kline *k)
{
	unsigned long h = hash_text(k->text, k->len);
	int side = k->src == 'A';
	struct seen *e;

	for (size_t i = h & d->mask;; i = (i + 1) & d->mask) {
		e = &d->table[i];
		if (!e->text || (e->hash == h && e->len == k->len &&
				 !memcmp(e->text, k->text, k->len)))
			break;
	}
	if (!e->text) {
		memcpy(d->arena + d->used, k->text, k->len + 1);
		e->text = d->arena + d->used;
		e->len = k->len;
		e->hash = h;
		d->used += k->len + 1;
	}
	return ++e->count[side] > e->count[!side] ? e : NULL;
}

static bool matters(const struct kline *k)
{
	enum fb_klog_class c = fb_klog_class(k->text);

	return c != FB_KLOG_NONE || fb_klog_family(k->text) == FB_KLOG_FAM_ERROR ||
	       fb_klog_reactions(k->text);
}

static bool banner(const char *t)
{
	return strstr(t, "[ cut here ]") || (t[0] == '=' && t[1] == '=' &&
					      strspn(t, "=") == strlen(t));
}

static int dmesg_collect(const char *t, size_t len, struct dmesg *d)
{
	const char *pos = t, *end = t + len, *line;
	size_t n, nl = 1, cap = 16;
	struct kline *k = malloc(sizeof(*k));

	for (const char *p = t; (p = memchr(p, '\n', end - p)); p++)
		nl++;
	while (cap < 2 * nl)
		cap *= 2;
	d->mask = cap - 1;
	d->table = calloc(cap, sizeof(*d->table));
	d->arena = malloc(len + nl + 1);
	d->lines = malloc(nl * sizeof(*d->lines));
	if (!k || !d->table || !d->arena || !d->lines) {
		free(k);
		return -ENOMEM;
	}
	while (next_line(&pos, end, &line, &n)) {
		const struct seen *e;

		if (!kernel_line(line, n, k) || !(e = dedup(d, k)))
			continue;
		d->lines[d->nlines].off = e->text - d->arena;
		d->lines[d->nlines].len = k->len;
		d->lines[d->nlines].usec = k->usec;
		d->lines[d->nlines].matters = matters(k);
		d->nlines++;
	}
	free(k);
	return 0;
}

static void dmesg_free(struct dmesg *d)
{
	free(d->arena);
	free(d->table);
	free(d->lines);
}

/* Print lines [from, from + count) of D dmesg-style into a new string. */
static int dmesg_print(const struct dmesg *d, size_t from, size_t count,
		       size_t more, char **ret_text)
{
	size_t size = 64, used = 0;
	char *out;

	for (size_t i = from; i < from + count; i++)
		size += d->lines[i].len + 24;
	out = malloc(size);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	for (size_t i = from; i < from + count; i++) {
		const char *text = d->arena + d->lines[i].off;
		long long us = d->lines[i].usec;

		if (us >= 0)
			used += sprintf(out + used, "[%5lld.%06lld] %s\n",
					us / 1000000, us % 1000000, text);
		else
			used += sprintf(out + used, "%s\n", text);
	}
	if (more)
		sprintf(out + used, "[... %zu more lines]\n", more);
	*ret_text = out;
	return 0;
}

int fb_dmesg_text(const char *transcript, size_t len, char **ret_text)
{
	struct dmesg d = { 0 };
	int r = dmesg_collect(transcript, len, &d);

	if (!r)
		r = dmesg_print(&d, 0, d.nlines, 0, ret_text);
	dmesg_free(&d);
	return r;
}

int fb_transcript_excerpt(const char *transcript, size_t len, char **ret_text)
{
	struct dmesg d = { 0 };
	size_t from = 0, count = 0, more = 0;
	int r = dmesg_collect(transcript, len, &d);

	if (r)
		goto out;
	while (from < d.nlines && !d.lines[from].matters)
		from++;
	if (from < d.nlines) {
		if (from && banner(d.arena + d.lines[from - 1].off))
			from--;
		count = d.nlines - from;
		if (count > FB_EXCERPT_MAX_LINES) {
			more = count - FB_EXCERPT_MAX_LINES;
			count = FB_EXCERPT_MAX_LINES;
		}
	}
	r = dmesg_print(&d, from, count, more, ret_text);
out:
	dmesg_free(&d);
	return r;
}
