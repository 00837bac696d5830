package fleet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func noiseLines(n int) []protocol.KernelLine {
	var ls []protocol.KernelLine
	for i := 0; i < n; i++ {
		ls = append(ls, protocol.KernelLine{Level: 6, Text: fmt.Sprintf("virtio_crypto virtio0: dataq.0: request %d done", i)})
	}
	return ls
}

// readJudge is a judge after a sweep's start whose log is read from source.
func readJudge(source string) *kernelJudge {
	k := newKernelJudge(nil)
	k.report(protocol.Kernel{Phase: "before", Source: source})
	return k
}

func cpuPoint(size int, lines []protocol.KernelLine, tally *protocol.KernelTally) *protocol.Point {
	return &protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: size, Kernel: lines, KernelTally: tally}
}

// TestKernelJudgeTally judges points as the agent sends them after a flood: the first 64 lines and every matched
// one, with the tally of all.
func TestKernelJudgeTally(t *testing.T) {
	const oops = "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000"
	t.Run("flood then oops", func(t *testing.T) {
		k := readJudge(protocol.KernelSourceDmesg)
		p := cpuPoint(64, append(noiseLines(64), protocol.KernelLine{Level: 1, Text: oops}), &protocol.KernelTally{Read: 501, Matched: 1, Fatal: 1})
		k.point(p)
		h := k.result()
		if k.fatalLine() != oops || h.Health != protocol.HealthProblems || h.Read != 501 || len(h.Lines) != 1 || h.Reason != "" {
			t.Errorf("fatal %q, health %+v: want the Oops, 501 read", k.fatalLine(), h)
		}
		if p.KernelTally != nil || p.Kernel != nil || len(p.Flags) != 1 || p.Flags[0] != flagKernel+oops {
			t.Errorf("point %+v: want flagged with the Oops, lines and tally dropped", p)
		}
	})
	t.Run("noise only", func(t *testing.T) {
		k := readJudge(protocol.KernelSourceKmsg)
		k.point(cpuPoint(64, noiseLines(64), &protocol.KernelTally{Read: 500}))
		k.report(protocol.Kernel{Phase: "after", Source: protocol.KernelSourceKmsg, Lines: noiseLines(3), Tally: &protocol.KernelTally{Read: 3}})
		h := k.result()
		if h.Health != protocol.HealthOK || h.Read != 503 || h.Dropped != 0 || h.Lost != 0 || h.Reason != "" || k.fatalLine() != "" {
			t.Errorf("health %+v: want ok, 503 read and matched, nothing dropped", h)
		}
	})
	t.Run("matched over the caps", func(t *testing.T) {
		k := readJudge(protocol.KernelSourceKmsg)
		var lines []protocol.KernelLine
		for i := 0; i < 128; i++ {
			lines = append(lines, protocol.KernelLine{Text: fmt.Sprintf("caam_jr 8020000.jr: 4000%04x: DECO: desc idx 0: error", i)})
		}
		k.point(cpuPoint(64, lines, &protocol.KernelTally{Read: 1000, Matched: 300}))
		if h := k.result(); h.Health != protocol.HealthProblems || len(h.Lines) != protocol.MaxHealthLines || h.Dropped != 300-protocol.MaxHealthLines {
			t.Errorf("health %d lines, dropped %d, %s: want %d kept and %d counted", len(h.Lines), h.Dropped, h.Health, protocol.MaxHealthLines, 300-protocol.MaxHealthLines)
		}
	})
	t.Run("fatal counted, not sent", func(t *testing.T) {
		k := readJudge(protocol.KernelSourceKmsg)
		p := cpuPoint(64, noiseLines(64), &protocol.KernelTally{Read: 501, Matched: 1, Fatal: 1})
		k.point(p)
		want := "1 fatal kernel line(s) (Oops, BUG, panic) during cpu aes-128-cbc 64 B, not kept"
		if k.fatalLine() != want || len(p.Flags) != 1 || p.Flags[0] != flagKernel+want {
			t.Errorf("fatal %q, flags %q: want %q", k.fatalLine(), p.Flags, want)
		}
	})
}

// TestKernelJudgeNotRead: a log that stopped being readable, or lines lost before they were read, make the
// health unknown with the reason (problems stays problems, with the reason too); never ok.
func TestKernelJudgeNotRead(t *testing.T) {
	dmesgFailed := "dmesg -r: exit status 1: dmesg: read kernel buffer failed: Operation not permitted"
	kmsgFailed := "read /dev/kmsg: input/output error"
	for _, tc := range []struct {
		name    string
		feed    func(k *kernelJudge)
		health  string
		reasons []string
	}{
		{"dmesg fails mid-sweep", func(k *kernelJudge) {
			k.point(cpuPoint(16, noiseLines(2), &protocol.KernelTally{Read: 2}))
			k.point(cpuPoint(64, nil, &protocol.KernelTally{Unreadable: dmesgFailed}))
			k.report(protocol.Kernel{Phase: "after", Source: protocol.KernelSourceDmesg, Tally: &protocol.KernelTally{Unreadable: dmesgFailed}})
		}, protocol.HealthUnknown, []string{"the kernel log was not read during cpu aes-128-cbc 64 B and once more: " + dmesgFailed}},
		{"kmsg read error", func(k *kernelJudge) {
			for _, size := range []int{16, 64, 256} {
				k.point(cpuPoint(size, nil, &protocol.KernelTally{Unreadable: kmsgFailed}))
			}
		}, protocol.HealthUnknown, []string{"the kernel log was not read during cpu aes-128-cbc 16 B and 2 more times: " + kmsgFailed}},
		{"lines lost", func(k *kernelJudge) {
			k.point(cpuPoint(16, noiseLines(64), &protocol.KernelTally{Read: 100, Lost: 312}))
			k.point(cpuPoint(64, nil, &protocol.KernelTally{Read: 0, Lost: 8}))
		}, protocol.HealthUnknown, []string{"320 kernel line(s) lost before they were read, so never matched (during cpu aes-128-cbc 16 B and once more)"}},
		{"problems and unreadable", func(k *kernelJudge) {
			k.point(cpuPoint(16, []protocol.KernelLine{{Text: "WARNING: CPU: 0 PID: 1 at x"}}, &protocol.KernelTally{Read: 1, Matched: 1}))
			k.point(cpuPoint(64, nil, &protocol.KernelTally{Unreadable: kmsgFailed}))
		}, protocol.HealthProblems, []string{kmsgFailed}},
		{"an agent that predates the tally dropped lines", func(k *kernelJudge) {
			k.point(cpuPoint(16, noiseLines(64), nil))
			k.report(protocol.Kernel{Phase: "after", Source: protocol.KernelSourceKmsg, Dropped: 437})
		}, protocol.HealthUnknown, []string{"437 kernel lines left out unmatched by an agent that predates matching on the board"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := readJudge(protocol.KernelSourceKmsg)
			tc.feed(k)
			h := k.result()
			if h.Health != tc.health {
				t.Errorf("health %q (%s), want %q", h.Health, h.Reason, tc.health)
			}
			for _, r := range tc.reasons {
				if !strings.Contains(h.Reason, r) {
					t.Errorf("reason %q\nwant it to say %q", h.Reason, r)
				}
			}
		})
	}
}
