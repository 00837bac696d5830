package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// board is what the fake agent knows of the board it runs on.
type board struct {
	name  string
	sweep time.Duration
}

// run is the agent's command line: exit 0, 1 when the sweep failed (the controller went away), 2 for bad usage.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "fakeagent: usage: fakeagent measure|probe|sweep [FLAGS…] | sha256 FILE")
		return 2
	}
	if args[0] == "sha256" {
		return sum(args[1:], stdout, stderr)
	}
	b, err := boardFromEnv(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "fakeagent: %v\n", err)
		return 2
	}
	enc := protocol.NewEncoder(stdout)
	switch args[0] {
	case "probe":
		enc.Encode(protocol.TypeHello, b.hello())
		enc.Encode(protocol.TypeFacts, b.facts())
		if err := enc.Encode(protocol.TypeDone, &protocol.Done{}); err != nil {
			return 1
		}
		return 0
	case "measure", "sweep":
		start := time.Now()
		enc.Encode(protocol.TypeHello, b.hello())
		enc.Encode(protocol.TypeFacts, b.facts())
		br := bufio.NewReader(stdin)
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 && args[0] == "measure" {
			return 0 // nothing to sweep: the controller closed stdin after the probe
		}
		if err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "fakeagent: read plan: %v\n", err)
			return 2
		}
		var plan protocol.Plan
		if err := json.Unmarshal(line, &plan); err != nil {
			fmt.Fprintf(stderr, "fakeagent: plan: %v\n", err)
			return 2
		}
		// The real agent stops when its stdin ends (the controller is gone): so does this one.
		gone := make(chan struct{})
		go func() {
			io.Copy(io.Discard, br)
			close(gone)
		}()
		if err := b.runSweep(enc, plan, start, gone); err != nil {
			fmt.Fprintf(stderr, "fakeagent: sweep: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "fakeagent: unknown command %q (want measure, probe, sweep or sha256)\n", args[0])
	return 2
}

// boardFromEnv reads FAKEBOARD_NAME and FAKEBOARD_SWEEP.
func boardFromEnv(getenv func(string) string) (board, error) {
	b := board{name: getenv("FAKEBOARD_NAME")}
	if b.name == "" || strings.ContainsAny(b.name, " \t\n") {
		return b, fmt.Errorf("FAKEBOARD_NAME=%q: want the board's name (set by the simulated board's SSH server)", b.name)
	}
	s := getenv("FAKEBOARD_SWEEP")
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return b, fmt.Errorf("FAKEBOARD_SWEEP=%q: want a duration such as 36s", s)
	}
	b.sweep = d
	return b, nil
}

// sum prints the sha256 of the file as sha256sum does.
func sum(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "fakeagent: usage: fakeagent sha256 FILE")
		return 2
	}
	f, err := os.Open(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "fakeagent: %v\n", err)
		return 1
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		fmt.Fprintf(stderr, "fakeagent: read %s: %v\n", args[0], err)
		return 1
	}
	fmt.Fprintf(stdout, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), args[0])
	return 0
}

func (b board) hello() *protocol.Hello {
	return &protocol.Hello{Agent: "fake-0.1.0", Protocol: protocol.ProtocolVersion, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
}

func (b board) facts() *protocol.Facts {
	return &protocol.Facts{
		Hostname: b.name, Uname: "Linux " + b.name + " 6.1.0 simulated GNU/Linux", Machine: runtime.GOARCH, Kernel: "6.1.0",
		CPU:     protocol.CPUFacts{Model: "simulated", Cores: 2},
		OpenSSL: "OpenSSL 3.0.19 27 Jan 2026", OpenSSLVersion: "3.0.19", OpenSSLPath: "/usr/bin/openssl",
		Modes: []protocol.ModeFact{{Mode: "soft", Available: true}, {Mode: "cpu", Available: true},
			{Mode: "devcrypto", Reason: "no /dev/crypto"}, {Mode: "afalg", Reason: "simulated"}, {Mode: "kcapi", Reason: "simulated"}},
	}
}
