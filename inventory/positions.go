package inventory

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions maps each key path of a document to where it is written, so that errors found after decoding can
// still name file:line:column. It is built by walking go-toml's parser over the same bytes the decoder reads.
type positions struct {
	lineStarts []int            // byte offset of the start of each line
	keys       map[string]int   // path → offset of the key, or of the '[' of a table header
	values     map[string]int   // path → offset of the value (array elements have a "[i]" path element)
	headers    []tableHeader    // in document order, for the context of errors that carry no key
	keyPaths   map[int][]string // offset of a key → its full path (a table header's: its first key part)
	valuePaths map[int][]string // offset of a value → the deepest path that has it
	exprs      []expression     // the top-level expressions, in document order
}

// expression is where a top-level key = value or table header starts.
type expression struct {
	offset   int
	keyValue bool
}

// tableHeader is one [a.b] or [[a.b]] line.
type tableHeader struct {
	offset int
	path   []string
}

// pathKey joins a key path into a map key. NUL cannot be typed in a bare key and is vanishingly rare in a quoted
// one; a collision would only misplace a message.
func pathKey(path ...string) string { return strings.Join(path, "\x00") }

// indexPositions walks data and records where every key and value is. It stops quietly at the first syntax
// error: the decoder reports that error itself, and what was recorded before it still gives context.
func indexPositions(data []byte) *positions {
	ps := &positions{keys: map[string]int{}, values: map[string]int{}, lineStarts: []int{0},
		keyPaths: map[int][]string{}, valuePaths: map[int][]string{}}
	for i, c := range data {
		if c == '\n' {
			ps.lineStarts = append(ps.lineStarts, i+1)
		}
	}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyPath(nil, e)
			ps.keyPaths[firstKeyOffset(e)] = table
			off := headerOffset(data, firstKeyOffset(e))
			ps.headers = append(ps.headers, tableHeader{offset: off, path: table})
			ps.exprs = append(ps.exprs, expression{offset: off})
			for i := 1; i <= len(table); i++ {
				ps.setKey(table[:i], off)
			}
		case unstable.KeyValue:
			ps.exprs = append(ps.exprs, expression{offset: firstKeyOffset(e), keyValue: true})
			ps.keyValue(data, table, e)
		}
	}
	return ps
}

// keyValue records a key = value expression (or an inline table's entry) under the table at prefix.
func (ps *positions) keyValue(data []byte, prefix []string, kv *unstable.Node) {
	path := keyPath(prefix, kv)
	off := firstKeyOffset(kv)
	ps.keyPaths[off] = path
	for i := len(prefix) + 1; i <= len(path); i++ {
		ps.setKey(path[:i], off)
	}
	ps.value(data, path, kv.Value(), valueOffset(data, kv))
}

// value records a value and, for arrays and inline tables, what they contain. Arrays carry no position of
// their own in go-toml's AST: an array that is the value of a key gets the position after the '=', and one
// nested in another array that of its parent.
func (ps *positions) value(data []byte, path []string, v *unstable.Node, fallback int) {
	off := fallback
	if v.Kind != unstable.Array && (v.Raw.Offset != 0 || v.Raw.Length != 0) {
		off = int(v.Raw.Offset)
	}
	if _, ok := ps.values[pathKey(path...)]; !ok {
		ps.values[pathKey(path...)] = off
	}
	if len(path) >= len(ps.valuePaths[off]) {
		ps.valuePaths[off] = path
	}
	switch v.Kind {
	case unstable.Array:
		i := 0
		for it := v.Children(); it.Next(); {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			ps.value(data, appendPath(path, "["+strconv.Itoa(i)+"]"), c, off)
			i++
		}
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				ps.keyValue(data, path, c)
			}
		}
	}
}

// setKey keeps the first place a path appears: that is where a table or board is introduced.
func (ps *positions) setKey(path []string, off int) {
	k := pathKey(path...)
	if _, ok := ps.keys[k]; !ok {
		ps.keys[k] = off
	}
}

// key returns the offset of the key at path, else of its closest recorded parent, else 0.
func (ps *positions) key(path ...string) int {
	for n := len(path); n > 0; n-- {
		if off, ok := ps.keys[pathKey(path[:n]...)]; ok {
			return off
		}
	}
	return 0
}

// value returns the offset of the value at path, else of its key (or its closest parent).
func (ps *positions) valueAt(path ...string) int {
	if off, ok := ps.values[pathKey(path...)]; ok {
		return off
	}
	return ps.key(path...)
}

// lineCol converts a byte offset to a 1-based line and column (columns count bytes, as go-toml's do).
func (ps *positions) lineCol(off int) (line, col int) {
	i := sort.Search(len(ps.lineStarts), func(i int) bool { return ps.lineStarts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, off - ps.lineStarts[i] + 1
}

// offset converts a 1-based line and column back to a byte offset.
func (ps *positions) offset(line, col int) int {
	if line < 1 || line > len(ps.lineStarts) {
		return 0
	}
	return ps.lineStarts[line-1] + col - 1
}

// tableAt returns the path of the table header in effect at off, or nil at the top level.
func (ps *positions) tableAt(off int) []string {
	var path []string
	for _, h := range ps.headers {
		if h.offset > off {
			break
		}
		path = h.path
	}
	return path
}

// keyPath appends the (possibly dotted) key of a table header or key-value node to prefix.
func keyPath(prefix []string, n *unstable.Node) []string {
	path := append([]string(nil), prefix...)
	for it := n.Key(); it.Next(); {
		path = append(path, string(it.Node().Data))
	}
	return path
}

// firstKeyOffset is where the key of a table header or key-value node starts.
func firstKeyOffset(n *unstable.Node) int {
	it := n.Key()
	if !it.Next() {
		return 0
	}
	return int(it.Node().Raw.Offset)
}

// valueOffset is where the value of a key-value node starts: after the last key part, blanks, '=' and blanks.
func valueOffset(data []byte, kv *unstable.Node) int {
	off := 0
	for it := kv.Key(); it.Next(); {
		r := it.Node().Raw
		off = int(r.Offset + r.Length)
	}
	for off < len(data) && strings.IndexByte(" \t=", data[off]) >= 0 {
		off++
	}
	return off
}

// headerOffset moves from the first key of a table header back to its opening bracket.
func headerOffset(data []byte, off int) int {
	for off > 0 && off <= len(data) && strings.IndexByte(" \t[", data[off-1]) >= 0 {
		off--
		if data[off] == '[' && (off == 0 || data[off-1] != '[') {
			break
		}
	}
	return off
}

// blankKeyValue returns a copy of data in which the top-level key = value expression that holds offset off is
// overwritten with spaces, up to the next expression. Newlines stay, so every other offset, line and column is
// unchanged. ok is false when off is not inside a key = value expression (a table header, before the first one).
func (ps *positions) blankKeyValue(data []byte, off int) (_ []byte, ok bool) {
	i := sort.Search(len(ps.exprs), func(i int) bool { return ps.exprs[i].offset > off }) - 1
	if i < 0 || !ps.exprs[i].keyValue {
		return data, false
	}
	end := len(data)
	if i+1 < len(ps.exprs) {
		end = ps.exprs[i+1].offset
	}
	out := append([]byte(nil), data...)
	for j := ps.exprs[i].offset; j < end && j < len(out); j++ {
		if out[j] != '\n' && out[j] != '\r' {
			out[j] = ' '
		}
	}
	return out, true
}

// appendPath returns path+elem without aliasing path's backing array.
func appendPath(path []string, elem ...string) []string {
	return append(append(make([]string, 0, len(path)+len(elem)), path...), elem...)
}
