#!/bin/bash
# sshmode-qemu.sh: mode ssh on the emulated ARM lab, for bench/README.md section k. Boots qemu-arm64 and
# qemu-armv7 (lab/lab build first), measures the raw ciphers (cpu) and then mode ssh at 16 MiB each way, and
# prints `fleet compare --modes ssh`; the boards are stopped on every exit. Root, as lab/lab needs.
#
#   bench/sshmode-qemu.sh > out.txt 2>&1
set -eu
cd "$(dirname "$0")/.."
export FLEET_LAB_DIR=$(mktemp -d /tmp/fleet-lab-ssh.XXXXXX) FLEET_LAB_BOARDS=qemu-arm64,qemu-armv7
trap 'lab/lab down; rm -rf "$FLEET_LAB_DIR"' EXIT
go build -o "$FLEET_LAB_DIR/fleet" ./cmd/fleet
lab/lab up
F="$FLEET_LAB_DIR/fleet --inventory $FLEET_LAB_DIR/boards.toml --db $FLEET_LAB_DIR/lab.db"
uptime
echo "\$ fleet run --boards qemu-arm64,qemu-armv7 --modes cpu --algorithms aes-128-ctr,aes-256-ctr,chacha20-poly1305 --sizes 16384 --seconds 2"
$F run --boards qemu-arm64,qemu-armv7 --modes cpu --algorithms aes-128-ctr,aes-256-ctr,chacha20-poly1305 --sizes 16384 --seconds 2 2>&1 | tail -30
echo "\$ fleet run --boards qemu-arm64,qemu-armv7 --modes ssh --sizes 16777216"
$F run --boards qemu-arm64,qemu-armv7 --modes ssh --sizes 16777216 2>&1 | grep -v "^[0-9][0-9]:"
uptime
echo "\$ fleet compare --modes ssh"
$F compare --modes ssh
