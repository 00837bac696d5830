// Package golden compares what a test printed with a file under the package's testdata, the golden file, and
// rewrites the files instead with `go test -update`. Every package's golden tests use it, so there is one
// -update flag and one diff for all of them.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is the -update flag of every test binary that imports the package.
var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// Check compares got with testdata/file (file names its extension: runs.golden, compare.html), or writes got
// to it with -update. A difference is a test error showing the first lines that differ.
func Check(t testing.TB, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	rerun := fmt.Sprintf("go test -run '^%s$' -update rewrites it", strings.SplitN(t.Name(), "/", 2)[0])
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (%s)", err, rerun)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (%s; review the diff before committing it):\n%s", path, rerun, Diff(string(want), string(got)))
	}
}

// Diff shows the first ten lines that differ between want and got, quoted, enough to see what changed.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  want: %q\n  got:  %q\n", i+1, w, g)
			if shown++; shown == 10 {
				break
			}
		}
	}
	return b.String()
}
