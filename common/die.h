/* SPDX-License-Identifier: MIT */
/* common/: code that flipbed's programs share.
 *
 * fb_die ends the program on an error: one line on stderr, "PROGRAM:
 * message", and the exit status code. PROGRAM is fb_program, which main
 * sets to the program's name. What must be undone on the way out (a
 * temporary file to remove) goes in an atexit handler, which exit runs.
 */
#ifndef FLIPBED_COMMON_DIE_H
#define FLIPBED_COMMON_DIE_H

extern const char *fb_program;

void fb_die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif
