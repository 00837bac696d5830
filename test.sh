#!/usr/bin/env bash
# Every test of fleet: unit and fuzz tests of the parsers, the CLI end to end on this machine, real OpenSSH
# boards in network namespaces (root), headless Chromium for the HTML report and the `fleet serve` dashboard, and the emulated ARM lab
# (QEMU). What this machine lacks is skipped with a message saying what is missing; .ci/install-deps
# installs it all on Debian.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="/usr/local/go/bin:$PATH"
# The PostgreSQL tests (internal/pgtest) fail instead of skipping when the server binaries are missing.
export FLEET_REQUIRE_POSTGRES=1
passed=0 failed=0
stage() { # stage NAME CMD...: run one stage, count it, keep going so every failure is seen
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== FAILED: $name"; fi
}
# wait_idle: before a stage that judges this machine's own numbers, wait until the machine is idle by the test's
# own measure (background CPU over 5 s below half the default peak limit, 8 %/cores of the machine), for at most
# FLEET_IDLE_WAIT seconds (default 2400: a `go test ./...` beside CI ends within it), saying each minute what it
# waits for. If the machine stays busy the stage runs anyway and fails with the test's own message.
wait_idle() {
  local max=${FLEET_IDLE_WAIT:-2400} cores waited=0 b0 t0 b1 t1
  case $max in '' | *[!0-9]*) echo "test.sh: FLEET_IDLE_WAIT=$max is not a number of seconds" >&2; exit 2 ;; esac
  cores=$(getconf _NPROCESSORS_ONLN)
  cpu() { # busy and total jiffies of all CPUs: user nice system idle iowait irq softirq steal
    local _ u n s i w q sq st
    read -r _ u n s i w q sq st _ </proc/stat
    echo "$((u + n + s + q + sq + st)) $((u + n + s + i + w + q + sq + st))"
  }
  while :; do
    read -r b0 t0 <<<"$(cpu)"; sleep 5; read -r b1 t1 <<<"$(cpu)"
    if [ $((t1 - t0)) -gt 0 ] && [ $(((b1 - b0) * 100 * cores)) -lt $((8 * (t1 - t0))) ]; then
      [ "$waited" = 0 ] || echo "   idle after ${waited} s"
      return 0
    fi
    waited=$((waited + 5))
    if [ "$waited" -ge "$max" ]; then echo "   still busy after ${max} s (load $(cut -d' ' -f1-3 /proc/loadavg)): running anyway"; return 0; fi
    if [ $((waited % 60)) = 0 ] || [ "$waited" = 5 ]; then
      echo "   waiting for an idle machine: background CPU $(((b1 - b0) * 100 / (t1 - t0))) % (needs below $((8 / cores)) %), load $(cut -d' ' -f1-3 /proc/loadavg), ${waited} s of ${max} s"
    fi
  done
}
quiet_stage() { # quiet_stage NAME CMD...: a stage that needs an idle machine
  local name=$1; shift
  echo "== $name"
  wait_idle
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== FAILED: $name"; fi
}

# -tags long: the long end-to-end cases, which a plain `go test ./...` skips (e2e/long_test.go).
stage "go test -race -tags long ./..." go test -race -count=1 -tags long -timeout 60m ./...
# The change search gives the same answer whatever the number of goroutines: its determinism tests at 1, 2 and 8
# CPUs under the race detector (the suite above runs them at the machine's count only).
stage "change search at -cpu 1,2,8 under -race" go test -race -count=1 -cpu 1,2,8 -run '^(TestChangePointsDeterministic|TestChangesDeterministic)$' ./report/...
# Fuzzing by execution count, not duration: Go 1.26's coordinator can fail a target at a -fuzztime deadline on a
# loaded machine (golang/go#75804). FLEET_FUZZ_SCALE multiplies every count (0.1 for a quick pass).
scale=${FLEET_FUZZ_SCALE:-1}
# One target a line: NAME PACKAGE EXECUTIONS.
fuzz_targets=(
	"FuzzParseSpeed ./opensslspeed 40000"
	"FuzzDecodeText ./opensslspeed 20000"
	"FuzzDecodeLine ./protocol 100000"
	"FuzzJSONAgainstEncodingJSON ./protocol 40000"
	"FuzzPatternsAgainstRegexp ./opensslspeed 10000"
	"FuzzParse ./inventory 20000"
	"FuzzParseProcCrypto ./agent 20000"
	"FuzzParseCPUInfo ./agent 20000"
	"FuzzProcStatAndInterrupts ./agent 20000"
	"FuzzParseAlgorithmList ./agent 20000"
	"FuzzParseOpenSSLVersion ./agent 20000"
	"FuzzEvidenceParsers ./agent 20000"
	"FuzzParseProcModules ./agent 20000"
	"FuzzParseOpenSSLConf ./agent 20000"
	"FuzzSSHShellQuote ./fleet 3000"
	"FuzzBoardOutput ./fleet 20000"
	"FuzzParseFlags ./precision 20000"
	"FuzzParse ./precision 20000"
	"FuzzParse ./reftable 20000"
	"FuzzKCAPIDriverName ./protocol 20000"
	"FuzzKernelLog ./protocol 40000"
	"FuzzBootState ./fleet 20000"
	"FuzzVerifyReport ./verify 20000"
	"FuzzParseDgstOutput ./agent 20000"
	"FuzzParseVerifyAnswer ./agent 20000"
	"FuzzShellOutput ./fleet 20000"
	"FuzzShellReadBack ./fleet 20000"
	"FuzzShellLoops ./fleet 20000"
)
for target in "${fuzz_targets[@]}"; do
  set -- $target
  n=$(awk -v n="$3" -v s="$scale" 'BEGIN { v = int(n * s); if (v < 100) v = 100; print v }')
  stage "fuzz $1 (${n}x)" go test -run '^$' -fuzz "^$1\$" -fuzztime "${n}x" -fuzzminimizetime 100x -parallel 1 "$2"
