/* SPDX-License-Identifier: MIT */
/*
 * The bounds of every host-side oracle run on a guest-made image (limits.c):
 * a corrupted image is hostile input to e2fsck and to libext2fs alike.
 */
#ifndef FLIPBED_LIMITS_H
#define FLIPBED_LIMITS_H

/*
 * The time limit of each host-side oracle phase (an e2fsck run, building or
 * comparing a manifest): 120 s, or FLIPBED_ORACLE_SECONDS (0 to 86400)
 * from the environment, for a slow machine or a test of the limit itself.
 */
int fb_oracle_seconds(void);

/*
 * The address space of each host tool run on a guest-made image (e2fsck,
 * flipbed-replay), in MiB: 1024, or FLIPBED_ORACLE_MIB (64 to 1048576)
 * from the environment. e2fsck of a healthy 16 GiB filesystem needs a few
 * MiB; a corrupted geometry can make it ask for gigabytes, which the
 * bound turns into a fast failure that does not depend on the host's RAM.
 */
unsigned long fb_oracle_mib(void);

#endif
