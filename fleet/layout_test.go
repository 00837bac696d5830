package fleet

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The package's size limits: a file over maxFileLines does more than one job, and a function over maxFuncLines
// hides its phases (runBoard was 200 lines of closures before the board run became an object with a method
// per phase). Tests are exempt: their tables are long by nature.
const (
	maxFileLines = 400
	maxFuncLines = 80
)

// TestPackageLayout keeps every non-test file of the package under maxFileLines and every function, from its
// func line to its closing brace, under maxFuncLines.
func TestPackageLayout(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s: %d lines, want at most %d: split it by concern", name, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			from, to := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := to.Line - from.Line + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, want at most %d", name, from.Line, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}
