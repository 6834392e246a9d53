# SPDX-License-Identifier: MIT
# bench/: the seed's numbers reproduced. `make bench-seed` writes
# results/baseline/seed.md and its PNGs; see bench/seed.sh.
BENCHES += bench-seed
PACKAGES += gnuplot-nox e2fsprogs

.PHONY: bench-seed
bench-seed: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz
	bench/seed.sh
