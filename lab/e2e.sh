#!/usr/bin/env bash
# e2e.sh: the CI end-to-end test on the emulated ARM lab. Builds the images (cached in $FLEET_LAB_CACHE), boots
# qemu-arm64 and qemu-armv7 in a private run dir, runs `fleet boards check` and `fleet run` (no --modes: every
# mode the probe finds) against them, asserts on the stored results (lab/lab_test.go: soft, cpu, afalg and kcapi
# points on both boards; devcrypto a skip, except on qemu-arm64 with its cryptodev module and devcrypto engine,
# whose devcrypto points must be verified ok; kcapi:all beside cpu on qemu-arm64's virtio-crypto offload driver),
# proves the GOARM=5 agent on an ARM926 core, compares the agent with the shell path on both boards
# (lab/shellpath_test.go, a boot of its own), panics qemu-arm64 mid-sweep (lab/kernel_test.go), pins qemu-arm64's
# sweeps to its CPUs (lab/cpus_test.go: --cpus each, 0 and 1, and a cpuset that cuts the pinning), reads both
# boards' INA226 (lab/power_test.go: i2c-stub + ina2xx, modelled watts; energy with every point, µJ/B in compare),
# and stops the boards on every exit, also when `go test` is killed by its timeout.
#
#   lab/e2e.sh                 every test
#   lab/e2e.sh -run TestLabEndToEnd -v    extra arguments go to `go test`
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLEET_LAB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fleet-lab-e2e.XXXXXX")
export FLEET_LAB_DIR FLEET_LAB_E2E=1

cleanup() {
	local rc=$?
	"$root/lab/lab" down || echo "e2e: lab down failed; check $FLEET_LAB_DIR/*.pid" >&2
	if [[ $rc -ne 0 ]]; then
		# The serial consoles explain a board that did not come up.
		for log in "$FLEET_LAB_DIR"/*.log; do
			[[ -f $log ]] || continue
			echo "e2e: last lines of $log:" >&2
			tail -n 20 "$log" >&2
		done
	fi
	rm -rf "$FLEET_LAB_DIR"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$root"
start=$SECONDS
go test -count=1 -timeout 45m "$@" ./lab/
echo "e2e: passed in $((SECONDS - start))s" >&2
