package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// modulePatterns returns the source of every MustPattern call in this package, opensslspeed and the agent, read from the
// code itself so that a new pattern is checked without being listed here. A pattern built from constants
// (`(` + speedNumPat + `)`) is evaluated with the package-level string constants of its directory.
func modulePatterns(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{".", "../opensslspeed", "../agent"} {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		consts := map[string]ast.Expr{}
		var calls []ast.Expr
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, id := range n.Names {
						if i < len(n.Values) {
							consts[id.Name] = n.Values[i]
						}
					}
				case *ast.CallExpr:
					if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "MustPattern" && len(n.Args) == 1 {
						calls = append(calls, n.Args[0])
					}
					if fn, ok := n.Fun.(*ast.SelectorExpr); ok && fn.Sel.Name == "MustPattern" && len(n.Args) == 1 {
						calls = append(calls, n.Args[0])
					}
				}
				return true
			})
		}
		var eval func(e ast.Expr) string
		eval = func(e ast.Expr) string {
			switch e := e.(type) {
			case *ast.BasicLit:
				s, err := strconv.Unquote(e.Value)
				if err != nil {
					t.Fatalf("pattern literal %s: %v", e.Value, err)
				}
				return s
			case *ast.BinaryExpr:
				return eval(e.X) + eval(e.Y)
			case *ast.Ident:
				if c, ok := consts[e.Name]; ok {
					return eval(c)
				}
			}
			t.Fatalf("pattern %T at %v is not a string constant", e, fset.Position(e.Pos()))
			return ""
		}
		for _, c := range calls {
			out = append(out, eval(c))
		}
	}
	if len(out) < 54 {
		t.Fatalf("found %d patterns, want the 54 or more of protocol, opensslspeed and the agent", len(out))
	}
	return out
}

// patternInputs are the lines of every capture in the repository's testdata, and lines built to hit the edges.
func patternInputs(t testing.TB) []string {
	t.Helper()
	in := []string{"", " ", "\n", "a\nb", "\xff", "K\u212a\u017fs", "engine \"x\" set engine \"y\" SET",
		"provider=default, ?provider = \"fips\",PROVIDER=a\u212a", "OpenSSL 3.0.2 15 Mar 2022 LibreSSL 2.8.3",
		"40D7E4A5C17F0000:error:0308010C", "x\n  USE_SOFTDRIVERS: 2 [default=1]\nUSE_SOFTDRIVERS:[default=22]",
		"Doing aes-128-cbc for 3s on 16 size blocks: 1000 aes-128-cbc's in 2.99s",
		"rsa 2048 bits 0.000712s 0.000021s   1404.5  47619.0", "123.45k" + strings.Repeat(" 1.00", 50),
		strings.Repeat("a", 3000) + " in 1s", strings.Repeat(" ", 2000) + "in", "[root@b]# sudo openssl speed -evp aes",
	}
	for _, dir := range []string{"testdata", "../opensslspeed/testdata", "../agent/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			in = append(in, string(b))
			in = append(in, strings.Split(string(b), "\n")...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(in)
	return slices.Compact(in)
}

// checkPattern requires Pattern to answer as package regexp does for expr on s.
func checkPattern(t *testing.T, expr string, p *Pattern, re *regexp.Regexp, s string) {
	t.Helper()
	if got, want := p.MatchString(s), re.MatchString(s); got != want {
		t.Fatalf("%s MatchString(%q) = %v, regexp %v", expr, s, got, want)
	}
	if got, want := p.FindStringSubmatch(s), re.FindStringSubmatch(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s FindStringSubmatch(%q) = %q, regexp %q", expr, s, got, want)
	}
	if got, want := p.FindAllStringSubmatch(s, -1), re.FindAllStringSubmatch(s, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s FindAllStringSubmatch(%q) = %q, regexp %q", expr, s, got, want)
	}
	if got, want := p.FindAllStringSubmatch(s, 1), re.FindAllStringSubmatch(s, 1); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s FindAllStringSubmatch(%q, 1) = %q, regexp %q", expr, s, got, want)
	}
	if got, want := p.ReplaceAllLiteralString(s, "<$1>"), re.ReplaceAllLiteralString(s, "<$1>"); got != want {
		t.Fatalf("%s ReplaceAllLiteralString(%q) = %q, regexp %q", expr, s, got, want)
	}
}

// TestPatternsAgainstRegexp runs every pattern of the module over every line of the captures in testdata.
func TestPatternsAgainstRegexp(t *testing.T) {
	inputs := patternInputs(t)
	for _, expr := range modulePatterns(t) {
		p, re := MustPattern(expr), regexp.MustCompile(expr)
		for _, s := range inputs {
			checkPattern(t, expr, p, re, s)
		}
	}
}

// TestPatternSyntax: the constructs of the subset, each against package regexp, and what it refuses.
func TestPatternSyntax(t *testing.T) {
	for _, expr := range []string{`a|b|`, `(a)(?:b)?(c)*`, `x{2}y{1,3}?z{2,}`, `(?i)[^"k]+K`, `(?m)^a$`, `^$`,
		`a*?b`, `(a*)+$`, `[\d.]+|[\]x-]`, `\S\W\D\w\s\.\t`, `(?:^|,)\s*(\w*)`, `é.`, `(?i)\w+ſ`, `\bx\b|\Bb\B`, `(?i)\bOops\b`} {
		p, re := MustPattern(expr), regexp.MustCompile(expr)
		for _, s := range []string{"", "ab", "aab\nab", "xxyyyzz", "kK\u212a\"", "a\nb\n", "1.2]x-", "\xffé\n",
			",a, bb,", "aaaaab", "sſS", "x", "a x", "xa x_", "abc", "ax b", " oops! OOPSy"} {
			checkPattern(t, expr, p, re, s)
		}
	}
	for _, expr := range []string{`(?P<x>a)`, `[\b]x`, `a**`, `[a`, `(a`, `a)`, `\pL`, `x{3,2}`, `[\d-z]`, `\`} {
		if _, err := compilePattern(expr); err == nil {
			t.Errorf("compilePattern(%q) accepted a pattern outside the subset", expr)
		}
	}
}

// FuzzPatternsAgainstRegexp: any text, every pattern, the same answers as package regexp.
func FuzzPatternsAgainstRegexp(f *testing.F) {
	exprs := modulePatterns(f)
	for _, s := range patternInputs(f)[:200] {
		f.Add(s)
	}
	pats, res := make([]*Pattern, len(exprs)), make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		pats[i], res[i] = MustPattern(e), regexp.MustCompile(e)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, e := range exprs {
			checkPattern(t, e, pats[i], res[i], s)
		}
	})
}
