package inventory

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	toml "github.com/pelletier/go-toml/v2"
)

// Sentinel errors that callers may test with errors.Is.
var (
	// ErrUnknownBoard: a name given to Select is not in the inventory.
	ErrUnknownBoard = errors.New("unknown board")
	// ErrUnknownTag: no board carries a tag given to Select.
	ErrUnknownTag = errors.New("unknown tag")
	// ErrNoBoards: the selection is empty.
	ErrNoBoards = errors.New("no boards selected")
	// ErrUnknownProfile: no built-in or file profile has the name.
	ErrUnknownProfile = errors.New("unknown profile")
)

// Error is one problem in a boards.toml, at a position. Parse returns several of them joined with errors.Join
// so that a user can fix them in one pass.
type Error struct {
	File   string
	Line   int // 1-based
	Column int // 1-based, in bytes
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// problems collects positioned errors while a document is checked.
type problems struct {
	file string
	pos  *positions
	errs []*Error
	offs []int
}

// add records a problem at byte offset off. ctx is "board \"x\"", "defaults", "profile \"y\"" or "".
func (ps *problems) add(off int, ctx, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if ctx != "" {
		msg = ctx + ": " + msg
	}
	line, col := ps.pos.lineCol(off)
	ps.errs = append(ps.errs, &Error{File: ps.file, Line: line, Column: col, Msg: msg})
	ps.offs = append(ps.offs, off)
}

// err returns the problems in document order, joined, or nil.
func (ps *problems) err() error {
	if len(ps.errs) == 0 {
		return nil
	}
	idx := make([]int, len(ps.errs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if ps.offs[idx[a]] != ps.offs[idx[b]] {
			return ps.offs[idx[a]] < ps.offs[idx[b]]
		}
		return ps.errs[idx[a]].Msg < ps.errs[idx[b]].Msg
	})
	var errs []error
	seen := map[string]bool{}
	for _, i := range idx {
		if s := ps.errs[i].Error(); !seen[s] {
			seen[s] = true
			errs = append(errs, ps.errs[i])
		}
	}
	return errors.Join(errs...)
}

// context names the part of the document a key path belongs to.
func context(path []string) string {
	switch {
	case len(path) >= 1 && path[0] == "defaults":
		return "defaults"
	case len(path) >= 2 && path[0] == "boards":
		return fmt.Sprintf("board %q", path[1])
	case len(path) >= 2 && path[0] == "profiles":
		return fmt.Sprintf("profile %q", path[1])
	}
	return ""
}

// addDecodeError turns an error of go-toml's decoder into problems that name the board or profile and say what
// was expected, instead of go-toml's Go type names. It returns the offset of the (last) problem it added.
func (ps *problems) addDecodeError(err error) int {
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &strict):
		for i := range strict.Errors {
			ps.addUnknownKey(&strict.Errors[i])
		}
		return 0
	case errors.As(err, &de):
		line, col := de.Position()
		off := ps.pos.offset(line, col)
		path := []string(de.Key())
		if len(path) == 0 || context(path) == "" && !slices.Contains(rootKeys, path[0]) {
			// Syntax errors and duplicate keys carry no full path: take the table being defined.
			path = ps.pos.tableAt(off)
		} else if p := ps.pos.valuePaths[off]; len(p) > len(path) && slices.Equal(p[:len(path)], path) {
			// A wrong element inside an array or inline table: name the element, not its container.
			path = p
		} else if off == 0 {
			// go-toml points at the start of the document for values without a position, such as arrays.
			off = ps.pos.valueAt(path...)
		}
		if m := tomlRangeRE.FindStringSubmatch(strings.TrimPrefix(de.Error(), "toml: ")); m != nil {
			if p, ok := ps.pos.valuePaths[off]; ok {
				path = p
			}
			what := "a number"
			if m[1] == "integer" {
				what = "a 64-bit integer"
			}
			ps.add(off, context(path), "%s: %s is out of range for %s", displayKey(path), sanitize(m[2]), what)
			return off
		}
		ps.add(off, context(path), "%s", describeDecodeError(de, path))
		return off
	default:
		ps.add(0, "", "%s", sanitize(strings.TrimPrefix(err.Error(), "toml: ")))
		return 0
	}
}

