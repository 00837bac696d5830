package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedInventory: each mistake in a boards.toml is reported with file:line (every one of them when there
// are several), exit 2, by every command that reads the inventory, before anything else happens.
func TestMalformedInventory(t *testing.T) {
	for _, tc := range []struct {
		file  string
		lines []int // every line that must be named
		words []string
	}{
		{"syntax.toml", []int{5}, nil},
		{"several.toml", []int{4, 8, 11}, []string{"prot", "-oProxyCommand=reboot", "192.0.2.3;reboot"}},
		{"typeerror.toml", []int{4, 8, 11}, []string{"prot", "port", "192.0.2.3;reboot"}},
		{"duplicate.toml", []int{4}, []string{"a"}},
		{"values.toml", []int{3, 7, 8, 11, 12, 13}, []string{"OPENSSL_CONF", "warp-drive", "70000", "AES-128-CBC", "-1", "seconds"}},
		{"string.toml", []int{3}, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			w := newWorld(t)
			data, err := os.ReadFile(filepath.Join("testdata", "malformed", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			w.inv = filepath.Join(w.dir, tc.file)
			w.writeInventory(string(data))
			for _, args := range [][]string{
				{"boards", "list"},
				{"boards", "check", "--all", "--agent", agentBin},
				{"run", "--all", "--agent", agentBin, "--profile", "p"},
			} {
				r := w.fleet(args...)
				if r.code != 2 {
					t.Errorf("want exit 2\n%s", r)
				}
				for _, line := range tc.lines {
					if where := fmt.Sprintf("%s:%d:", w.inv, line); !strings.Contains(r.stderr, where) {
						t.Errorf("stderr does not name %s\n%s", where, r)
					}
				}
				for _, word := range tc.words {
					if !strings.Contains(r.stderr, word) {
						t.Errorf("stderr does not mention %q\n%s", word, r)
					}
				}
				if r.stdout != "" {
					t.Errorf("stdout is not empty\n%s", r)
				}
			}
			if _, err := os.Stat(w.db); err == nil {
				t.Errorf("%s was created although the inventory is malformed", w.db)
			}
		})
	}
}
