package repotext

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The module's size limits: a file over maxFileLines does more than one job, and a function over maxFuncLines
// hides its phases (runBoard was 200 lines of closures before the board run became an object with a method per
// phase). Tests are exempt: their tables are long by nature.
const (
	maxFileLines = 400
	maxFuncLines = 80
)

// longAllowed are the files ("path") and functions ("path:Func", "path:Recv.Method") over the limits on
// purpose or for now, each with why. An entry that is no longer over its limit fails the test, so that the list
// only shrinks: take it out when its split lands.
var longAllowed = map[string]string{
	// Pure tables: none is over the limits today. A function that is only a table (a literal of rows, no logic)
	// may be listed here with what it tabulates; a table with logic around it is split like any function.
}

// sizeFinding is a file or function over its limit.
type sizeFinding struct {
	key   string // the key of longAllowed: "path", or "path:Func", "path:Recv.Method"
	line  int    // where the function starts; 0 for a file
	lines int
}

func (f sizeFinding) String() string {
	if f.line == 0 {
		return fmt.Sprintf("%s: %d lines, want at most %d: split it by concern", f.key, f.lines, maxFileLines)
	}
	path, fn, _ := strings.Cut(f.key, ":")
	return fmt.Sprintf("%s:%d: %s is %d lines, want at most %d: split it into helpers that each do one thing",
		path, f.line, fn, f.lines, maxFuncLines)
}

// oversized returns what in the Go source src of the file path (slash-separated, relative to the module root) is
// over the limits: the file itself, by its newlines, and each function, from its func line to its closing brace.
func oversized(path string, src []byte) ([]sizeFinding, error) {
	var out []sizeFinding
	if n := strings.Count(string(src), "\n"); n > maxFileLines {
		out = append(out, sizeFinding{key: path, lines: n})
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		from, to := fset.Position(fn.Pos()), fset.Position(fn.End())
		if n := to.Line - from.Line + 1; n > maxFuncLines {
			out = append(out, sizeFinding{key: path + ":" + funcName(fn), line: from.Line, lines: n})
		}
	}
	return out, nil
}

// funcName is "Func", or "Recv.Method" for a method (of a pointer or value receiver, type parameters dropped).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch g := t.(type) {
	case *ast.IndexExpr:
		t = g.X
	case *ast.IndexListExpr:
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// judgeSizes splits findings into those longAllowed does not allow, and the entries of allowed that no finding
// needs any more (split already, or gone).
func judgeSizes(findings []sizeFinding, allowed map[string]string) (bad []sizeFinding, stale []string) {
	used := map[string]bool{}
	for _, f := range findings {
		if _, ok := allowed[f.key]; ok {
			used[f.key] = true
			continue
		}
		bad = append(bad, f)
	}
	for k := range allowed {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	slices.Sort(stale)
	return bad, stale
}

// TestModuleLayout keeps every non-test Go file of the module under maxFileLines and every function under
// maxFuncLines, but what longAllowed lists. It walks the tree as the go command does: directories named testdata
// or starting with "." or "_" hold no package.
func TestModuleLayout(t *testing.T) {
	root := moduleRoot(t)
	var findings []sizeFinding
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		found, err := oversized(filepath.ToSlash(rel), src)
		if err != nil {
			return err
		}
		files++
		findings = append(findings, found...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: the walk missed the module", files, root)
	}
	bad, stale := judgeSizes(findings, longAllowed)
	for _, f := range bad {
		t.Error(f)
	}
	for _, k := range stale {
		t.Errorf("longAllowed lists %s, which is within its limit now (or gone): take it out of the list", k)
	}
}

// TestOversized proves the checker on synthetic sources: a function of maxFuncLines+1 lines (plain, and as a
// method) and a file of maxFileLines+1 lines are found, with where and how long; maxFuncLines and maxFileLines
// exactly are not.
func TestOversized(t *testing.T) {
	body := func(name string, lines int) string { // a function of exactly lines lines
		return name + " {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package x\n\ntype T struct{}\n\n" + // lines 1–4
		body("func ok()", maxFuncLines) + // from line 5
		body("func long()", maxFuncLines+1) + // from line 5+maxFuncLines
		body("func (t *T) long()", maxFuncLines+1) + // from line 5+2*maxFuncLines+1
		strings.Repeat("//\n", maxFileLines+1-(4+3*maxFuncLines+2)) // to maxFileLines+1 lines
	got, err := oversized("x/x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []sizeFinding{
		{key: "x/x.go", lines: maxFileLines + 1},
		{key: "x/x.go:long", line: 5 + maxFuncLines, lines: maxFuncLines + 1},
		{key: "x/x.go:T.long", line: 5 + 2*maxFuncLines + 1, lines: maxFuncLines + 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("oversized = %v, want %v", got, want)
	}
	if got[1].String() != fmt.Sprintf("x/x.go:%d: long is %d lines, want at most %d: split it into helpers that each do one thing",
		5+maxFuncLines, maxFuncLines+1, maxFuncLines) {
		t.Errorf("message %q does not name file:line, function and length", got[1])
	}

	short := "package x\n\n" + body("func ok()", maxFuncLines) + strings.Repeat("\n", maxFileLines-2-maxFuncLines)
	if n := strings.Count(short, "\n"); n != maxFileLines {
		t.Fatalf("synthetic file of %d lines, want %d", n, maxFileLines)
	}
	if got, err := oversized("x/y.go", []byte(short)); err != nil || len(got) != 0 {
		t.Errorf("oversized(file of %d lines, function of %d) = %v, %v; want nothing", maxFileLines, maxFuncLines, got, err)
	}
	if _, err := oversized("x/z.go", []byte("package x\nfunc {")); err == nil {
		t.Error("oversized accepted a file that does not parse")
	}
}

// TestJudgeSizes: a finding the list does not allow is bad, one it allows is not, and an entry no finding needs is
// stale.
func TestJudgeSizes(t *testing.T) {
	findings := []sizeFinding{{key: "a.go:F", line: 3, lines: 90}, {key: "b.go", lines: 420}}
	bad, stale := judgeSizes(findings, map[string]string{"b.go": "table", "c.go:G": "split elsewhere"})
	if !slices.Equal(bad, findings[:1]) {
		t.Errorf("bad = %v, want %v", bad, findings[:1])
	}
	if !slices.Equal(stale, []string{"c.go:G"}) {
		t.Errorf("stale = %q, want c.go:G", stale)
	}
}
