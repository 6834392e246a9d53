#!/bin/sh
# SPDX-License-Identifier: MIT
# map --json says what map says: the same records in the same order, each
# with every key (null or [] when the text leaves the word out), and file
# names with spaces, quotes, backslashes, control characters and UTF-8
# intact (a name that is not UTF-8 has "path": null). Timing is
# bench.sh's business, not this test's. Groups: quick.
. "$(dirname "$0")/lib.sh"
perl -MJSON::PP -e 1 2>/dev/null ||
	skip "perl's JSON::PP not installed (Debian package perl-modules-5.36, make deps)"

I=$W/j.img
make_tree "$W/tree4096-300" 4096 300
for name in 'with space' 'quote"and\backslash' "$(printf 'tab\there')" \
	"$(printf 'ctl\001x')" "$(printf 'caf\303\251')" "$(printf 'bad\377byte')"; do
	echo data > "$W/tree4096-300/sub/$name"
done
mkfix $I 64M 300 -b 4096 -g 8192 -I 256 -O metadata_csum,inline_data,orphan_file
add_transaction $I

$F map "$I" > "$W/text" || fail "map failed"
$F map "$I" --json > "$W/json" || fail "map --json failed"
perl -MJSON::PP -e '
	use strict; use warnings;
	open(my $t, "<", $ARGV[0]) or die; open(my $j, "<", $ARGV[1]) or die;
	my @t = <$t>; my @j = <$j>;
	die "text has ".@t." records, JSON ".@j."\n" if @t != @j;
	my @keys = qw(id type group ino path lblk pblk offset length
		      csum_offset csum_len csum covered note);
	my $json = JSON::PP->new->utf8;
	my ($paths, $nonutf8) = (0, 0);
	sub same { my ($a, $b) = @_; return $json->canonical->encode([$a]) eq
		$json->canonical->encode([$b]) }
	for my $k (0 .. $#t) {
		my $line = $t[$k]; chomp $line;
		my %r;
		$line =~ s/^(\S+)// or die "line $k: no type\n";
		$r{type} = $1;
		$r{path} = $1 if $line =~ s/ path=(.*?)(?= (?:lblk|pblk)=)//s;
		for (split / /, substr($line, 1)) {
			my ($key, $v) = split /=/, $_, 2;
			$r{$key} = $v;
		}
		my $o = eval { $json->decode($j[$k]) } or
			die "JSON line $k does not parse: $@$j[$k]";
		my @want = (@keys, exists $r{seq} ? "seq" : ());
		my $got = join " ", sort keys %$o;
		die "record $k: keys $got, wanted ".join(" ", sort @want)."\n"
			if $got ne join " ", sort @want;
		my $path;
		if (defined $r{path}) {
			my $p = $r{path};
			$paths++;
			if (utf8::decode($p)) { $path = $p } else { $nonutf8++ }
		}
		my @csum = exists $r{csum_offset} ?
			([hex $r{csum_offset}, 0 + $r{csum_len}]) : ();
		push @csum, [hex $r{csum_hi_offset}, 0 + $r{csum_hi_len}]
			if exists $r{csum_hi_offset};
		my %e = (id => 0 + $r{id}, type => $r{type},
			group => defined $r{group} ? 0 + $r{group} : undef,
			ino => defined $r{ino} ? 0 + $r{ino} : undef,
			path => $path,
			lblk => defined $r{lblk} ? 0 + $r{lblk} : undef,
			pblk => 0 + $r{pblk}, offset => hex $r{offset},
			length => 0 + $r{length},
			csum_offset => @csum ? $csum[0][0] : undef,
			csum_len => @csum ? $csum[0][1] : 0, csum => \@csum,
			covered => [map { my ($o, $l) = split /\+/;
					  [hex $o, 0 + $l] }
				    split /,/, $r{covered} // ""],
			note => $r{note});
		$e{seq} = 0 + $r{seq} if exists $r{seq};
		for my $key (@want) {
			same($o->{$key}, $e{$key}) or die "record $k ($r{type} id=$r{id}) $key: JSON ".
				$json->canonical->allow_nonref->encode($o->{$key}).", text says ".
				$json->canonical->allow_nonref->encode($e{$key})."\n";
		}
	}
	print "ok: ".@t." records agree ($paths with a path, $nonutf8 not UTF-8)\n";
' "$W/text" "$W/json" || fail "map --json and map disagree"
grep -q '"path":"/sub/quote\\"and\\\\backslash"' "$W/json" ||
	fail "no escaped quote and backslash in: $(grep quote "$W/json")"
