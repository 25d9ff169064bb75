#!/bin/sh
# Runs every test program given and prints one closing line, "N passed,
# N failed", counting test cases: cmocka binaries report their own counts,
# end-to-end scripts end with a "name: N passed, N failed" line of their
# own (", N skipped" may follow: skips are counted and shown), and any
# other program counts as one case that passes when it exits 0.
pass=0
fail=0
skip=0
failed=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	start=$(date +%s)
	case "$t" in
	*.sh) bash "$t" >"$out" 2>&1 ;;
	*) "$t" >"$out" 2>&1 ;;
	esac
	rc=$?
	cat "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$out" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s)[.,].*/\1/p' "$out" | tail -n 1)
	skip=$((skip + ${s:-0}))
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$out" | tail -n 1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		line=$(sed -n 's/^[A-Za-z0-9_-]*:* *\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed\(, \([0-9][0-9]*\) skipped\)\{0,1\}\(, [0-9][0-9]* [a-z][a-z]*\)*$/\1 \2 \4/p' "$out" | tail -n 1)
		if [ -n "$line" ]; then
			p=$(echo "$line" | cut -d' ' -f1)
			f=$(echo "$line" | cut -d' ' -f2)
			s=$(echo "$line" | cut -d' ' -f3)
			skip=$((skip + ${s:-0}))
		fi
	fi
	if [ -n "$p" ] || [ -n "$f" ]; then
		pass=$((pass + ${p:-0}))
		fail=$((fail + ${f:-0}))
		# A crash after the summary, or a summary with no failures but a
		# non-zero exit, still counts as a failure.
		if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
			fail=$((fail + 1))
		fi
	elif [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
	[ "$rc" -eq 0 ] || failed="$failed $t"
	echo "run.sh: $t took $(($(date +%s) - start)) s"
done
[ -z "$failed" ] || echo "failing:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ -z "$failed" ]
