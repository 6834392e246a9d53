# SPDX-License-Identifier: MIT
# bench/: the LWN article's ext4 feature numbers reproduced.
# `make bench-ext4-features` writes results/baseline/ext4-features.md and
# its PNGs; see bench/ext4-features.sh.
BENCHES += bench-ext4-features
PACKAGES += gnuplot-nox e2fsprogs

.PHONY: bench-ext4-features
bench-ext4-features: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz
	bench/ext4-features.sh
