package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// The shell path: a board the Go agent cannot run on (no Go port, a kernel older than Go's minimum) is measured
// by the controller through the board's own POSIX shell and openssl (package fleet). The sweep's logic is this
// package's all the same, run on the controller: the interleaving, the repeats and --precision, the openssl argv,
// the parse, the engine-fallback check, the driver named from /proc/crypto, the validity evidence. Only the
// commands and the readings of /proc and /sys happen on the board, through Remote, so that the two paths cannot
// drift apart: the same plan gives the same points, whichever measured it.

// Remote is a board the sweep drives from elsewhere. A point's command goes through Measure (from
// sweepState.measureChild, on both paths); the verification's files and commands through Dir, WriteFile and Exec
// (verify_host.go), so that the same verification code checks the board's own openssl.
type Remote interface {
	// Measure runs argv with env added to the environment on the board (never through a shell line), with the
	// board's state read just before and just after it.
	Measure(ctx context.Context, argv, env []string) RemoteRun
	// Dir is a private directory on the board for the sweep's files, which the board removes when the session
	// ends; "" when there is none.
	Dir() string
	// WriteFile writes data to path, a file under Dir, on the board.
	WriteFile(ctx context.Context, path string, data []byte) error
	// Exec removes e.Remove, runs e.Argv (when not empty) without the samples of Measure, and reads back the
	// files of e.Read that exist after it, by path.
	Exec(ctx context.Context, e RemoteExec) (RemoteRun, map[string][]byte)
}

// LoopsRemote is a Remote that runs the verification's concurrency check on the board itself: Workers copies of
// one command in parallel loops, each in its own process on the board, which a Remote of one command at a time
// (Exec) cannot.
type LoopsRemote interface {
	Remote
	Loops(ctx context.Context, l RemoteLoops) RemoteLoopsRun
}

// RemoteLoops is the concurrency check on a remote board: Workers loops of Argv at once for Seconds.
type RemoteLoops struct {
	Argv, Env []string
	// Out is the file under Dir that Argv writes its output to (the word of Argv equal to it is replaced by each
	// worker's own file), hashed on the board after every run with its openssl's dgst -sha256 -r, so that only
	// digests cross the session; "" when Argv prints its output (openssl dgst) on stdout, kept line by line.
	Out     string
	Workers int
	Seconds float64 // how long the loops start new runs; the board counts whole seconds (rounded up)
	// TimeoutS is how long after that a run still in flight is a hang: the board kills it and says so.
	TimeoutS float64
	MaxRuns  int // runs per worker at most (what the session's output may hold); 0: no bound
}

// RemoteLoopsRun is what the workers of a concurrency check did.
type RemoteLoopsRun struct {
	Workers  []RemoteWorker
	Seconds  float64 // how long the loops ran on the board
	TimedOut bool    // the check did not end within Seconds+TimeoutS
	Err      error   // it could not be run (the session ended)
}

// RemoteWorker is one worker of a concurrency check.
type RemoteWorker struct {
	// Outputs is one line per run that succeeded: the command's stdout, or the dgst -sha256 -r line of its Out.
	Outputs []string
	Exit    int    // the exit status of the run that ended the loop early; 0 when none did
	Hash    int    // the exit status of the board's hash of Out when that failed; 0 otherwise
	Stderr  string // that run's stderr
	Hung    bool   // a run was still in flight at the timeout (and was killed)
}

// RemoteExec is one command of the verification on a remote board.
type RemoteExec struct {
	Argv, Env []string
	Stdin     []byte   // the command's standard input; nil: /dev/null
	Remove    []string // files under Dir removed first
	Read      []string // files under Dir read back after the command
	// TimeoutS > 0: the board kills the command after that many seconds (rounded up) and the request still
	// answers, with the kill's exit; 0: the board's kill comes a margin before the context's deadline.
	TimeoutS float64
}

// RemoteRun is one command run on a remote board.
type RemoteRun struct {
	Stdout, Stderr string
	Exit           int // -1 when it did not run to an exit
	WallS          float64
	UserS, SysS    float64 // of the command and its descendants (the shell's `times`, children part)
	Err            error   // the command could not be run (the session ended, a timeout)
	Before, After  RemoteSample
}

