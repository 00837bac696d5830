package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"

	"golang.org/x/crypto/ssh"
)

func (b *fakeBoard) hello() *protocol.Hello {
	return &protocol.Hello{Agent: "fake-0.1.0", Protocol: protocol.ProtocolVersion, GOOS: "linux", GOARCH: "amd64"}
}

func (b *fakeBoard) facts() *protocol.Facts {
	return &protocol.Facts{
		Hostname: b.name, Uname: "Linux " + b.name + " 6.1.0 x86_64 GNU/Linux", Machine: "x86_64", Kernel: "6.1.0",
		CPU:     protocol.CPUFacts{Model: "simulated", Cores: 2},
		OpenSSL: "OpenSSL 3.0.19 27 Jan 2026", OpenSSLVersion: "3.0.19", OpenSSLPath: "/usr/bin/openssl",
		Modes: []protocol.ModeFact{{Mode: "soft", Available: true}, {Mode: "cpu", Available: true},
			{Mode: "devcrypto", Reason: "no /dev/crypto"}, {Mode: "afalg", Reason: "simulated"}, {Mode: "kcapi", Reason: "simulated"}},
	}
}

func (b *fakeBoard) probe(ch ssh.Channel) int {
	enc := protocol.NewEncoder(ch)
	enc.Encode(protocol.TypeHello, b.hello())
	enc.Encode(protocol.TypeFacts, b.facts())
	enc.Encode(protocol.TypeDone, &protocol.Done{})
	return 0
}

// runSweep plays `fleet-agent sweep`: the plan from stdin, then hello, facts and, for every planned point, the
// raw output of its openssl command and the point, the points spread evenly over b.sweep on a fixed schedule (so
// the sweep lasts b.sweep however slowly the controller reads), then done. With measure it plays
// `fleet-agent measure`: hello and the probe's facts come first, before the plan is read.
func (b *fakeBoard) runSweep(ch ssh.Channel, measure bool) int {
	start := time.Now()
	enc := protocol.NewEncoder(ch)
	if measure {
		enc.Encode(protocol.TypeHello, b.hello())
		enc.Encode(protocol.TypeFacts, b.facts())
	}
	line, err := readPlan(ch)
	if err != nil {
		fmt.Fprintf(ch.Stderr(), "sweep: read plan: %v\n", err)
		return 2
	}
	var plan protocol.Plan
	if err := json.Unmarshal(line, &plan); err != nil {
		fmt.Fprintf(ch.Stderr(), "sweep: plan: %v\n", err)
		return 2
	}
	sizes := plan.Sizes
	if len(sizes) == 0 {
		sizes = protocol.DefaultSizes
	}
	type slot struct {
		mode, alg string
		size, rep int
	}
	var slots []slot
	for rep := range max(plan.Repeats, 1) {
		for _, alg := range plan.Algorithms {
			for _, size := range sizes {
				for _, mode := range plan.Modes {
					slots = append(slots, slot{mode, alg, size, rep})
				}
			}
		}
	}
	if !measure {
		enc.Encode(protocol.TypeHello, b.hello())
	}
	enc.Encode(protocol.TypeFacts, b.facts())
	per := b.sweep / time.Duration(max(len(slots), 1))
	for i, s := range slots {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * per)))
		secs := max(plan.Seconds, 1)
		bps := 1e8 + float64(s.size)*1e4
		count := bps * secs / float64(s.size)
		argv := []string{"openssl", "speed", "-elapsed", "-mr", "-seconds", fmt.Sprint(secs), "-bytes", fmt.Sprint(s.size), "-evp", s.alg}
		raw := &protocol.Raw{ID: i + 1, Command: argv,
			Stdout: fmt.Sprintf("+DT:%s:%d:%d\n+R:%d:%s:%f\n%s", s.alg, int(secs), s.size, int(count), s.alg, secs, strings.Repeat("# simulated openssl speed output\n", 12)),
			Stderr: fmt.Sprintf("version: 3.0.19\nbuilt on: simulated\noptions: bn(64,64)\ncompiler: gcc\nCPUINFO: simulated\n")}
		if s.mode == "soft" {
			raw.Env = []string{"OPENSSL_ia32cap=~0x200000200000000:~0x60020000000"}
		}
		enc.Encode(protocol.TypeRaw, raw)
		err := enc.Encode(protocol.TypePoint, &protocol.Point{Mode: s.mode, Algorithm: s.alg, Op: "encrypt", BlockSize: s.size,
			Threads: 1, Repeat: s.rep, Count: count, Seconds: secs, Timing: "wall", BytesPerSec: bps,
			WallS: secs + 0.01, UserS: secs, SysS: 0.001, CPUPct: 99.5, RawID: i + 1, Line: 2})
		if err != nil {
			return 1 // the controller went away
		}
	}
	enc.Encode(protocol.TypeDone, &protocol.Done{Points: len(slots)})
	return 0
}
