# SPDX-License-Identifier: MIT
# harness/bisect/: `flipbed bisect CASE --tree DIR --good REV --bad REV`,
# the first commit of a kernel git tree that changes a case's outcome
# (harness/bisect/README.md). Its object joins the flipbed binary.
#
#   make check-bisect   a bisection on Debian's 6.1 with the series as
#                       commits (builds kernels: not part of make check)

HARNESS_OBJS += $(B)/obj/harness/bisect/bisect.o

.PHONY: check-bisect
check-bisect: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz $(B)/lib/nbdkit-flipbed-plugin.so
	@tests/run harness/bisect/tests/bisect-series.sh

TESTS += $(call SHELL_TESTS,harness/bisect/tests)
