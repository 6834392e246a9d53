# SPDX-License-Identifier: MIT
# kernel/tests: boot tests of the patch series (included by kernel/kernel.mk).
# Each boots the stock and the patched kernel on a corrupted image and shows
# the difference the series claims; see kernel/README.md.
TESTS += $(call SHELL_TESTS,kernel/tests)
# The race runs under KASAN and lockdep too: make check builds the debug
# variant (kernel/config/kasan.config) as well, and the 6.12 pair, which the
# ci matrix runs (harness/tests/matrix-ci.sh).
CHECK_NEEDS += $(B)/kernel/kasan/bzImage \
	$(foreach k,$(KERNELS_6_12),$(B)/kernel/$(k)/bzImage)
# Debian's binary kernels, fetched (not built) for debian-kernels.sh
CHECK_NEEDS += $(foreach k,$(KERNELS_DEBIAN),$(B)/kernel/$(k)/bzImage)
PACKAGES += e2fsprogs python3

# Create/unlink 10000 files on stock, patched and patched+csum_retry.
BENCHES += bench-kernel
.PHONY: bench-kernel
bench-kernel: $(B)/kernel/stock/bzImage $(B)/kernel/patched/bzImage $(B)/bin/flipbed
	@kernel/tests/bench-kernel.sh
