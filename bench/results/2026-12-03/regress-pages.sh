#!/bin/sh
# The dashboard's pages before (083baf2) and after the regress page's cuts, same data, 3 interleaved rounds,
# the order alternating, SQLite then PostgreSQL; bench/README §j3c.
# Binaries: /tmp/h28p/serve-old.test from `git archive 083baf2` with this branch's serve/bench_test.go copied in
# (it only adds FLEET_SERVE_BENCH_OUT), `go test -c ./serve`; serve-new.test the same from this branch.
# The stores: go run ./bench/store -points 1000000 -db /tmp/h28p/fleet.db -queries 1 (and -db the PostgreSQL
# URL: PostgreSQL 15 from Debian, initdb and pg_ctl by hand under /tmp/h28p/pg, loopback TCP, fsync off).
#   = FLEET_SERVE_BENCH_DB=DB go test -run '^$' -bench Pages -benchtime 10x ./serve
PG=${PG:-postgres://fleet@127.0.0.1:55433/fleetbench?sslmode=disable}
B=${B:-/tmp/h28p}
for db in $B/fleet.db "$PG"; do
  for round in 1 2 3; do
    order="old new"; [ $round = 2 ] && order="new old"
    for v in $order; do
      echo "== $(case $db in postgres*) echo postgres;; *) echo sqlite;; esac) round $round $v $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
      FLEET_SERVE_BENCH_DB=$db $B/serve-$v.test -test.run '^$' -test.bench Pages -test.benchtime 10x | grep -v "^goos\|^goarch\|^pkg\|^cpu:"
    done
  done
done
echo "== end $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
