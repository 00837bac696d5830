// Package fleet is the controller: it reaches boards, puts the agent on them, and runs sweeps across boards
// with bounded concurrency, timeouts and cancellation. It hands what boards produce to a Sink and never renders
// output or writes SQL (store implements Sink, Leaser and RunRecord; fleet does not import store).
//
// A run: RunRecorded is a run's whole life in the store (begin the record, lease each board through it, Run,
// the status with Ctrl-C's "interrupted", finish on a context that outlives the cancel), as fleet run and
// regress --confirm make one (recorded.go; RecordedRun.DropRefused takes out, after the run's end, the boards
// refused for an algorithm their openssl lacks). Run measures boards in parallel (run.go), each one a boardRun
// (boardrun.go): one board end to end under its lease (lease.go), its phases methods in files of their own:
// connect (boardrun_connect.go), plan (boardrun_plan.go: the sweep, then the facts that settle it), measure
// through the agent, through the board's shell or mode ssh (boardrun_measure.go), resume after a reboot
// (boardrun_resume.go) and finish (boardrun_finish.go: the outcome, the kernel's health, the board's end
// stored). Measuring with the agent is the deploy check (deploy.go, deploycheck.go: the agent's sha256 checked
// on the board, pushed only when missing), then `agent measure`, the probe and the sweep in one session
// (measure.go, sweep.go), with the plan's precision target (precision.go) and each board's validity verdict
// (validity.go). Progress events (progress.go) and phase timings (trace.go) are for people. A board that fails
// never stops the others; its BoardOutcome carries the cause, and ModeReport (modes.go) says what became of
// every mode; failures.go says which points failed and why, in one line. facts_cap.go caps every fact string as
// it is received.
//
// Boards going wrong: kernel.go and kernel_tally.go judge the kernel's log lines during a sweep (with the
// patterns of protocol/kernel_patterns.go, which the agent matches every line with too); reboot.go tells a board
// that died under it (and waits for it to answer again with ReconnectWait); verify.go fails a board
// whose measured path gave a wrong output.
//
// Transports: package transport is the interface (Transport runs commands and puts files on a board), its
// sentinel errors and the shell quoting every board command line uses; transport.go aliases its names here.
// LocalTransport (transport_local.go) is the built-in board "local"; package transport/ssh reaches the others
// (RunOptions.Dial is its Dial in fleet run), and mode ssh dials its one-cipher connections (DialCipher).
//
// Mode ssh (mode_ssh*.go) is a measurement, not the transport: the controller times uploads and downloads of
// each cipher through the board's SSH server into and out of the agent (mode_ssh_transfer.go), one board at a
// time, with the controller's own CPU (mode_ssh_cpu_*.go) to flag host-bound points.
//
// The agent: Agents (agents.go) hands out a binary per arch, given with --agent or built once per arch from the
// embedded source (build.go, build_source.go); arch.go and arch_board.go map a board's uname -m, kernel, byte
// order and FPU to a Go target, and elf.go checks a binary's ELF machine against it.
//
// The shell path measures boards the agent cannot run on (no Go port, a kernel below Go's minimum, or
// agent = "shell" in boards.toml) through their own POSIX shell and openssl, with the agent package's sweep logic
// run here: arch_board.go decides (from the deploy check's uname -m, uname -r, ELF byte order and FPU),
// shellpath.go wires it into a run and `boards check`, shellsession.go is the one `sh -s` session (agent.Remote),
// shellscript.go the POSIX sh it is sent, shellframe.go and shelltimes.go the parsers of what it prints back,
// shellprobe.go the probe, shellfiles.go the verification's files on the board (base64 through the board's
// openssl), shellmirror.go the controller's mirror of the board's files (swept when its controller is gone).
// warm.go runs a warm board's deploy check, probe and sweep in one session.
//
// Without measuring: Check is `fleet boards check` (check.go). Captures saved to files and vendors' published
// tables touch no board: package capture reads them (fleet import, fleet import --reference).
package fleet
