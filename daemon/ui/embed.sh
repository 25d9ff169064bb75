#!/bin/sh
# embed.sh OUT GZDIR [URL FILE TYPE]...
#
# Writes OUT, the C table of the dashboard's files that daemon/ui.c
# serves: for each URL path its media type, the bytes of FILE, their
# gzip (made in GZDIR, -n so that no name or time makes two builds
# differ) and an ETag of each, the first 20 hex digits of its SHA-256
# (the gzip's with "-gz": another representation, another tag).  The
# arrays end with NULL (or 0), as the table of the migrations does.
set -eu

out=$1
gzdir=$2
shift 2
mkdir -p "$gzdir"
rm -f "$gzdir"/*.tab

# row TABLE TEXT: one line of a table, kept until the end.
row() {
	printf '%s\n' "$2" >>"$gzdir/$1.tab"
}

sha() {
	sha256sum <"$1" | cut -c1-20
}

{
	echo '/* Generated from daemon/ui/ by the Makefile: do not edit. */'
	echo '#include <stddef.h>'
	i=0
	while [ $# -ge 3 ]; do
		gz=$gzdir/$i.gz
		gzip -9nc "$2" >"$gz"
		for v in d z; do
			[ $v = d ] && f=$2 || f=$gz
			echo "static const unsigned char $v$i[] = {"
			od -An -v -tx1 "$f" | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1, /g'
			echo '0x00 };'
		done
		row path "\"$1\","
		row type "\"$3\","
		row data "d$i,"
		row gz "z$i,"
		row size "$(wc -c <"$2"),"
		row gz_size "$(wc -c <"$gz"),"
		row etag "\"\\\"$(sha "$2")\\\"\","
		row gz_etag "\"\\\"$(sha "$gz")-gz\\\"\","
		i=$((i + 1))
		shift 3
	done
	for t in path:'const char *const' type:'const char *const' \
		data:'const unsigned char *const' gz:'const unsigned char *const' \
		size:'const size_t' gz_size:'const size_t' \
		etag:'const char *const' gz_etag:'const char *const'; do
		name=${t%%:*}
		echo "${t#*:} ui_asset_$name[] = {"
		cat "$gzdir/$name.tab"
		case $name in
		*size) echo '0 };' ;;
		*) echo 'NULL };' ;;
		esac
	done
} >"$out.tmp"
rm -f "$gzdir"/*.tab
mv "$out.tmp" "$out"
