// SPDX-License-Identifier: MIT
/* order.h: is a checksum failure reported before anything else? */
#include <stdio.h>
#include <string.h>

#include "classify/order.h"

bool fb_order_check(const struct fb_signals *sig, struct fb_order_violation *ret)
{
	memset(ret, 0, sizeof(*ret));
	/* ext4 passes EFSBADCRC on as EBADMSG: the checksum's own errno */
	if (sig->fan_first[0] && strcmp(sig->fan_first, "EBADMSG"))
		snprintf(ret->fanotify, sizeof(ret->fanotify), "%s", sig->fan_first);
	if (sig->before_line[0]) {
		snprintf(ret->first_line, sizeof(ret->first_line), "%s", sig->before_line);
		snprintf(ret->function, sizeof(ret->function), "%s", sig->before_func);
	}
	return ret->first_line[0] || ret->fanotify[0];
}

void fb_order_describe(const struct fb_order_violation *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (v->first_line[0])
		n = snprintf(buf, len, "%s logged '%s' before the first csum-error line",
			     v->function[0] ? v->function : "an unnamed function", v->first_line);
	if (v->fanotify[0] && n < len)
		snprintf(buf + n, len - n, "%sthe first FAN_FS_ERROR event is %s, not EBADMSG",
			 n ? "; " : "", v->fanotify);
}

void fb_order_title(const struct fb_order_violation *v, char *buf, size_t len)
{
	if (v->function[0])
		snprintf(buf, len, "error before the checksum in %s", v->function);
	else
		snprintf(buf, len, "error before the checksum (FAN_FS_ERROR %s)",
			 v->fanotify[0] ? v->fanotify : "none");
}