// RemoteSample is the board's state at one moment. Root is a local directory mirroring the files of the board's
// /proc and /sys that the evidence reads (proc/stat, proc/loadavg, sys/devices/system/cpu/cpufreq/policy*/…);
// OwnS is the CPU seconds the session's shell and every child it waited for have used by then, which is not
// background load; OwnOK is false when unknown.
type RemoteSample struct {
	Root  string
	OwnS  float64
	OwnOK bool
}

// RemoteProbe is what the controller read on the board for its facts.
type RemoteProbe struct {
	// Root mirrors the board's /proc/cpuinfo, /proc/crypto, /proc/interrupts, /proc/meminfo, /etc/os-release (or
	// /usr/lib/os-release) and /sys/devices/system/cpu/cpu0/cpufreq/*: what the agent's probe reads.
	Root                                         string
	Sysname, Hostname, Release, Version, Machine string // uname -s, -n, -r, -v, -m
	DevCrypto                                    bool   // /dev/crypto exists
	OpenSSLPath                                  string // where the board's shell found openssl; "" when not
	OpenSSLMissing                               string // why not, e.g. "not found in $PATH"
	OpenSSLVersion                               RemoteRun
	Engines                                      map[string]RemoteRun // openssl engine -t NAME
	// AlgorithmLists are the runs of ListAlgorithmsArgv, made when CheckedAlgorithms(plan) names any.
	AlgorithmLists []RemoteRun
	Before, After  RemoteSample // around the probe: the board's state before the sweep
	// Agent names the path ("shell") and AgentReason why the Go agent does not run there; kcapi and the other
	// modes that need the agent are unavailable with that reason.
	Agent, AgentReason string
}

// ProbeEngines are the engines a probe for plan tests with `openssl engine -t`: the standard ones and those the
// plan's engine:NAME modes name.
func ProbeEngines(plan protocol.Plan) []string {
	return append(append([]string{}, standardEngines...), probeOptionsForPlan(plan).Engines...)
}

// RemoteFacts turns what the controller read on a board into the board's facts, with the agent's own parsers:
// the files both probes read through readBoardFiles and readCryptoProcs, the modes through probeModes; only what
// the agent's probe runs (uname, openssl, the AF_ALG socket) arrives here as the board's answers.
func RemoteFacts(p RemoteProbe, plan protocol.Plan) protocol.Facts {
	f, _ := remoteFacts(p, plan)
	return f
}

func remoteFacts(p RemoteProbe, plan protocol.Plan) (protocol.Facts, *opensslVersion) {
	var f protocol.Facts
	addErr := func(format string, a ...any) { f.Errors = append(f.Errors, fmt.Sprintf(format, a...)) }
	f.Hostname, f.Machine, f.Kernel = p.Hostname, p.Machine, p.Release
	f.Uname = strings.Join([]string{p.Sysname, p.Hostname, p.Release, p.Version, p.Machine}, " ")
	f.Agent, f.AgentReason = p.Agent, p.AgentReason
	readBoardFiles(&f, p.Root, func() int {
		// the controller's own core count would be wrong: count the board's cpuN lines of /proc/stat
		if e := sampleEvidence(p.Before.Root); len(e.stat) > 1 {
			return len(e.stat) - 1
		}
		return 0
	}, addErr)
	f.DevCrypto = p.DevCrypto
	f.AFALGError = "needs the agent (" + p.AgentReason + ")"
	if plan.Power != nil && plan.Power.Hwmon != "" {
		f.Power = &protocol.PowerFacts{Unknown: remoteHwmonUnknown} // the sweep's own facts never reach the store
	}
	readCryptoProcs(&f, p.Root, addErr)

	var version *opensslVersion
	noOpenSSL := ""
	if p.OpenSSLPath == "" {
		noOpenSSL = noOpenSSLReason(plan.OpenSSL, p.OpenSSLMissing)
		addErr("find openssl: %s", p.OpenSSLMissing)
	} else {
		f.OpenSSLPath = p.OpenSSLPath
		v, why := opensslFacts(&f, p.OpenSSLPath, p.OpenSSLVersion.child())
		if why == "" {
			version = &v
			f.Engines = map[string]string{}
			for _, e := range ProbeEngines(plan) {
				if r, ok := p.Engines[e]; ok {
					f.Engines[e] = engineStatus(r.child())
				}
			}
			if algs := CheckedAlgorithms(plan); len(algs) > 0 && len(p.AlgorithmLists) > 0 {
				var runs []childResult
				for _, r := range p.AlgorithmLists {
					runs = append(runs, r.child())
				}
				if names, ok := listedAlgorithms(runs); ok {
					f.UnknownAlgorithms = unknownAlgorithms(algs, names)
				} else {
					addErr("list algorithms: openssl listed no cipher or digest; algorithm names not checked")
				}
			}
		}
		noOpenSSL = why
	}
	opts := probeOptionsForPlan(plan)
	providers := opts.Providers
	opts.Providers = nil // probeProvider would run openssl here, not on the board
	f.Modes = probeModes(context.Background(), &f, version, noOpenSSL, opts)
	for i, m := range f.Modes {
		if s, ok := protocol.LookupMode(m.Mode); ok && s.NeedsAgent != "" {
			f.Modes[i].Reason = m.Mode + " needs the agent (" + s.NeedsAgent + "): " + p.AgentReason
		}
	}
	for _, name := range providers {
		f.Modes = append(f.Modes, protocol.ModeFact{Mode: protocol.ProviderPrefix + name, Reason: protocol.ProviderPrefix + name + " needs the agent's probe: " + p.AgentReason})
	}
	return f, version
}

