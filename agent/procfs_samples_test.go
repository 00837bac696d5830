package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParseProcCryptoSamples reads the /proc/crypto samples of the emulated lab boards (testdata/proc, copied from
// the project's shared fixtures): every entry has a name and a driver, and the drivers the lab's README names are
// there.
func TestParseProcCryptoSamples(t *testing.T) {
	for file, want := range map[string][2]string{
		"qemu-arm64-max-proc-crypto.txt": {"gcm(aes)", "gcm-aes-ce"},
		"qemu-armv7-a15-proc-crypto.txt": {"sha256", "sha256-neon"},
	} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "proc", file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			algs, err := ParseProcCrypto(f)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(algs), 30; got != want {
				t.Errorf("entries = %d, want %d", got, want)
			}
			found := false
			for _, a := range algs {
				if a.Name == "" || a.Driver == "" {
					t.Errorf("entry %+v lacks a name or a driver", a)
				}
				found = found || (a.Name == want[0] && a.Driver == want[1])
			}
			if !found {
				t.Errorf("no %s served by %s", want[0], want[1])
			}
		})
	}
}