done
# The agent's own tests built for two of the targets without hardware here, run under qemu-user: the code a
# riscv64 or a little-endian MIPS board runs (the openssl they start is the host's). Skipped: the tests that
# expect mode soft on the machine uname names (OpenSSL has no capability mask for riscv64 or MIPS, so soft is a
# skip there, as on such a board) and the ones that bound how fast a child starts or stops, which emulation
# makes several times slower; and the host-side check of which packages import the agent (go list under the
# target's GOARCH fails on modernc.org/sqlite, which has no MIPS port).
qemu_skip='TestSharedPackagesDoNotImportAgent|TestProbeFakeBoard|TestProbeBoundedEngine|TestSweepRealOpenSSL|TestSweepPrecisionFakeOpenSSL|TestSweepFakeOpenSSL|TestSweepCancelKillsChild|TestMainSweepStdinEOF'
for target in "riscv64 qemu-riscv64-static" "mipsle qemu-mipsel-static"; do
  set -- $target
  if command -v "$2" >/dev/null; then
    stage "agent tests on $1 under $2" env GOARCH="$1" go test -count=1 -short -timeout 30m -skip "$qemu_skip" -exec "$2" ./agent
  else
    echo "== skip agent tests on $1: $2 is not installed (apt-get install qemu-user-static)"
  fi
done
if [ "${FLEET_SKIP_LAB:-0}" = 1 ]; then
  echo "== skip emulated ARM lab: FLEET_SKIP_LAB=1"
elif ! command -v qemu-system-aarch64 >/dev/null || ! command -v qemu-system-arm >/dev/null; then
  echo "== skip emulated ARM lab: qemu-system-arm is not installed (.ci/install-deps installs it, as root)"
elif ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
  echo "== skip emulated ARM lab: apt has no arm64 architecture (.ci/install-deps, as root, adds arm64, armhf, armel)"
else
  stage "emulated ARM lab end to end" lab/e2e.sh
fi
# The stages that judge this machine's own numbers come last, each after waiting for an idle machine (wait_idle).
# Validity's quiet case needs an idle machine, which the parallel suite above is not: run it alone.
quiet_stage "validity on a quiet machine" env FLEET_E2E_REQUIRE_QUIET=1 go test -count=1 -tags long -run '^TestValidityLocalEndToEnd$' ./e2e
# regress --confirm's "transient" compares a re-measure with its baseline: both must see the same (idle) machine.
quiet_stage "regress --confirm on a quiet machine" env FLEET_E2E_ALONE=1 go test -count=1 -tags long -run '^TestConfirmTransient$' ./e2e
# The shell path's numbers against the agent's, both boards on this host at once: judged only when nothing else runs.
quiet_stage "shell path parity on a quiet machine" env FLEET_E2E_ALONE=1 go test -count=1 -tags long -run '^(TestShellPathParity|TestShellPathBusyBox)$' ./e2e
# A lab's first week on the local board: its nights are compared with each other, so nothing else may run.
quiet_stage "nightly history on a quiet machine" env FLEET_E2E_ALONE=1 go test -count=1 -run '^TestNightlyHistoryEndToEnd$' ./cmd/fleet
# The three nights after an AES-NI step, each judged regressed against the nights before it: the same machine.
quiet_stage "nightly step on a quiet machine" env FLEET_E2E_ALONE=1 go test -count=1 -run '^TestNightlyStepEndToEnd$' ./cmd/fleet
# Every program and script under bench/ at its smallest (a few boards, one round, one-second points), so that a
# benchmark nobody runs cannot rot: each must complete and print its ratio, whose value is not judged here. One Go
# test per program (bench/*/smoke_test.go, the scripts' in bench/internal/smoke); sshbench's need the sshd lab and
# skip without it. Measured: 77 s and 87 s at load 11–18 without sshd, warm build cache (a cold one adds one
# build of fleet and the agent).
stage "bench smoke" env FLEET_BENCH_SMOKE=1 go test -count=1 -timeout 30m ./bench/...
echo "test.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
