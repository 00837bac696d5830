package repotext

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A package's file map is a paragraph of its doc.go that starts with the line "// Files:" and lists, one item a
// file or a few, every non-test .go file of the package but doc.go:
//
//	// Files:
//	//
//	//   - median.go: Median, Sorted, …;
//	//   - kernel.go, kernel_parse.go: the kernel's log …
//
// An item's names are the comma-separated names before its first colon; lines indented further continue it.
// The map must name no file that is gone and miss none that exists.

// unmappedPackages have a doc.go without a file map (their doc names files in prose, or has none to name). A
// package leaves this list by getting a map; one with a doc.go in neither group fails, so that adding a
// package, or a map, is a decision.
var unmappedPackages = []string{"agent", "bench/sshbench", "e2e", "fleet", "internal/atomicfile",
	"internal/repotext", "internal/sshlab", "internal/sshtest", "inventory", "opensslspeed", "precision", "reftable",
	"report", "serve", "store", "transport", "transport/ssh", "validity"}

// fileMap returns the names a doc comment's file map lists, and whether it has one.
func fileMap(doc string) ([]string, bool) {
	var names []string
	in, found := false, false
	for line := range strings.SplitSeq(doc, "\n") {
		text, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), "//")
		if !ok {
			in = false
			continue
		}
		if strings.TrimSpace(text) == "Files:" {
			in, found = true, true
			continue
		}
		if !in {
			continue
		}
		item, isItem := strings.CutPrefix(text, "   - ")
		switch {
		case isItem:
			head, _, _ := strings.Cut(item, ":")
			for n := range strings.SplitSeq(head, ",") {
				names = append(names, strings.TrimSpace(n))
			}
		case text == "" || strings.HasPrefix(text, "     "): // a blank line or an item's continuation
		default:
			in = false // the map's paragraph ended
		}
	}
	return names, found
}

// checkFileMap compares a map's names with the package's files and returns what is wrong, one message each.
func checkFileMap(mapped, files []string) []string {
	var bad []string
	for _, n := range mapped {
		if !slices.Contains(files, n) {
			bad = append(bad, "names "+n+", which is not a non-test file of the package")
		}
	}
	for _, f := range files {
		if !slices.Contains(mapped, f) {
			bad = append(bad, "misses "+f)
		}
	}
	return bad
}

func TestFileMapParse(t *testing.T) {
	doc := "// Package x does y.\n//\n// Files:\n//\n//   - a.go: A;\n//   - b.go, c_linux.go: B and\n//     more;\n" +
		"//\n// After the map: d.go is prose.\npackage x\n"
	names, ok := fileMap(doc)
	if !ok || !slices.Equal(names, []string{"a.go", "b.go", "c_linux.go"}) {
		t.Fatalf("fileMap = %q, %v; want a.go, b.go, c_linux.go", names, ok)
	}
	if _, ok := fileMap("// Package x names a.go in prose.\npackage x\n"); ok {
		t.Errorf("a doc without \"Files:\" has a map")
	}
	got := checkFileMap(names, []string{"a.go", "c_linux.go", "e.go"})
	want := []string{"names b.go, which is not a non-test file of the package", "misses e.go"}
	if !slices.Equal(got, want) {
		t.Errorf("checkFileMap = %q, want %q", got, want)
	}
}

// TestDocFileMaps: every doc.go's file map is the package's files, and every package with a doc.go either has a
// map or is listed in unmappedPackages.
func TestDocFileMaps(t *testing.T) {
	root := moduleRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "*", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	deeper, _ := filepath.Glob(filepath.Join(root, "*", "*", "doc.go"))
	docs = append(docs, deeper...)
	mapped := 0
	for _, doc := range docs {
		dir := filepath.Dir(doc)
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		names, ok := fileMap(string(b))
		listed := slices.Contains(unmappedPackages, rel)
		switch {
		case ok && listed:
			t.Errorf("%s/doc.go has a file map: take %s out of unmappedPackages", rel, rel)
		case !ok && !listed:
			t.Errorf("%s/doc.go has no file map (\"// Files:\" and \"//   - name.go: …\"): add one, or list %s in unmappedPackages", rel, rel)
		}
		if !ok {
			continue
		}
		mapped++
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, e := range entries {
			if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && n != "doc.go" {
				files = append(files, n)
			}
		}
		for _, msg := range checkFileMap(names, files) {
			t.Errorf("%s/doc.go: the file map %s", rel, msg)
		}
	}
	for _, p := range unmappedPackages {
		if _, err := os.Stat(filepath.Join(root, p, "doc.go")); err != nil {
			t.Errorf("unmappedPackages lists %s, which has no doc.go", p)
		}
	}
	if mapped < 3 {
		t.Errorf("%d packages have a file map, want at least protocol, report/stats and verify", mapped)
	}
}
