# kernel/tests: boot tests of the patch series (included by kernel/kernel.mk).
# Each boots the stock and the patched kernel on a corrupted image and shows
# the difference the series claims; see kernel/README.md.
TESTS += kernel/tests/csum-report.sh kernel/tests/emergency-ro.sh \
	kernel/tests/csum-retry.sh kernel/tests/csum-mount.sh
PACKAGES += e2fsprogs python3
