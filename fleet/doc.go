// Package fleet is the controller: transports (local and ssh), the agent build cache and cross-compilation,
// deployment, and orchestration of sweeps across boards with bounded concurrency, timeouts and cancellation.
// It hands what boards produce to a Sink and never renders output or writes SQL. ReadReference reads vendors'
// published tables (fleet import --reference) through package reftable, for the store to keep as a reference run.
//
// The shell path measures boards the agent cannot run on (no Go port, a kernel below Go's minimum, or
// agent = "shell" in boards.toml) through their own POSIX shell and openssl, with the agent package's sweep logic
// run here: arch_board.go decides (from the deploy check's uname -m, uname -r, ELF byte order and FPU),
// shellpath.go wires it into a run and `boards check`, shellsession.go is the one `sh -s` session (agent.Remote),
// shellscript.go the POSIX sh it is sent, shellframe.go and shelltimes.go the parsers of what it prints back,
// shellprobe.go the probe, shellfiles.go the verification's files on the board (base64 through the board's
// openssl).
package fleet
