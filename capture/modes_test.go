package capture

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/reftable"
)

// TestCheckMode: a capture may have every mode openssl speed measures, not fleet's own (ssh, kcapi and its
// drivers: ErrNotSpeedMode), and a name that is no mode is refused as such.
func TestCheckMode(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		ok       bool
		notSpeed bool
	}{
		{"soft", true, false},
		{"cpu", true, false},
		{"devcrypto", true, false},
		{"afalg", true, false},
		{"engine:pka", true, false},
		{"provider:default", true, false},
		{"ssh", false, true},
		{"kcapi", false, true},
		{"kcapi:all", false, true},
		{"kcapi:sa2ul-cbc-aes", false, true},
		{"accelerator", false, false},
		{"bogus", false, false},
		{"", false, false},
	} {
		err := CheckMode(tc.mode)
		if got := err == nil; got != tc.ok {
			t.Errorf("CheckMode(%q) = %v, want ok %v", tc.mode, err, tc.ok)
		}
		if got := errors.Is(err, ErrNotSpeedMode); got != tc.notSpeed {
			t.Errorf("CheckMode(%q) = %v: ErrNotSpeedMode %v, want %v", tc.mode, err, got, tc.notSpeed)
		}
	}
}

// TestCheckReferenceMode: a published column may be any fleet mode or the vendor's "accelerator", nothing else.
func TestCheckReferenceMode(t *testing.T) {
	for _, m := range []string{"cpu", "soft", "devcrypto", "engine:pka", reftable.ModeAccelerator} {
		if err := CheckReferenceMode(m); err != nil {
			t.Errorf("CheckReferenceMode(%q) = %v, want nil", m, err)
		}
	}
	for _, m := range []string{"bogus", "", "engine:"} {
		if err := CheckReferenceMode(m); err == nil {
			t.Errorf("CheckReferenceMode(%q) = nil, want an error", m)
		}
	}
}

// TestImportRefusesFleetModes: Import itself refuses a mode no capture can have, before it reads a file (the
// file here does not exist) or stores anything, so that a front end that skips the check stores nothing under
// ssh or kcapi.
func TestImportRefusesFleetModes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.txt")
	for _, mode := range []string{"ssh", "kcapi:all"} {
		sink := &recordSink{}
		_, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{missing}, Mode: mode}, sink)
		if !errors.Is(err, ErrNotSpeedMode) {
			t.Errorf("Import(mode %s) = %v, want ErrNotSpeedMode", mode, err)
		}
		if len(sink.runs) != 0 || sink.committed {
			t.Errorf("Import(mode %s) started %d runs, committed %v: want nothing", mode, len(sink.runs), sink.committed)
		}
	}
}

// TestReadReferenceRefusesModes: ReadReference refuses a mode that is none, for the columns that name none and
// for a named column, before it reads a file.
func TestReadReferenceRefusesModes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.txt")
	for name, opts := range map[string]ReferenceOptions{
		"mode":   {Files: []string{missing}, Mode: "bogus"},
		"column": {Files: []string{missing}, Columns: map[string]string{"Accelerator": "bogus"}},
	} {
		_, err := ReadReference(context.Background(), opts)
		if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `mode "bogus"`) {
			t.Errorf("%s: ReadReference = %v, want the mode refused before the file is read", name, err)
		}
	}
}
