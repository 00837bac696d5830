#!/usr/bin/env bash
# usage: bench/sweep6.sh OUTDIR REPS [fleet args for board selection...]
# alternates a 1-point and a 6-point sweep (cpu aes-128-cbc, 1 s a point), REPS times each
out=$1; reps=$2; shift 2
F=${FLEET:-/tmp/h28fleet}
mkdir -p "$out"
printf 'rep kind load1 wall_s sweep_s verify_s sum_child_wall_s sum_openssl_s points\n'
for r in $(seq "$reps"); do
  for kind in 1 6; do
    if [ $kind = 1 ]; then sizes=1024; else sizes=16,64,256,1024,8192,16384; fi
    db=$out/r$r-$kind.db; rm -f "$db"
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    "$F" $GLOBAL run --db "$db" "$@" --modes cpu --algorithms aes-128-cbc --sizes $sizes --seconds 1 --repeat 1 --trace > "$out/r$r-$kind.log" 2>&1
    t1=$(date +%s.%N)
    sweep=$(grep -E 'trace \S+ +\+[0-9.]+s +[0-9.]+ms  sweep$' "$out/r$r-$kind.log" | awk '{print $4/1000}' | head -1)
    ver=$(grep -o 'outputs checked on [0-9]* paths.*; [0-9.]* s on the board' "$out/r$r-$kind.log" | grep -o '[0-9.]* s on' | cut -d' ' -f1 | head -1)
    read sw so n < <(sqlite3 -separator ' ' "$db" 'select round(sum(wall_s),3), round(sum(seconds),3), count(*) from measurements where failed=0')
    printf '%s %s %s %.3f %s %s %s %s %s\n' $r $kind $load $(echo "$t1 - $t0" | bc) "$sweep" "$ver" $sw $so $n
  done
done
