#!/usr/bin/env bash
# Count the TAP results a check run brought back and look for kernel splats.
#   tests/summarize.sh RESULTS_DIR CONSOLE_LOG
# Prints one line per suite, then "N passed, N failed[, N skipped]";
# exits 1 on any failure, a missing "complete" mark (hang or crash), or a
# splat in the kernel log.
set -u
results=$1 console=$2
passed=0 failed=0 skipped=0 problems=0

echo
echo "Summary:"
for tap in "$results"/*.tap; do
	[ -f "$tap" ] || continue
	name=${tap##*/}
	name=${name%.tap}
	p=$(grep -Ec '^ok [0-9]+' "$tap")
	s=$(grep -Ec '^ok [0-9]+.*# *SKIP' "$tap")
	f=$(grep -Ec '^not ok' "$tap")
	p=$((p - s))
	printf '  %-24s %3d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
	grep -E '^not ok' "$tap" | sed 's/^/      /'
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

if [ ! -f "$results/complete" ]; then
	echo "  the guest did not finish its run (hang, crash or timeout): see $console"
	problems=$((problems + 1))
fi

# A splat anywhere in the kernel's log fails the run, whatever the tests said.
splat='(BUG:|WARNING:|Oops|Kernel panic|KASAN:|UBSAN:|general protection fault|possible (circular|recursive) locking|INFO: task .* blocked|kmemleak: .* new suspected|RCU detected stall|list_(add|del) corruption)'
log=$results/dmesg.txt
[ -f "$log" ] || log=$console
if grep -Eq "$splat" "$log"; then
	echo "  kernel splat in $log:"
	grep -E "$splat" "$log" | head -n 5 | sed 's/^/      /'
	problems=$((problems + 1))
	failed=$((failed + 1))
fi

# kmemleak's report after its scans (debug kernel only).
if [ -s "$results/kmemleak.txt" ] && grep -q '^unreferenced object' "$results/kmemleak.txt"; then
	echo "  kmemleak reports $(grep -c '^unreferenced object' "$results/kmemleak.txt") suspected leaks: $results/kmemleak.txt"
	problems=$((problems + 1))
	failed=$((failed + 1))
fi

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ] && [ "$problems" = 0 ]