// RemoteSweep is Sweep for a board the agent cannot run on: the facts come from probe, and every command and
// reading goes through r. It streams the same lines as the agent's sweep to enc.
func RemoteSweep(ctx context.Context, plan protocol.Plan, enc *protocol.Encoder, probe RemoteProbe, r Remote) (protocol.Done, error) {
	facts, version := remoteFacts(probe, plan)
	p := &probed{pre: remoteEvidence(probe.Before), facts: facts, opensslPath: probe.OpenSSLPath, version: version,
		opts: probeOptionsForPlan(plan), remote: &remoteProbed{board: r, post: remoteEvidence(probe.After), why: probe.AgentReason}}
	return sweepProbed(ctx, plan, enc, "", p)
}

// remoteProbed is the part of a probe that only a remote board has.
type remoteProbed struct {
	board Remote
	post  evidenceSample // after the probe
	why   string         // why the agent does not run there
}

// unprepared clears what the plan would have the agent do to the board (set the governor, wait for quiet),
// which the shell path does not, and says so in the facts, with the verification's concurrency check when the
// board cannot run it (a Remote that is no LoopsRemote).
func (r *remoteProbed) unprepared(plan *protocol.Plan) []string {
	var notes []string
	if plan.Governor != "" {
		notes = append(notes, fmt.Sprintf("governor %s: not set, the shell path does not prepare boards", plan.Governor))
		plan.Governor = ""
	}
	if plan.QuietWaitS > 0 {
		notes = append(notes, "quiet wait: not done, the shell path does not prepare boards")
		plan.QuietWaitS = 0
	}
	if _, ok := r.board.(LoopsRemote); !ok && plan.Verify && plan.VerifyThreads != 0 && slices.ContainsFunc(plan.Modes, protocol.IsAccelerated) {
		notes = append(notes, "verification: no concurrency check of accelerated modes, the shell path runs one command at a time on the board")
	}
	return notes
}

// measureChild runs one command of the sweep with the board's state read around it: here, or on the remote
// board.
func (s *sweepState) measureChild(ctx context.Context, argv, env []string) (childResult, systemSample, systemSample) {
	if s.remote == nil {
		before := s.sampleSystem()
		res := runChild(ctx, argv, env)
		after := s.sampleSystem()
		return res, before, after
	}
	r := s.remote.Measure(ctx, argv, env)
	res := r.child()
	res.Argv, res.Env = argv, env
	return res, remoteSystem(r.Before), remoteSystem(r.After)
}

func (r RemoteRun) child() childResult {
	return childResult{Stdout: r.Stdout, Stderr: r.Stderr, Exit: r.Exit, WallS: r.WallS, UserS: r.UserS, SysS: r.SysS, Err: r.Err}
}

// remoteSystem reads a mirrored sample as sampleSystem reads the board's own files, with the session's CPU time
// in place of the agent's.
func remoteSystem(rs RemoteSample) systemSample {
	if rs.Root == "" {
		return systemSample{}
	}
	s := sampleSystem(rs.Root)
	s.Ev.tree, s.Ev.treeOK = rs.OwnS, rs.OwnOK
	return s
}

func remoteEvidence(rs RemoteSample) evidenceSample {
	if rs.Root == "" {
		return evidenceSample{}
	}
	e := sampleEvidence(rs.Root)
	e.tree, e.treeOK = rs.OwnS, rs.OwnOK
	return e
}
