#!/bin/sh
# pgcpu.sh [DATADIR]: CPU seconds (user+sys) used so far by the PostgreSQL cluster of DATADIR (default Debian's
# 15/main): the postmaster, its live children and the children it has reaped (a client's backend is reaped when
# the client disconnects). Read it before and after a run of bench/store; the difference is the server's CPU.
dir=${1:-/var/lib/postgresql/15/main}
pm=$(head -1 "$dir/postmaster.pid") || exit 1
tck=$(getconf CLK_TCK)
{ awk '{print $14+$15+$16+$17}' /proc/$pm/stat
  for c in $(cat /proc/$pm/task/*/children); do awk '{print $14+$15}' /proc/$c/stat 2>/dev/null; done
} | awk -v t=$tck '{s+=$1} END {printf "%.2f\n", s/t}'
