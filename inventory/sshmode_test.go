package inventory

import (
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestApplySSHFlags: what --modes, --algorithms and --sizes mean for mode ssh, in the one place every front end
// asks: sizes are bytes per transfer for ssh alone and refused beside openssl modes, the profile's openssl
// algorithms give way to the default ciphers, and an SSH cipher without mode ssh is refused.
func TestApplySSHFlags(t *testing.T) {
	profile := func() Profile { return Profile{Name: "p", Algorithms: []string{"aes-128-cbc"}, Sizes: []int{16}} }
	for _, tc := range []struct {
		name       string
		f          SweepFlags
		transfer   []int
		consumed   bool
		algorithms []string // p.Algorithms after
		err        string
	}{
		{"no ssh", SweepFlags{Modes: []string{"cpu"}, ModesGiven: true}, nil, false, []string{"aes-128-cbc"}, ""},
		{"ssh alone, default ciphers", SweepFlags{Modes: []string{"ssh"}, ModesGiven: true}, nil, false,
			protocol.DefaultSSHCiphers, ""},
		{"ssh alone, transfer sizes", SweepFlags{Modes: []string{"ssh"}, Sizes: []string{"1048576", "2097152"}, ModesGiven: true},
			[]int{1 << 20, 2 << 20}, true, protocol.DefaultSSHCiphers, ""},
		{"transfer too small", SweepFlags{Modes: []string{"ssh"}, Sizes: []string{"1024"}, ModesGiven: true}, nil, false, nil,
			"--sizes: 1024 bytes per transfer is out of range"},
		{"transfer twice", SweepFlags{Modes: []string{"ssh"}, Sizes: []string{"1048576", "1048576"}, ModesGiven: true}, nil, false, nil,
			"--sizes: 1048576 is listed twice"},
		{"sizes with mixed modes", SweepFlags{Modes: []string{"cpu", "ssh"}, Sizes: []string{"16"}, ModesGiven: true}, nil, false, nil,
			"--sizes with --modes mixing ssh and openssl modes"},
		{"cipher without ssh", SweepFlags{Modes: []string{"cpu"}, Algorithms: []string{"aes128-ctr"}, ModesGiven: true}, nil, false, nil,
			"--algorithms aes128-ctr is an SSH cipher: add mode ssh"},
		{"openssl algorithm for ssh alone", SweepFlags{Modes: []string{"ssh"}, Algorithms: []string{"aes-128-ctr"}, ModesGiven: true},
			nil, false, nil, `--algorithms: unknown SSH cipher "aes-128-ctr": did you mean "aes128-ctr"`},
		{"only ciphers beside openssl modes", SweepFlags{Modes: []string{"cpu", "ssh"}, Algorithms: []string{"aes128-ctr"}, ModesGiven: true},
			nil, false, nil, "only SSH ciphers, but --modes also names openssl modes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := profile()
			transfer, consumed, err := ApplySSHFlags(&p, tc.f)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(transfer, tc.transfer) || consumed != tc.consumed {
				t.Errorf("transfer, consumed = %v, %v, want %v, %v", transfer, consumed, tc.transfer, tc.consumed)
			}
			if !slices.Equal(p.Algorithms, tc.algorithms) {
				t.Errorf("algorithms = %v, want %v", p.Algorithms, tc.algorithms)
			}
		})
	}
}
