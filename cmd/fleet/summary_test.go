package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/protocol"
)

// TestRunAndCheckWithoutOpenSSLExit3: `run` and `boards check` on a board whose openssl is missing ended "ok,
// 0 points" with exit 0. Both exit 3 and say why.
func TestRunAndCheckWithoutOpenSSLExit3(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	dir := t.TempDir()
	inv := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(inv, []byte("[boards.local]\nopenssl = \"/nonexistent/openssl\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const cause = "openssl /nonexistent/openssl: not found"
	db := filepath.Join(dir, "fleet.db")
	for _, args := range [][]string{
		{"--inventory", inv, "--db", db, "run", "--boards", "local", "--modes", "soft,cpu", "--seconds", "1"},
		{"--inventory", inv, "boards", "check", "--boards", "local"},
	} {
		stdout, stderr, code := runFleet(t, args...)
		if code != 3 || !strings.Contains(stdout+stderr, cause) {
			t.Errorf("fleet %s: exit %d, want 3 and %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, cause, stdout, stderr)
		}
	}
}

// TestModeSummary: the line under each board says what was measured, what the board cannot do and why, and what
// it can do but was not asked to; it breaks up rather than run past a terminal's width.
func TestModeSummary(t *testing.T) {
	noDev := protocol.ModeFact{Mode: "devcrypto", Reason: "no /dev/crypto"}
	tests := []struct {
		name     string
		report   fleet.ModeReport
		measured bool
		want     []string
	}{
		{name: "the lab", measured: true,
			report: fleet.ModeReport{Measured: []string{"soft", "cpu", "afalg", "kcapi"}, Unavailable: []protocol.ModeFact{noDev}},
			want:   []string{"  measured soft, cpu, afalg, kcapi; not available: devcrypto (no /dev/crypto)"}},
		{name: "not asked", measured: true,
			report: fleet.ModeReport{Measured: []string{"soft", "cpu"}, Unmeasured: []string{"afalg"}, NotAsked: []string{"kcapi"}},
			want:   []string{"  measured soft, cpu; no points: afalg; available, not asked: kcapi"}},
		{name: "check", report: fleet.ModeReport{Available: []string{"soft", "cpu"}, Unavailable: []protocol.ModeFact{noDev}},
			want: []string{"  available soft, cpu; not available: devcrypto (no /dev/crypto)"}},
		{name: "too wide", measured: true,
			report: fleet.ModeReport{Measured: []string{"soft", "cpu"}, Unavailable: []protocol.ModeFact{noDev,
				{Mode: "afalg", Reason: "engine afalg: not available: init failed: error:4000006D:lib(128)::reason(109):e_afalg.c:859:"},
				{Mode: "kcapi", Reason: "AF_ALG socket: address family not supported by protocol"}}},
			want: []string{"  measured soft, cpu", "  not available:", "    devcrypto: no /dev/crypto",
				"    afalg: the afalg engine did not load: the kernel has no AF_ALG sockets",
				"    kcapi: AF_ALG socket: address family not supported by protocol"}},
		{name: "offload measured", measured: true,
			report: fleet.ModeReport{Measured: []string{"cpu", "kcapi:all"}, Offload: []fleet.Offload{{Driver: "virtio_crypto_aes_cbc", Asked: true}}},
			want:   []string{"  measured cpu, kcapi:all", "  offload: virtio_crypto_aes_cbc"}},
		{name: "offload not asked", measured: true,
			report: fleet.ModeReport{Measured: []string{"cpu"}, Offload: []fleet.Offload{{Driver: "cbc-aes-sa2ul"}, {Driver: "sha256-sa2ul", Asked: true}}},
			want:   []string{"  measured cpu", "  offload: cbc-aes-sa2ul (not asked: --modes kcapi:cbc-aes-sa2ul), sha256-sa2ul"}},
		{name: "nothing", measured: true, report: fleet.ModeReport{Unavailable: []protocol.ModeFact{{Mode: "cpu", Reason: "openssl: not found in $PATH"}}},
			want: []string{"  measured nothing; not available: cpu (openssl: not found in $PATH)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := modeSummary(tc.report, tc.measured, "  ")
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("modeSummary =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
