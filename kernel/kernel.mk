# SPDX-License-Identifier: MIT
# kernel/: Debian's linux-source-6.1 built as `stock` and `patched` (our series),
# plus `kasan` on request (make kasan or KASAN=1). See kernel/README.md.

KERNEL_VARIANTS := stock patched
ifeq ($(KASAN),1)
KERNEL_VARIANTS += kasan
endif
KERNEL_INPUTS := kernel/build.sh $(wildcard kernel/config/*.config) \
	kernel/patches/series $(wildcard kernel/patches/*.patch) \
	/usr/src/linux-source-6.1.tar.xz

PACKAGES += linux-source-6.1 flex bison bc libelf-dev libssl-dev xz-utils cpio \
	perl python3 qemu-system-x86 qemu-utils

ALL += $(foreach v,$(KERNEL_VARIANTS),$(B)/kernel/$(v)/bzImage)

# The kernel's own make decides what to rebuild; we only re-enter it when an
# input of ours changed. stock and patched build one after the other (each
# already uses every core), and kasan needs patched's source tree.
$(B)/kernel/stock/bzImage: $(KERNEL_INPUTS)
	@kernel/build.sh stock
$(B)/kernel/patched/bzImage: $(KERNEL_INPUTS) | $(B)/kernel/stock/bzImage
	@kernel/build.sh patched
$(B)/kernel/kasan/bzImage: $(KERNEL_INPUTS) | $(B)/kernel/patched/bzImage
	@kernel/build.sh kasan

.PHONY: kernels kasan check-patches
kernels: $(foreach v,$(KERNEL_VARIANTS),$(B)/kernel/$(v)/bzImage)
kasan: $(B)/kernel/kasan/bzImage

-include kernel/tests/tests.mk

# Build every prefix of the series: the tree must build after each patch.
check-patches:
	@kernel/check-patches.sh
