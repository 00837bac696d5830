package report

import (
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestKernelNotes(t *testing.T) {
	oops := protocol.HealthLine{Text: "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000",
		Pattern: "oops", Fatal: true, During: "cpu aes-128-cbc 64 B"}
	for _, tc := range []struct {
		name string
		h    protocol.KernelHealth
		want []string
	}{
		{"flood then oops", protocol.KernelHealth{Health: protocol.HealthProblems, Source: "dmesg", Lines: []protocol.HealthLine{oops}, Read: 501},
			[]string{"kernel: problems (dmesg)",
				"kernel log [oops, fatal]: Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000 (during cpu aes-128-cbc 64 B)",
				"kernel log: 501 lines read during the sweep, each matched against the patterns; 1 matched, the other 500 are not kept"}},
		{"noise only", protocol.KernelHealth{Health: protocol.HealthOK, Source: "/dev/kmsg", Read: 500},
			[]string{"kernel: ok (/dev/kmsg)", "kernel log: 500 lines read during the sweep, each matched against the patterns; 0 matched, the other 500 are not kept"}},
		{"stopped being readable", protocol.KernelHealth{Health: protocol.HealthUnknown, Source: "dmesg", Reason: "the kernel log was not read during cpu aes-128-cbc 64 B: dmesg -r: exit status 1"},
			[]string{"kernel: unknown (the kernel log was not read during cpu aes-128-cbc 64 B: dmesg -r: exit status 1)"}},
		{"problems, and not all read", protocol.KernelHealth{Health: protocol.HealthProblems, Source: "/dev/kmsg", Lines: []protocol.HealthLine{oops},
			Dropped: 3, Read: 10, Reason: "the kernel log was not read during cpu aes-128-cbc 256 B: read /dev/kmsg: input/output error"},
			[]string{"kernel: problems (/dev/kmsg)", "kernel log [oops, fatal]: " + oops.Text + " (during cpu aes-128-cbc 64 B)",
				"kernel log: not all read: the kernel log was not read during cpu aes-128-cbc 256 B: read /dev/kmsg: input/output error",
				"kernel log: 3 more matching lines not kept",
				"kernel log: 10 lines read during the sweep, each matched against the patterns; 4 matched, the other 6 are not kept"}},
		{"stored before the tally", protocol.KernelHealth{Health: protocol.HealthOK, Source: "/dev/kmsg", Dropped: 437},
			[]string{"kernel: ok (/dev/kmsg)", "kernel log: 437 more lines not kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KernelNotes(&tc.h); !slices.Equal(got, tc.want) {
				t.Errorf("KernelNotes =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
