#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML reports in a real browser (make check-html; not in make check
# nor .ci/run: Debian's chromium package is about 460 MB installed):
# headless Chromium renders index.html and a case page of the fixture run
# (harness/tests/report/fixture-run), campaign.html (report-cli campaign),
# a history page of two runs, and the ci baseline's index.html (four
# kernels: the widest matrix), and for each page checks that
#  - every link resolves and every inline SVG is well-formed XML
#    (html-lib), and in the browser every <svg> is an SVG element that
#    drew something and every "#id" link finds its element;
#  - the page logs nothing on the console;
#  - nothing is wider than the window at 1280 px (the page's scrollWidth).
# Screenshots at 1280 px wide are kept in build/check-html/.
# The measuring is done by a test page of its own ($T/measure.html) that
# loads each report in an iframe: the reports themselves carry no script.
# Groups: own-target browser.
set -u
. "$(dirname "$0")/../../tests/lib.sh"
. "$(dirname "$0")/report/html-lib"
cd "$top" || exit 1
cli=${FLIPBED_REPORT_CLI:-build/tests/bin/report-cli}
command -v chromium > /dev/null 2>&1 ||
	skip "chromium not installed (apt-get install chromium; only make check-html needs it)"
require_tools xmllint
require_built "$cli" "$cli"
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac
shots=$B/check-html
mkdir -p "$shots"
fixture=harness/tests/report/fixture-run

# browser ARGS...: headless Chromium, its own profile, no sandbox (root)
browser() {
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --hide-scrollbars "$@"
}

cat > "$T/measure.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>measure</title></head><body>
<iframe id="f" style="width:1280px;height:900px;border:0"></iframe>
<script>
var f = document.getElementById('f');
f.addEventListener('load', function () {
	var d = f.contentDocument, e = d.documentElement, r = [];
	var svgs = d.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'svg');
	var drawn = 0, lost = [];
	for (var i = 0; i < svgs.length; i++)
		if (svgs[i].getBBox().width > 0)
			drawn++;
	var links = d.querySelectorAll('a[href^="#"]');
	for (var j = 0; j < links.length; j++)
		if (!d.getElementById(decodeURIComponent(links[j].getAttribute('href').slice(1))))
			lost.push(links[j].getAttribute('href'));
	document.body.setAttribute('data-result', 'width ' + e.scrollWidth + ' of ' +
		e.clientWidth + '; svg ' + svgs.length + ' drawn ' + drawn +
		'; lost ' + (lost.join(',') || 'none'));
});
f.src = decodeURIComponent(location.hash.slice(1));
</script>
</body></html>
HTML

# check NAME PAGE: the checks above on PAGE; its screenshot as NAME.png
check() {
	failed_before=$_failures
	name=$1
	page=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	html_check "$page" > "$T/check.out"
	[ -s "$T/check.out" ] && check_fail "$name: $(head -5 "$T/check.out")"
	browser --enable-logging=stderr --v=0 --window-size=1280,2000 \
		--screenshot="$shots/$name.png" "file://$page" > /dev/null 2> "$T/console.err"
	[ -s "$shots/$name.png" ] || check_fail "$name: Chromium made no screenshot: $(tail -3 "$T/console.err")"
	grep ':CONSOLE' "$T/console.err" > "$T/console" &&
		check_fail "$name: console: $(head -3 "$T/console")"
	browser --allow-file-access-from-files --virtual-time-budget=10000 --dump-dom \
		"file://$T/measure.html#$page" 2> /dev/null |
		sed -n 's/.*data-result="\([^"]*\)".*/\1/p' > "$T/result"
	result=$(cat "$T/result")
	want_svg=$(grep -c '^<svg ' "$page")
	case $result in
	"width "*) ;;
	*) check_fail "$name: the measuring page got no result"; return ;;
	esac
	w=$(echo "$result" | sed 's/^width \([0-9]*\) of \([0-9]*\);.*/\1 \2/')
	set -- $w
	[ "$1" -le "$2" ] || check_fail "$name: $1 px wide in a $2 px window"
	echo "$result" | grep -q "; svg $want_svg drawn $want_svg; lost none$" ||
		check_fail "$name: $want_svg SVG in the page, the browser has: $result"
	[ "$_failures" = "$failed_before" ] && ok "$name: $result"
}

cp -r $fixture "$T/run"
"$cli" report "$T/run" > /dev/null
"$cli" campaign "$T/run" || check_fail "report-cli campaign failed"
mkdir "$T/run2"
cp -r $fixture/cases $fixture/run.json "$T/run2/"
sed '/"case": "inode\/base-flip@stock\/read"/{
s/"detect": "none", "reaction": "none"/"detect": "csum", "reaction": "remount-ro"/
s/"verdict": "fail"/"verdict": "pass"/
}' $fixture/cases.jsonl > "$T/run2/cases.jsonl"
"$cli" report "$T/run2" > /dev/null
"$cli" report --history "$T/run" "$T/run2" --out "$T/hist" > /dev/null ||
	check_fail "report --history failed"
mkdir "$T/ci"
cp results/baseline/ci/cases.jsonl results/baseline/ci/run.json "$T/ci/"
"$cli" report "$T/ci" > /dev/null

check index "$T/run/index.html"
check case "$T/run/cases/inode_base-flip@stock_read/index.html"
check campaign "$T/run/campaign.html"
check history "$T/hist/history.html"
check ci-index "$T/ci/index.html"
finish
