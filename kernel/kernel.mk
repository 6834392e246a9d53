# SPDX-License-Identifier: MIT
# kernel/: the kernels of kernel/kernels.ini, each built by
# `kernel/build.sh NAME` into build/kernel/NAME (`make kernel-NAME` builds
# one). `make` builds stock and patched (Debian's linux-source-6.1 without and
# with kernel/patches/), `make kasan` (or KASAN=1) the debug variant too.
# `make kernels-6.12` builds stock-6.12 and patched-6.12 (linux-source-6.12,
# kernel/patches-6.12/) and `make check-6.12` boots them with a few
# scenarios (kernel/smoke.sh); `make` leaves them out, `make check` builds
# them for the ci matrix (kernel/tests/tests.mk). `make kernels-debian`
# fetches Debian's binary kernels debian-6.1 and debian-6.12 (apt-get
# download, nothing installed or compiled); `make check` fetches them for
# kernel/tests/debian-kernels.sh; `make kernels-debian-dbg` their debug
# info. See kernel/README.md.

KERNEL_NAMES := $(shell kernel/build.sh --list)
KERNEL_VARIANTS := stock patched
ifeq ($(KASAN),1)
KERNEL_VARIANTS += kasan
endif
KERNELS_6_12 := stock-6.12 patched-6.12
KERNELS_DEBIAN := debian-6.1 debian-6.12
KERNELS_GCOV := stock-gcov patched-gcov

PACKAGES += linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev \
	xz-utils zstd binutils cpio perl python3 qemu-system-x86 qemu-utils apt dpkg kmod

ALL += $(foreach v,$(KERNEL_VARIANTS),$(B)/kernel/$(v)/bzImage)

# The kernel's own make decides what to rebuild; we only re-enter it when a
# file kernel/build.sh reads for that kernel changed (its --inputs).
define KERNEL_RULE
$(B)/kernel/$(1)/bzImage: $(shell kernel/build.sh --inputs $(1))
	@kernel/build.sh $(1)
.PHONY: kernel-$(1)
kernel-$(1): $(B)/kernel/$(1)/bzImage
endef
$(foreach k,$(KERNEL_NAMES),$(eval $(call KERNEL_RULE,$(k))))

# One kernel build after the other (each already uses every core); kasan
# is built in patched's source tree.
$(B)/kernel/patched/bzImage: | $(B)/kernel/stock/bzImage
$(B)/kernel/kasan/bzImage: | $(B)/kernel/patched/bzImage
$(B)/kernel/patched-6.12/bzImage: | $(B)/kernel/stock-6.12/bzImage
$(B)/kernel/patched-gcov/bzImage: | $(B)/kernel/stock-gcov/bzImage

.PHONY: kernels kasan kernels-6.12 kernels-debian kernels-gcov check-6.12 check-patches
kernels: $(foreach v,$(KERNEL_VARIANTS),$(B)/kernel/$(v)/bzImage)
kasan: $(B)/kernel/kasan/bzImage
kernels-6.12: $(foreach k,$(KERNELS_6_12),$(B)/kernel/$(k)/bzImage)
kernels-debian: $(foreach k,$(KERNELS_DEBIAN),$(B)/kernel/$(k)/bzImage)
kernels-gcov: $(foreach k,$(KERNELS_GCOV),$(B)/kernel/$(k)/bzImage)

# Their debug info (the -dbg packages, about 1 GB each to fetch; not in
# make check): flipbed then decodes a case's call traces to file:line.
.PHONY: kernels-debian-dbg
kernels-debian-dbg: $(foreach k,$(KERNELS_DEBIAN),$(B)/kernel/$(k)/dbg/vmlinux)
$(B)/kernel/%/dbg/vmlinux: $(B)/kernel/%/bzImage
	@kernel/build.sh --dbg $*

# The ci matrix on Debian's binary kernels beside the rebuilds of their
# sources: every verdict that differs must be a known, explained one
# (kernel/check-distro.sh); beside (not in) make check, for its run time.
.PHONY: check-distro bench-distro
check-distro: kernels kernels-6.12 kernels-debian $(B)/bin/flipbed \
		$(B)/guest/initramfs.cpio.gz $(B)/lib/nbdkit-flipbed-plugin.so
	@kernel/check-distro.sh

# What a case costs on a shipped kernel against its rebuild (target 1.5x).
BENCHES += bench-distro
bench-distro: kernels kernels-6.12 kernels-debian $(B)/bin/flipbed \
		$(B)/guest/initramfs.cpio.gz $(B)/lib/nbdkit-flipbed-plugin.so
	@kernel/bench-distro.sh

# A boot and a few scenarios on each 6.12 kernel, beside (not in) make check.
check-6.12: kernels-6.12 $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz \
		$(B)/lib/nbdkit-flipbed-plugin.so
	@kernel/smoke.sh $(KERNELS_6_12)

-include kernel/tests/tests.mk

# Build and boot every prefix of a series: the tree must build and boot
# after each patch (SERIES=NAME for another kernel's series than patched's).
check-patches: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz $(B)/lib/nbdkit-flipbed-plugin.so
	@kernel/check-patches.sh $(if $(SERIES),--kernel $(SERIES))
