package protocol

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is encoding/json's nesting limit: deeper input is refused, not recursed into.
const maxJSONDepth = 10000

// errJSONSyntax is the class of DecodeJSON's syntax errors; each names the byte offset at fault.
var errJSONSyntax = errors.New("invalid JSON")

// DecodeJSON stores the JSON value in b into the value v points to, as json.Unmarshal does for the types
// EncodeJSON writes: keys match a field's name exactly or else case-insensitively, unknown keys are skipped,
// null leaves a value as it is (and clears a pointer, slice or map), and a number that does not fit its field
// is an error. On an error v may be partly filled: callers discard it.
func DecodeJSON(b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: decode into %T, not a non-nil pointer", ErrUnsupportedJSON, v)
	}
	d := jsonDecoder{b: b}
	d.space()
	if err := d.value(rv.Elem(), 0); err != nil {
		return err
	}
	if d.space(); d.i < len(d.b) {
		return d.syntax("after the top-level value")
	}
	return nil
}

// jsonDecoder reads one JSON text from b, i being the next byte.
type jsonDecoder struct {
	b []byte
	i int
}

func (d *jsonDecoder) syntax(what string) error {
	if d.i >= len(d.b) {
		return fmt.Errorf("%w: unexpected end of input", errJSONSyntax)
	}
	return fmt.Errorf("%w: character %q at offset %d %s", errJSONSyntax, d.b[d.i], d.i, what)
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

// value decodes the value at d.i into v (a settable value, or the invalid Value to skip it).
// depth is the number of objects and arrays around it.
func (d *jsonDecoder) value(v reflect.Value, depth int) error {
	if d.i >= len(d.b) {
		return d.syntax("")
	}
	c := d.b[d.i]
	if (c == '{' || c == '[') && depth >= maxJSONDepth {
		return fmt.Errorf("%w: nested deeper than %d", errJSONSyntax, maxJSONDepth)
	}
	if c == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		if v.IsValid() {
			switch v.Kind() {
			case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
				v.SetZero()
			}
		}
		return nil
	}
	// a pointer is filled where it points, allocated first when nil
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch {
	case c == '{':
		return d.object(v, depth)
	case c == '[':
		return d.array(v, depth)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return err
		}
		if !v.IsValid() {
			return nil
		}
		if v.Kind() != reflect.String {
			return jsonTypeError("string", v)
		}
		v.SetString(s)
		return nil
	case c == 't' || c == 'f':
		lit := "false"
		if c == 't' {
			lit = "true"
		}
		if err := d.literal(lit); err != nil {
			return err
		}
		if !v.IsValid() {
			return nil
		}
		if v.Kind() != reflect.Bool {
			return jsonTypeError("bool", v)
		}
		v.SetBool(c == 't')
		return nil
	case c == '-' || '0' <= c && c <= '9':
		num, err := d.number()
		if err != nil || !v.IsValid() {
			return err
		}
		return storeJSONNumber(num, v)
	}
	return d.syntax("looking for a value")
}

func (d *jsonDecoder) literal(lit string) error {
	for k := range len(lit) {
		if d.i >= len(d.b) || d.b[d.i] != lit[k] {
			return d.syntax("in literal " + lit)
		}
		d.i++
	}
	return nil
}

func jsonTypeError(what string, v reflect.Value) error {
	return fmt.Errorf("cannot decode JSON %s into %s", what, v.Type())
}

// storeJSONNumber sets v to the number num, refusing one its kind cannot hold.
func storeJSONNumber(num string, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return jsonTypeError("number "+num, v)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return jsonTypeError("number "+num, v)
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(num, v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return jsonTypeError("number "+num, v)
		}
		v.SetFloat(n)
	default:
		return jsonTypeError("number", v)
	}
	return nil
}

// number reads JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonDecoder) number() (string, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.b[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return "", d.syntax("in number")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		if d.i++; digits() == 0 {
			return "", d.syntax("after decimal point in number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return "", d.syntax("in exponent of number")
		}
	}
	return string(d.b[start:d.i]), nil
}

// str reads a quoted string as encoding/json does: invalid UTF-8 and unpaired surrogates become U+FFFD.
func (d *jsonDecoder) str() (string, error) {
	d.i++ // the opening quote
	var out []byte
	for {
		if d.i >= len(d.b) {
			return "", d.syntax("in string")
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < ' ':
			return "", d.syntax("in string")
		case c == '\\':
			if err := d.escape(&out); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			out = utf8.AppendRune(out, r)
			d.i += size
		}
	}
}

func (d *jsonDecoder) escape(out *[]byte) error {
	d.i++
	if d.i >= len(d.b) {
		return d.syntax("in string escape")
	}
	short := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	if c, ok := short[d.b[d.i]]; ok {
		*out = append(*out, c)
		d.i++
		return nil
	}
	if d.b[d.i] != 'u' {
		return d.syntax("in string escape")
	}
	r := d.hex4(d.i + 1)
	if r < 0 {
		d.i++
		return d.syntax("in \\u hexadecimal character escape")
	}
	d.i += 5
	if utf16.IsSurrogate(r) {
		if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
			if r2 := d.hex4(d.i + 2); r2 >= 0 {
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					*out = utf8.AppendRune(*out, dec)
					d.i += 6
					return nil
				}
			}
		}
		r = unicode.ReplacementChar
	}
	*out = utf8.AppendRune(*out, r)
	return nil
}

// hex4 is the value of the four hexadecimal digits at b[at:], or -1.
func (d *jsonDecoder) hex4(at int) rune {
	if at+4 > len(d.b) {
		return -1
	}
	n, err := strconv.ParseUint(string(d.b[at:at+4]), 16, 16)
	if err != nil || d.b[at] == '+' || d.b[at] == '-' {
		return -1
	}
	return rune(n)
}
