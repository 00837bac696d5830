// Package sshbench holds the benchmarks that need real OpenSSH boards (internal/sshlab): the first deployment of
// the agent versus scp (issue 8, item 1c), fleet versus Ansible (item 1e), fleet's fixed cost per board
// against plain ssh, with and without a round-trip delay (issue 17), and mode ssh's table with the controller's
// ceiling per cipher (issue 15). They are tests that print their
// figures and run only when FLEET_BENCH=1, so `go test ./...` stays quick and free of timing:
//
//	FLEET_BENCH=1 go test -v -count=1 -run BenchPush ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchAnsible -timeout 20m ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchFixedCost -timeout 30m ./bench/sshbench
//	FLEET_BENCH=1 go test -v -count=1 -run BenchSSHMode -timeout 40m ./bench/sshbench
package sshbench
