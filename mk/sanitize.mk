# SPDX-License-Identifier: MIT
# ASan+UBSan builds of flipbed and flipbed-corrupt, and the tests that run
# them. Included by the top Makefile before the components' fragments, so
# that B names the sanitized build directory for all of them.
#
#   make SANITIZE=1 build/asan/bin/flipbed build/asan/bin/flipbed-corrupt
#        everything compiled with -fsanitize=address,undefined into
#        build/asan/ (B), beside the normal build, never over it
#   make check-sanitize
#        builds those two, then runs the quick harness tests, the corruptor
#        tests and the quick matrix with them (mk/check-sanitize.sh): any
#        sanitizer report or leak fails it. Not part of make check: it took
#        8 min 41 s here (2 shared cores; 476 s of tests and matrix, the
#        rest the sanitized build).

ifeq ($(SANITIZE),1)
B := build/asan
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
endif

.PHONY: check-sanitize
# The tests that run flipbed or flipbed-corrupt (not the fuzzers, not the
# report tests, which run a program of their own), taken from TESTS when
# the recipe runs, after every fragment has added to it.
check-sanitize: build/guest/initramfs.cpio.gz build/lib/nbdkit-flipbed-plugin.so
	@$(MAKE) --no-print-directory SANITIZE=1 B=build/asan \
		build/asan/bin/flipbed build/asan/bin/flipbed-corrupt
	@mk/check-sanitize.sh \
		$(filter-out harness/tests/fuzz/% harness/tests/report/%, \
			$(filter harness/tests/%.sh,$(TESTS))) \
		$(filter-out %/fuzz.sh,$(filter corruptor/tests/%.sh,$(TESTS)))
