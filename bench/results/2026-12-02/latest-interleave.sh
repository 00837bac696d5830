#!/bin/sh
# Binaries: /tmp/h28/bench-old and serve-old.test from `git archive 5a215bf` with this branch's
# bench/store/main.go copied in (go build ./bench/store; go test -c ./serve); bench-new and serve-new.test
# from this branch. The stores: go run ./bench/store -points 1000000 -db /tmp/h28/fleet.db (and -db the
# PostgreSQL URL) at 5a215bf.
# Interleaved before (5a215bf's store, bench/store of this branch) and after, same data: SQLite fleet.db
# (schema 9) / fleet10.db (its copy, migrated to 10); PostgreSQL fleetbench / fleetbench10 (CREATE DATABASE
# ... TEMPLATE fleetbench, migrated). Order alternates each round.
PG=${PG:-postgres://fleet@127.0.0.1:55432}
for round in 1 2 3; do
  if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for be in sqlite postgres; do
    for v in $order; do
      if [ $be = sqlite ]; then
        db=/tmp/h28/fleet.db; [ $v = new ] && db=/tmp/h28/fleet10.db
      else
        db="$PG/fleetbench?sslmode=disable"; [ $v = new ] && db="$PG/fleetbench10?sslmode=disable"
      fi
      echo "== round $round $be $v $(date -u +%H:%M:%S) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
      /tmp/h28/bench-$v -points 0 -queries 20 -db "$db" | grep query:
    done
  done
done
