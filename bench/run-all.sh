#!/bin/sh
# Runs every benchmark of bench/README.md (and, with FUZZ=1, the 1 M-execution fuzz runs of its Fuzzing section),
# one after the other: never two at once, they would skew each other. Each prints its own ratios; the outputs are
# kept in $BENCH_OUT (default: a new directory under /tmp). Needs root for the sshd boards in network namespaces,
# openssh-server, and ansible (apt-get install -y ansible). Takes about 40 minutes, plus the fuzzing.
#
#   bench/run-all.sh                 everything but fuzzing
#   ONLY="accuracy push" bench/run-all.sh
#   FUZZ=1 ONLY=fuzz bench/run-all.sh
#   FLEET_BENCH_PG='postgres://fleet@127.0.0.1/fleetbench' ONLY=store bench/run-all.sh   # SQLite and PostgreSQL
set -eu
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-$(mktemp -d /tmp/fleet-bench-XXXXXX)}
mkdir -p "$out"
only=${ONLY:-"accuracy overhead push ansible fixedcost store import sshmode"}
[ "${FUZZ:-0}" = 1 ] && only="$only fuzz"
echo "results in $out"

want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
run() { # run NAME COMMAND...: prints and keeps the output
	name=$1; shift
	echo "== $name: $*" | tee "$out/$name.txt"
	"$@" 2>&1 | tee -a "$out/$name.txt"
}

go build -o "$out/fleet" ./cmd/fleet

if want accuracy; then
	run accuracy-local go run ./bench/accuracy -fleet "$out/fleet" -board local -seconds 2 -rounds 5
	if [ -f lab/run/boards.toml ]; then
		for b in $(sed -n 's/^\[boards\.\(.*\)\]$/\1/p' lab/run/boards.toml); do
			run "accuracy-$b" go run ./bench/accuracy -fleet "$out/fleet" -inventory lab/run/boards.toml -board "$b" -seconds 3 -rounds 3
		done
	else
		echo "accuracy on an emulated ARM board: no lab/run/boards.toml (start it with lab/lab up)"
	fi
fi
want overhead && run overhead go run ./bench/overhead -fleet "$out/fleet" -boards 1,10,50,200,500 -sweep 36s -rounds 3
want push && run push env FLEET_BENCH=1 go test -v -count=1 -run BenchPush ./bench/sshbench
want ansible && run ansible env FLEET_BENCH=1 go test -v -count=1 -timeout 30m -run BenchAnsible ./bench/sshbench
want fixedcost && run fixedcost env FLEET_BENCH=1 go test -v -count=1 -timeout 30m -run BenchFixedCost ./bench/sshbench
want sshmode && run sshmode env FLEET_BENCH=1 go test -v -count=1 -timeout 40m -run BenchSSHMode ./bench/sshbench
if want store; then
	run store go run ./bench/store -points 1000000
	# FLEET_BENCH_PG: the URL of an empty PostgreSQL database, for the same figures beside (bench/README.md §j).
	[ -n "${FLEET_BENCH_PG:-}" ] && run store-postgres go run ./bench/store -points 1000000 -db "$FLEET_BENCH_PG"
	run store-gobench go test -run '^$' -bench . -benchmem ./store
fi
want import && run import go run ./bench/import -fleet "$out/fleet" -size 200MB
if want validity; then
	run validity-evidence-cost go test -run '^$' -bench Evidence -benchmem -count 3 ./agent
	run false-alarms-tolerant bench/validity/false-alarms.sh "$out/fleet" 20 tolerant
	run false-alarms-default bench/validity/false-alarms.sh "$out/fleet" 20 default
fi
if want fuzz; then
	# One target at a time, one worker: the machine is shared.
	run fuzz-parsespeed go test -run '^$' -fuzz '^FuzzParseSpeed$' -fuzztime 1000000x -fuzzminimizetime 2s -parallel 1 ./opensslspeed
	run fuzz-decodeline go test -run '^$' -fuzz '^FuzzDecodeLine$' -fuzztime 1000000x -fuzzminimizetime 2s -parallel 1 ./protocol
	run fuzz-inventory go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 1000000x -fuzzminimizetime 2s -parallel 1 ./inventory
fi
echo "results in $out"
