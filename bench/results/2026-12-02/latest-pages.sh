#!/bin/sh
# Binaries: /tmp/h28/bench-old and serve-old.test from `git archive 5a215bf` with this branch's
# bench/store/main.go copied in (go build ./bench/store; go test -c ./serve); bench-new and serve-new.test
# from this branch. The stores: go run ./bench/store -points 1000000 -db /tmp/h28/fleet.db (and -db the
# PostgreSQL URL) at 5a215bf.
# dashboard pages, before (5a215bf) and after, same data, interleaved; FLEET_SERVE_BENCH_DB as in bench/README §h
PG=${PG:-postgres://fleet@127.0.0.1:55432}
for v in old new; do
  echo "== sqlite $v $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  db=/tmp/h28/fleet.db; [ $v = new ] && db=/tmp/h28/fleet10.db
  FLEET_SERVE_BENCH_DB=$db /tmp/h28/serve-$v.test -test.run '^$' -test.bench Pages -test.benchtime 10x | grep -v "^goos\|^goarch\|^pkg\|^cpu:"
done
for v in new old; do
  echo "== postgres $v $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  db="$PG/fleetbench?sslmode=disable"; [ $v = new ] && db="$PG/fleetbench10?sslmode=disable"
  FLEET_SERVE_BENCH_DB=$db /tmp/h28/serve-$v.test -test.run '^$' -test.bench Pages -test.benchtime 10x | grep -v "^goos\|^goarch\|^pkg\|^cpu:"
done
echo "== end $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
