#!/bin/sh
# Brings the Debian source package PKG into DIR and unpacks it there, once:
# DIR/PKG/ holds the tree and DIR/PKG.version the version it came from.
#
# The version is the newest in the current release's suites (security and
# point updates included), fetched with apt-get source and unpacked with
# dpkg-source, so Debian's patches are applied.  When a version's files
# cannot all be downloaded from the mirror, its upstream tarball alone is
# taken if it can be, checked against the SHA-256 in apt's signed source
# index, and the next version is tried otherwise (newest first, the
# current release before the next one).  DIR/PKG.version then ends in
# " (upstream tarball)".
#
#   sh android/fetch-src.sh DIR PKG
set -eu
if [ $# -ne 2 ]; then
	echo "usage: fetch-src.sh DIR PKG" >&2
	exit 2
fi
dir=$1
pkg=$2
if [ -f "$dir/$pkg.version" ] && [ -d "$dir/$pkg" ]; then
	exit 0
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# Versions, current release first: madison prints "pkg | version | uri
# suite/component Sources".
current=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
versions=$(apt-cache madison "$pkg" 2>/dev/null | awk -F'|' -v cur="$current" '
	$3 ~ /Sources/ {
		gsub(/ /, "", $2)
		rank = ($3 ~ (" " cur "[-/]")) ? 0 : 1
		print rank " " $2
	}' | sort -u | while read -r rank v; do
		echo "$rank $v"
	done)
if [ -z "$versions" ]; then
	echo "fetch-src.sh: error: no source package '$pkg' known to apt (run make deps: it adds the deb-src entries)" >&2
	exit 1
fi
# Newest first within each rank.
ordered=""
for rank in 0 1; do
	vs=$(echo "$versions" | awk -v r=$rank '$1 == r { print $2 }')
	[ -n "$vs" ] || continue
	# dpkg --compare-versions is the only correct order for Debian
	# versions: a small insertion sort.
	sorted=""
	for v in $vs; do
		out=""
		placed=0
		for s in $sorted; do
			if [ $placed = 0 ] && dpkg --compare-versions "$v" gt "$s"; then
				out="$out $v"
				placed=1
			fi
			out="$out $s"
		done
		[ $placed = 1 ] || out="$out $v"
		sorted=$out
	done
	ordered="$ordered $sorted"
done

work=$(mktemp -d "$dir/.fetch-$pkg.XXXXXX")
trap 'rm -rf "$work"' EXIT

for v in $ordered; do
	rm -rf "${work:?}"/*
	if (cd "$work" && apt-get source --download-only -qq "$pkg=$v") \
		>"$work/log" 2>&1 && ls "$work"/*.dsc >/dev/null 2>&1; then
		if (cd "$work" && dpkg-source --no-check -x ./*.dsc tree) \
			>>"$work/log" 2>&1; then
			rm -rf "${dir:?}/$pkg"
			mv "$work/tree" "$dir/$pkg"
			echo "$v" >"$dir/$pkg.version"
			echo "fetch-src.sh: $pkg $v"
			exit 0
		fi
	fi
	# The upstream tarball alone, checked against the signed index:
	# --print-uris gives "'URI' NAME SIZE SHA256:HASH" for each file.
	orig=$(apt-get source --print-uris -qq "$pkg=$v" 2>/dev/null | awk '
		$2 ~ /\.orig\.tar\.[a-z0-9]+$/ && $2 !~ /orig-/ {
			gsub(/\047/, "", $1)
			print $1, $2, $4
			exit
		}')
	[ -n "$orig" ] || continue
	set -- $orig
	uri=$1
	name=$2
	sum=$3
	case "$sum" in
	SHA256:*) ;;
	*) continue ;;
	esac
	if /usr/lib/apt/apt-helper -qq download-file "$uri" "$work/$name" \
		"$sum" >>"$work/log" 2>&1; then
		mkdir -p "$work/tree"
		tar -xf "$work/$name" -C "$work/tree" --strip-components=1
		rm -rf "${dir:?}/$pkg"
		mv "$work/tree" "$dir/$pkg"
		echo "$v (upstream tarball)" >"$dir/$pkg.version"
		echo "fetch-src.sh: $pkg $v (upstream tarball; Debian's packaging could not be downloaded)"
		exit 0
	fi
done
echo "fetch-src.sh: error: cannot download any version of the source package '$pkg' (tried:$ordered)" >&2
tail -n 5 "$work/log" >&2
exit 1
