#!/usr/bin/env bash
# Every test of fleet: unit and fuzz tests of the parsers, the CLI end to end on this machine, real OpenSSH
# boards in network namespaces (root), headless Chromium for the HTML report, and the emulated ARM lab
# (QEMU). What this machine lacks is skipped with a message saying what is missing; .ci/install-deps
# installs it all on Debian.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="/usr/local/go/bin:$PATH"
passed=0 failed=0
stage() { # stage NAME CMD...: run one stage, count it, keep going so every failure is seen
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== FAILED: $name"; fi
}

stage "go test -race ./..." go test -race -count=1 -timeout 60m ./...
for target in "FuzzParseSpeed ./agent" "FuzzDecodeLine ./agent" "FuzzParse ./inventory"; do
  set -- $target
  stage "fuzz $1 (${FLEET_FUZZTIME:-15s})" go test -run '^$' -fuzz "^$1\$" -fuzztime "${FLEET_FUZZTIME:-15s}" -fuzzminimizetime 2s -parallel 1 "$2"
done
if [ "${FLEET_SKIP_LAB:-0}" = 1 ]; then
  echo "== skip emulated ARM lab: FLEET_SKIP_LAB=1"
elif ! command -v qemu-system-aarch64 >/dev/null || ! command -v qemu-system-arm >/dev/null; then
  echo "== skip emulated ARM lab: qemu-system-arm is not installed (sudo .ci/install-deps)"
elif ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "== skip emulated ARM lab: apt has no arm64 architecture (sudo .ci/install-deps adds arm64, armhf, armel)"
else
  stage "emulated ARM lab end to end" lab/e2e.sh
fi
echo "test.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
