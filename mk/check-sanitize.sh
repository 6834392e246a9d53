#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-sanitize: run the quick-group tests given as arguments and the
# quick matrix with the ASan+UBSan builds build/asan/bin/flipbed and
# build/asan/bin/flipbed-corrupt. Every sanitizer report (a memory error,
# undefined behaviour, a leak) goes to a file of its own under
# build/asan/reports/ and fails the run; the last line counts them.
#
# flipbed finds kernels, the initramfs, the plugin and the image cache
# beside its bin/: build/asan/ gets links to the normal build's.
set -u
S=build/asan
[ -x $S/bin/flipbed ] && [ -x $S/bin/flipbed-corrupt ] ||
	{ echo "check-sanitize: $S/bin/flipbed or flipbed-corrupt not built (make SANITIZE=1)"; exit 2; }
mkdir -p $S/lib $S/reports || exit 2
for d in kernel guest cache; do
	[ -e build/$d ] || mkdir -p build/$d
	ln -sfn ../$d $S/$d
done
ln -sf ../../lib/nbdkit-flipbed-plugin.so $S/lib/nbdkit-flipbed-plugin.so
rm -f $S/reports/* $S/tests/*.log

export FLIPBED=$PWD/$S/bin/flipbed FLIPBED_CORRUPT=$PWD/$S/bin/flipbed-corrupt
export FLIPBED_TEST_DIR=$S/tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$PWD/$S/reports/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$PWD/$S/reports/ubsan
start=$(date +%s)
rc=0

echo "== quick tests with $FLIPBED and $FLIPBED_CORRUPT"
tests/run -g quick "$@" || rc=1

echo "== the quick matrix"
out=$S/matrix-quick
rm -rf "$out"
$S/bin/flipbed matrix quick --jobs 2 --out "$out" > $S/matrix-quick.log 2>&1
mrc=$?
tail -n 5 $S/matrix-quick.log
# 0 every case met its expectation, 1 some did not: both are outcomes of
# the kernels; 2 and more is flipbed itself failing.
echo "flipbed matrix quick: exit $mrc (log $S/matrix-quick.log, run $out)"
[ $mrc -le 1 ] || rc=1

# ASan and LSan write to their log_path; UBSan, built in with ASan, prints
# on stderr, which the test logs and the matrix log keep.
ubsan=$(cat $S/tests/*.log $S/matrix-quick.log | grep -c 'runtime error:')
reports=$(($(find $S/reports -type f | wc -l) + ubsan))
leaks=$(grep -l 'LeakSanitizer' $S/reports/* 2>/dev/null | wc -l)
if [ "$reports" -ne 0 ]; then
	echo "sanitizer reports (in $S/reports, $S/tests/*.log, $S/matrix-quick.log):"
	{ grep -h -A 3 -e 'ERROR: [A-Za-z]*Sanitizer' $S/reports/* 2>/dev/null
	  grep -h 'runtime error:' $S/tests/*.log $S/matrix-quick.log; } |
		grep -e 'ERROR:' -e 'runtime error' -e ' in [a-z_]* harness/' |
		sort | uniq -c
	rc=1
fi
echo "check-sanitize: $reports sanitizer reports ($leaks leaks) in $(($(date +%s) - start)) s"
exit $rc