// addUnknownKey reports a key that the schema does not have, with the keys that are allowed there.
func (ps *problems) addUnknownKey(de *toml.DecodeError) {
	line, col := de.Position()
	off := ps.pos.offset(line, col)
	path := []string(de.Key())
	if p, ok := ps.pos.keyPaths[off]; ok {
		path = p // go-toml gives only part of the path of some tables
	}
	key, allowed := unknownKey(path)
	msg := fmt.Sprintf("unknown key %q", key)
	if s := suggest(key, allowed); len(s) > 0 {
		msg += ", did you mean " + quoteOr(s) + "?"
	}
	if len(allowed) > 0 {
		msg += " (expected one of " + strings.Join(allowed, ", ") + ")"
	}
	ps.add(off, context(path), "%s", msg)
}

// unknownKey finds the first element of path that the schema does not have, and what it allows there.
func unknownKey(path []string) (string, []string) {
	if len(path) == 0 {
		return "", nil
	}
	if !slices.Contains(rootKeys, path[0]) {
		return path[0], rootKeys
	}
	depth, allowed := 2, boardKeys // [boards.NAME] KEY
	switch path[0] {
	case "defaults":
		depth, allowed = 1, defaultsKeys
	case "profiles":
		allowed = profileKeys
	}
	if depth < len(path) && !slices.Contains(allowed, path[depth]) {
		return path[depth], allowed
	}
	if depth+1 < len(path) && path[depth] == "validity" && !slices.Contains(validityKeys, path[depth+1]) {
		return path[depth+1], validityKeys
	}
	if depth+1 < len(path) && path[depth] == "kernel_log" && !slices.Contains(kernelLogKeys, path[depth+1]) {
		return path[depth+1], kernelLogKeys
	}
	return path[len(path)-1], nil
}

var (
	tomlKindRE      = regexp.MustCompile(`^cannot (?:decode TOML (.+?) into|store (?:a|an) (.+?) in) `)
	tomlDuplicateRE = regexp.MustCompile(`^key .* is already defined$`)
	// go-toml passes strconv's refusal of a number too large for its type through as text
	tomlRangeRE = regexp.MustCompile(`^unable to parse (float|integer): strconv\.Parse\w+: parsing "(.*)": value out of range$`)
)

// isRangeError reports a number too large (or too small) for any value of its type, such as 1e400: a value,
// not a syntax error, so the rest of the file is still checked.
func isRangeError(de *toml.DecodeError) bool {
	return tomlRangeRE.MatchString(strings.TrimPrefix(de.Error(), "toml: "))
}

// isTypeError reports a value of the wrong type, as opposed to a syntax error or a duplicate key.
func isTypeError(de *toml.DecodeError) bool {
	return len(de.Key()) > 0 && tomlKindRE.MatchString(strings.TrimPrefix(de.Error(), "toml: "))
}

// describeDecodeError rewrites a type mismatch as "KEY: expected TYPE, got KIND"; other messages pass through.
func describeDecodeError(de *toml.DecodeError, path []string) string {
	msg := sanitize(strings.TrimPrefix(de.Error(), "toml: "))
	if k := de.Key(); len(k) > 0 && tomlDuplicateRE.MatchString(msg) {
		return fmt.Sprintf("duplicate key %q (a key may be set only once in a table)", k[len(k)-1])
	}
	m := tomlKindRE.FindStringSubmatch(msg)
	if m == nil || len(de.Key()) == 0 {
		return msg
	}
	got := m[1] + m[2]
	article := "a "
	if strings.IndexByte("aeiou", got[0]) >= 0 {
		article = "an "
	}
	if k := displayKey(path); k != "" {
		return fmt.Sprintf("%s: expected %s, got %s", k, expectedType(path), article+got)
	}
	return fmt.Sprintf("expected %s, got %s", expectedType(path), article+got)
}

// displayKey is how a key is named after its context: `port`, `env.OPENSSL_CONF`, the whole path at the root,
// or "" for a board or profile table itself (the context already names it).
func displayKey(path []string) string {
	switch {
	case len(path) >= 1 && path[0] == "defaults":
		path = path[1:]
	case len(path) >= 2 && (path[0] == "boards" || path[0] == "profiles"):
		path = path[2:]
	}
	var b strings.Builder
	for i, p := range path {
		switch {
		case strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]"):
		case !bareKeyRE.MatchString(p):
			p = strconv.Quote(p)
			fallthrough
		case i > 0:
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return strings.TrimPrefix(b.String(), ".")
}

var bareKeyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// sanitize escapes control characters and invalid UTF-8 so that a message from the TOML parser, which may quote
// the document, stays on one line and cannot drive a terminal.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\ufffd") {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
