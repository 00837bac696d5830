package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Version is the agent's release; protocol.Hello carries it with the VCS revision the binary was built from, if known.
const Version = "0.1.0"

// errStdinClosed is why a sweep stops when the controller goes away.
var errStdinClosed = errors.New("stdin closed: controller gone")

// Main runs the agent with args (without the program name) and returns the process exit code: 0 on success,
// 1 when the work failed or was cancelled, 2 on a usage error. The binary's main only wires the process to it.
//
//	fleet-agent version
//	fleet-agent sha256 FILE
//	fleet-agent probe [--openssl PATH] [--engines a,b] [--providers p,q] [--algorithms x,y] [--timeout 10s]
//	fleet-agent sweep            (one JSON protocol.Plan line on stdin; EOF on stdin afterwards cancels the sweep)
//	fleet-agent measure [probe flags]   (probe, then sweep the plan read on stdin after the facts; EOF: probe only)
//	fleet-agent ssh-sink N | ssh-source N   (mode ssh: see ssh_transfer.go)
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: fleet-agent version | sha256 FILE | probe [flags] | sweep < plan.json | measure [probe flags] < plan.json | ssh-sink N | ssh-source N")
		return 2
	}
	switch args[0] {
	case "version":
		fmt.Fprintln(stdout, AgentVersion())
		return 0
	case "sha256":
		return mainSHA256(args[1:], stdout, stderr)
	case "probe":
		return mainProbe(ctx, args[1:], stdout, stderr)
	case "sweep":
		return mainSweep(ctx, args[1:], stdin, stdout, stderr)
	case "measure":
		return mainMeasure(ctx, args[1:], stdin, stdout, stderr)
	case "ssh-sink", "ssh-source":
		return mainSSHTransfer(args[0], args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "fleet-agent: unknown command %q\n", args[0])
	return 2
}

// AgentVersion is Version followed by the VCS revision of the build, e.g. "0.1.0+3f2a9c1d0b7e".
func AgentVersion() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += "+" + rev + dirty
		}
	}
	return v
}

// hello is the first line of every probe and sweep.
func hello() *protocol.Hello {
	h := &protocol.Hello{Agent: AgentVersion(), Protocol: protocol.ProtocolVersion, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOARM" {
				h.GOARM = s.Value
			}
		}
	}
	return h
}

func mainSHA256(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: fleet-agent sha256 FILE")
		return 2
	}
	sum, err := fileSHA256(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "sha256 %s: %v\n", args[0], err)
		return 1
	}
	fmt.Fprintln(stdout, sum)
	return 0
}

func mainProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := parseProbeArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "probe: %v\nusage: fleet-agent probe [--openssl PATH] [--engines a,b] [--providers p,q] [--algorithms x,y] [--timeout 10s]\n", err)
		return 2
	}
	enc := protocol.NewEncoder(stdout)
	facts := Probe(ctx, opts)
	enc.Encode(protocol.TypeHello, hello())
	enc.Encode(protocol.TypeFacts, &facts)
	if err := enc.Encode(protocol.TypeDone, &protocol.Done{}); err != nil {
		fmt.Fprintf(stderr, "probe: write: %v\n", err)
		return 1
	}
	return 0
}

// parseProbeArgs reads the probe's options, "--name value" or "--name=value" (one dash works too). The agent
// does not use package flag: it would cost over 100 KiB of the 3 MiB binary.
func parseProbeArgs(args []string) (ProbeOptions, error) {
	opts := ProbeOptions{OpenSSL: "openssl", Timeout: 10 * time.Second}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name == "" {
			return opts, fmt.Errorf("unexpected argument %q", args[i])
		}
		if !hasValue {
			if i+1 >= len(args) {
				return opts, fmt.Errorf("option --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "openssl":
			opts.OpenSSL = value
		case "probe-cache":
			if !filepath.IsAbs(value) {
				return opts, fmt.Errorf("option --probe-cache %q: want an absolute directory", value)
			}
			opts.CacheDir = value
		case "engines":
			opts.Engines = splitList(value)
		case "providers":
			opts.Providers = splitList(value)
		case "algorithms":
			opts.Algorithms = splitList(value)
		case "timeout":
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return opts, fmt.Errorf("option --timeout %q: want a positive duration such as 10s", value)
			}
			opts.Timeout = d
		default:
			return opts, fmt.Errorf("unknown option --%s", name)
		}
	}
	return opts, nil
}

func mainSweep(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, "usage: fleet-agent sweep < plan.json (one JSON line)")
		return 2
	}
	enc := protocol.NewEncoder(stdout)
	if err := enc.Encode(protocol.TypeHello, hello()); err != nil {
		fmt.Fprintf(stderr, "sweep: write: %v\n", err)
		return 1
	}
	in := bufio.NewReaderSize(stdin, 64<<10)
	plan, err := readPlan(in)
	if err != nil {
		enc.Encode(protocol.TypeError, err.Error())
		enc.Encode(protocol.TypeDone, &protocol.Done{})
		return 1
	}
	return sweepSession(ctx, plan, in, enc, stderr, nil)
}

// sweepSession sweeps plan (reusing p when it fits), cancelled when in, the rest of stdin, ends.
func sweepSession(ctx context.Context, plan protocol.Plan, in io.Reader, enc *protocol.Encoder, stderr io.Writer, p *probed) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		// the controller keeps stdin open for as long as it wants results; EOF means it is gone
		io.Copy(io.Discard, in)
		cancel(errStdinClosed)
	}()
	done, err := sweepProbed(ctx, plan, enc, "", p)
	code := 0
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, cause)
		}
		enc.Encode(protocol.TypeError, err.Error())
		code = 1
	}
	if err := enc.Encode(protocol.TypeDone, &done); err != nil {
		fmt.Fprintf(stderr, "sweep: write: %v\n", err)
		return 1
	}
	return code
}

// readPlan reads the one JSON line of the plan, bounded by the protocol's line limit.
func readPlan(r *bufio.Reader) (protocol.Plan, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > protocol.MaxLineBytes {
			return protocol.Plan{}, fmt.Errorf("read plan: %w", protocol.ErrLineTooLong)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			return protocol.Plan{}, fmt.Errorf("read plan: %w", err)
		}
		break
	}
	var p protocol.Plan
	if err := protocol.DecodeJSON(line, &p); err != nil {
		return protocol.Plan{}, fmt.Errorf("read plan: %w", err)
	}
	if len(p.Algorithms) == 0 || len(p.Modes) == 0 {
		return protocol.Plan{}, errors.New("read plan: no algorithms or no modes")
	}
	return p, nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
