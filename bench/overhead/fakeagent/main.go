// Command fakeagent plays fleet-agent on bench/overhead's simulated boards. The controller pushes it in place of
// the real agent (padded to the real agent's size, so the push costs what a real one does), the board's /bin/sh
// runs the controller's deploy check, which verifies it and execs it, and it answers like the agent without
// measuring anything: `measure` and `probe` print hello and fixed facts, `sweep` and `measure` then read the plan
// and print its points spread evenly over the board's sweep duration, on a fixed schedule, so a sweep lasts that
// long however slowly the controller reads. `sha256 FILE` prints the file's checksum as the agent does, for a
// board without sha256sum.
//
// The board says who it is through the environment its SSH server gives the shell, as a real board's sshd does:
// FAKEBOARD_NAME (the board's name in its facts) and FAKEBOARD_SWEEP (a Go duration, e.g. 36s).
package main

import (
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) }
