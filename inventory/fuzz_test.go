package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary documents to the loader: it must not panic, every line of an error must start with
// the file name (so that each problem can be found), and a document that loads must select and re-validate.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.toml")
	seeds = append(seeds, "../boards.toml")
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, doc := range []string{
		"[boards.b]\nhost = 'h\nport = 2\n",
		"[boards.\"a;b\"]\nhost = \"$(x)\"\nmodes = [\"engine:a b\", 1]\n",
		"[boards]\nb = { host = \"h\", env = { A = \"1\\n\" }, tags = [[\"x\"]] }\n",
		"[profiles.p]\nalgorithms = []\nsizes = [0, 16, 16]\nseconds = nan\n",
		"[[boards]]\n[defaults]\nhost = 1\n[x.y.z]\n",
		"[boards.local]\nhost = \"h\"\n[boards.local.env]\n\"\" = \"\"\n",
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.toml"
		inv, err := parse(name, data, func() (string, error) { return "/home/fuzz", nil })
		if err != nil {
			if inv != nil {
				t.Fatal("an inventory came back with an error")
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, name+":") {
					t.Fatalf("error line %q does not start with %q", line, name+":")
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Column < 1 {
				t.Fatalf("error %q has no position", err)
			}
			return
		}
		boards := inv.Boards()
		if len(boards) == 0 {
			t.Fatal("no boards: the local board must always be there")
		}
		for _, b := range boards {
			if checkName(b.Name) != "" || !b.Local && checkHost(b.Host) != "" {
				t.Fatalf("accepted an invalid board %+v", b)
			}
			for _, m := range b.Modes {
				if err := CheckMode(m); err != nil {
					t.Fatalf("accepted board %q: %v", b.Name, err)
				}
			}
		}
		if _, err := inv.Select(nil, nil, true); err != nil && !errors.Is(err, ErrNoBoards) {
			t.Fatalf("Select --all: %v", err)
		}
		for _, p := range inv.Profiles() {
			if err := ValidateProfile(p); err != nil {
				t.Fatalf("accepted a profile that does not validate: %v", err)
			}
		}
	})
}
