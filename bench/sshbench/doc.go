// Package sshbench holds the benchmarks that need real OpenSSH boards (internal/sshlab): the first deployment of
// the agent versus scp (bench/README.md §c), fleet versus Ansible (§e), fleet's fixed cost per board against
// plain ssh, with and without a round-trip delay (§l), and mode ssh's table with the controller's ceiling per
// cipher (§k). They are tests that print their figures and run only when FLEET_BENCH=1, so `go test ./...` stays
// quick and free of timing:
//
//	FLEET_BENCH=1 go test -v -count=1 -run BenchPush ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchAnsible -timeout 20m ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchFixedCost -timeout 30m ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchSSHMode -timeout 40m ./bench/sshbench
package sshbench
