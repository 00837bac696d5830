#!/bin/sh
# False alarms of fleet regress over N nightly runs of the local board where nothing changes: after each nightly
# from the second on, `regress --baseline nightly` is run without and then with --confirm, and its exit code
# counted. Every alarm (exit 1) is false: the code, the machine and OpenSSL stay the same.
#
#   bench/validity/false-alarms.sh FLEET N LIMITS   # LIMITS: default, or tolerant (background limits 100 %)
#
# Prints one line per night and a summary; results/2026-12-01/false-alarms-*.txt keeps what it printed.
set -u
fleet=${1:?fleet binary}
nights=${2:-20}
limits=${3:-default}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$limits" = tolerant ]; then
	printf '[boards.local]\nvalidity = { background_peak_pct = 100, background_avg_pct = 100 }\n' >"$dir/boards.toml"
else
	: >"$dir/boards.toml"
fi
sweep="--seconds 1 --algorithms aes-128-cbc --sizes 1024,16384 --modes soft,cpu"
plain="" confirm=""
echo "limits $limits, $nights nights, sweep: $sweep; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $(seq 1 "$nights"); do
	# shellcheck disable=SC2086
	"$fleet" run --inventory "$dir/boards.toml" --db "$dir/fleet.db" --boards local --label nightly $sweep \
		>/dev/null 2>"$dir/run.err" || { echo "night $n: run exit $?"; cat "$dir/run.err"; continue; }
	verdict=$(grep -o 'local *\(suspect\|invalid\):.*' "$dir/run.err" | cut -c1-90)
	[ "$n" -eq 1 ] && { echo "night 1: baseline ${verdict:-ok}"; continue; }
	"$fleet" regress --inventory "$dir/boards.toml" --db "$dir/fleet.db" --baseline nightly --run nightly \
		>"$dir/plain.out" 2>"$dir/plain.err"
	a=$?
	"$fleet" regress --inventory "$dir/boards.toml" --db "$dir/fleet.db" --baseline nightly --run nightly --confirm \
		>"$dir/confirm.out" 2>"$dir/confirm.err"
	b=$?
	plain="$plain $a" confirm="$confirm $b"
	echo "night $n: regress exit $a, with --confirm exit $b; $(head -1 "$dir/plain.out" | sed 's/.*: //') → $(head -1 "$dir/confirm.out" | sed 's/.*: //')${verdict:+; run $verdict}"
done
count() { echo "$1" | tr ' ' '\n' | grep -c "^$2\$"; }
for name in plain confirm; do
	eval "codes=\$$name"
	echo "$name: $(echo $codes | wc -w) judged nights: exit 0 ×$(count "$codes" 0), 1 ×$(count "$codes" 1), 2 ×$(count "$codes" 2), 4 ×$(count "$codes" 4)"
done
