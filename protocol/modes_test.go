package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryModeHasAnEntry: every Mode* constant of modes.go but ModeReferenceAccelerator (no mode a board is
// measured in) has its entry in Modes, so that a mode added without one fails here.
func TestEveryModeHasAnEntry(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "modes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts int
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Mode") || name.Name == "ModeReferenceAccelerator" {
					continue
				}
				consts++
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Errorf("%s is no string literal", name.Name)
					continue
				}
				mode, _ := strconv.Unquote(lit.Value)
				if _, ok := LookupMode(mode); !ok {
					t.Errorf("mode %s (%q) has no entry in Modes", name.Name, mode)
				}
			}
		}
	}
	if consts != len(Modes) {
		t.Errorf("%d Mode constants, %d entries in Modes: want one entry a constant", consts, len(Modes))
	}
	if _, ok := LookupMode(ModeReferenceAccelerator); ok {
		t.Errorf("%s has an entry in Modes: no board is measured in it", ModeReferenceAccelerator)
	}
}

func TestModesTable(t *testing.T) {
	if got, want := StandardModes, []string{ModeSoft, ModeCPU, ModeDevCrypto, ModeAFALG, ModeKCAPI}; !slices.Equal(got, want) {
		t.Errorf("StandardModes = %q, want %q", got, want)
	}
	seen := map[string]bool{}
	for _, s := range Modes {
		if seen[s.Mode] {
			t.Errorf("mode %s has two entries", s.Mode)
		}
		seen[s.Mode] = true
		for _, e := range s.Engines {
			if got, ok := EngineMode(e); !ok || got != s.Mode {
				t.Errorf("EngineMode(%q) = %q, %v, want %q", e, got, ok, s.Mode)
			}
		}
	}
	for mode, want := range map[string]bool{ModeSoft: false, ModeCPU: false, ModeSSH: false, ModeDevCrypto: true,
		ModeAFALG: true, ModeKCAPI: true, "engine:pka": true, "provider:tpm2": true, "kcapi:cbc-aes-ce": false,
		"kcapi:cbc-aes-sa2ul": true} {
		if got := IsAccelerated(mode); got != want {
			t.Errorf("IsAccelerated(%q) = %v, want %v", mode, got, want)
		}
	}
	if _, ok := EngineMode("pka"); ok {
		t.Error("EngineMode(pka): a vendor engine is mode engine:pka, not a mode of the table")
	}
}

// TestSSHCiphersOf: mode ssh measures the SSH ciphers a sweep names, in order, and the default ciphers when it
// names none; the default is a copy, never the package's own slice.
func TestSSHCiphersOf(t *testing.T) {
	if got, want := SSHCiphersOf([]string{"aes-128-cbc", CipherAES256GCM, CipherAES128CTR}), []string{CipherAES256GCM, CipherAES128CTR}; !slices.Equal(got, want) {
		t.Errorf("SSHCiphersOf = %v, want %v", got, want)
	}
	got := SSHCiphersOf([]string{"aes-128-cbc"})
	if !slices.Equal(got, DefaultSSHCiphers) {
		t.Errorf("SSHCiphersOf(no cipher) = %v, want %v", got, DefaultSSHCiphers)
	}
	got[0] = "changed"
	if DefaultSSHCiphers[0] == "changed" {
		t.Error("SSHCiphersOf returned DefaultSSHCiphers itself")
	}
}
