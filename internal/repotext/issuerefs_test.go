package repotext

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueRef finds a citation of one of this project's own issues or bugs by number: "issue 12", "issues 15 and
// 17", "Issue 3", "bug 7", "bugs #6". Nothing in the repository resolves such a number, so a comment or a
// README must state the decision it stands for instead.
var issueRef = regexp.MustCompile(`(?i)\b(issues?|bugs?)\s+#?[0-9]+`)

// externalBefore ends the text before a citation that is another project's tracker and so can be resolved:
// "golang/go issue 75804", "OpenSSL issue 17995", "the kernel's bug 123". A bare "owner/repo#N" or "openssl
// #17995" never matches issueRef in the first place.
var externalBefore = regexp.MustCompile(`(?i)(\b[\w.-]+/[\w.-]+|\b(openssl|golang|go|linux|kernel('s)?|qemu|sqlite|postgresql|openssh|dropbear|modernc|x/crypto))\s*$`)

// checked says which files the walk reads: Go sources, Markdown, shell scripts and SQL migrations — the
// places where comments and documentation live. testdata holds captured output of other programs, not ours.
func checked(path string) bool {
	switch filepath.Ext(path) {
	case ".go", ".md", ".sh", ".sql":
		return true
	}
	return false
}

// TestNoCitedIssueNumbers is the rule that a comment states its decision: no Go file, README, script or
// migration of the repository cites this project's "issue N" or "bug N".
func TestNoCitedIssueNumbers(t *testing.T) {
	root := moduleRoot(t)
	self, err := filepath.Abs("issuerefs_test.go") // its cases above must cite issues
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !checked(path) || path == self {
			return nil
		}
		files++
		for _, hit := range issueCitations(t, path) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%d cites %q: state the decision instead of the issue number", rel, hit.line, hit.text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("the walk from %s read %d files; it should have found the repository's sources", root, files)
	}
}

// TestIssueRefPattern pins what counts as a citation of this project's issues and what is another project's.
func TestIssueRefPattern(t *testing.T) {
	for _, c := range []struct {
		line string
		cite bool
	}{
		{"// Mode ssh (issue 15) is not measured by the agent's sweep", true},
		{"// TestX is issue 11's bug 12 in the report", true},
		{"# Validity's quiet case (Issue 12).", true},
		{"// issues 15 and 17: the deploy check's lines", true},
		{"// TestY is bug 1: --db wins", true},
		{"## g. Import of a 200 MB capture (bugs #7)", true},
		{"# loaded machine (golang/go#75804).", false},
		{"// see openssl #17995 for the engine", false},
		{"// OpenSSL issue 17995 changed the output", false},
		{"// as golang/go issue 75804 describes", false},
		{"// Oops: 0002 [#1] PREEMPT SMP", false},
		{"// RSA with PKCS#1 v1.5 padding", false},
		{"// the debug 7 flag", false},
	} {
		if got := len(citations(c.line)) > 0; got != c.cite {
			t.Errorf("citations(%q) found one: %v, want %v", c.line, got, c.cite)
		}
	}
}

type citation struct {
	line int
	text string
}

// issueCitations reads path and returns its lines that cite this project's issues.
func issueCitations(t *testing.T, path string) []citation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hits []citation
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		for _, text := range citations(sc.Text()) {
			hits = append(hits, citation{n, text})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return hits
}

// citations returns the citations of this project's issues in one line.
func citations(line string) []string {
	var out []string
	for _, m := range issueRef.FindAllStringIndex(line, -1) {
		if externalBefore.MatchString(line[:m[0]]) {
			continue
		}
		out = append(out, line[m[0]:m[1]])
	}
	return out
}

// moduleRoot is the directory of go.mod above the test's working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/fleetlab/fleet") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/fleetlab/fleet above the test's directory")
		}
		dir = parent
	}
}
