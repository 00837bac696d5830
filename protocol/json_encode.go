package protocol

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The agent's JSON. encoding/json cost the ARMv5 agent 196,608 B of file (its decoder, encoder caches and the
// time.Time text methods its interfaces keep; measured by building the agent with and without it), which the
// 3 MiB budget cannot afford, so the
// agent encodes with EncodeJSON and decodes with DecodeJSON instead. They cover what this module's wire
// types use — structs with `json:"name,omitempty"` tags, pointers, slices, string-keyed maps, strings, bools,
// integers and floats — and refuse anything else (an embedded struct, a []byte, a channel) rather than guess.
// Their output is byte for byte what json.Marshal writes for the same value, and DecodeJSON fills a value as
// json.Unmarshal does: json_test.go checks both against encoding/json. DecodeLine reads with DecodeJSON too, so
// the controller accepts exactly the lines it accepted with encoding/json (only an error's wording differs).

// ErrUnsupportedJSON is returned for a value EncodeJSON or DecodeJSON does not handle.
var ErrUnsupportedJSON = errors.New("unsupported JSON value")

// EncodeJSON returns the JSON encoding of v, as json.Marshal would (HTML characters escaped, map keys sorted,
// floats in the shortest form that reads back the same).
func EncodeJSON(v any) ([]byte, error) {
	return appendJSON(nil, reflect.ValueOf(v))
}

func appendJSON(b []byte, v reflect.Value) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Float32:
		return appendJSONFloat(b, v.Float(), 32)
	case reflect.Float64:
		return appendJSONFloat(b, v.Float(), 64)
	case reflect.String:
		return appendJSONString(b, v.String()), nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendJSON(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendJSONArray(b, v)
	case reflect.Array:
		return appendJSONArray(b, v)
	case reflect.Map:
		return appendJSONMap(b, v)
	case reflect.Struct:
		return appendJSONStruct(b, v)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupportedJSON, v.Type())
}

func appendJSONArray(b []byte, v reflect.Value) ([]byte, error) {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return nil, fmt.Errorf("%w: %s (encoding/json writes base64)", ErrUnsupportedJSON, v.Type())
	}
	b = append(b, '[')
	for i := range v.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSON(b, v.Index(i)); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendJSONMap(b []byte, v reflect.Value) ([]byte, error) {
	if v.Type().Key() != reflect.TypeFor[string]() {
		return nil, fmt.Errorf("%w: %s (keys other than plain strings)", ErrUnsupportedJSON, v.Type())
	}
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		keys = append(keys, it.Key().String())
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, k), ':')
		var err error
		if b, err = appendJSON(b, v.MapIndex(reflect.ValueOf(k))); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendJSONStruct(b []byte, v reflect.Value) ([]byte, error) {
	fields, err := jsonFields(v.Type())
	if err != nil {
		return nil, err
	}
	b = append(b, '{')
	first := true
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.omitEmpty && jsonEmpty(fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(appendJSONString(b, f.name), ':')
		if b, err = appendJSON(b, fv); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// jsonField is one struct field as encoding/json sees it.
type jsonField struct {
	name      string
	index     int
	omitEmpty bool
}

// jsonFields lists the fields of struct type t that encoding/json encodes, in declaration order.
func jsonFields(t reflect.Type) ([]jsonField, error) {
	var fields []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if sf.Anonymous {
			return nil, fmt.Errorf("%w: embedded field %s in %s", ErrUnsupportedJSON, sf.Name, t)
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !jsonValidName(name) {
			name = sf.Name
		}
		f := jsonField{name: name, index: i}
		switch opts {
		case "omitempty":
			f.omitEmpty = true
		case "":
		default:
			return nil, fmt.Errorf("%w: options %q of field %s in %s", ErrUnsupportedJSON, opts, sf.Name, t)
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// jsonValidName is encoding/json's rule for a tag name it uses (others fall back to the field's name).
func jsonValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// jsonEmpty is omitempty's test: false, 0, a nil pointer or interface, an empty string, slice, array or map.
// A float is empty when it equals zero, -0 included, as in encoding/json.
func jsonEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// appendJSONFloat writes f as encoding/json does: no NaN or infinity, exponent form only for very small or very
// large magnitudes, and a one-digit negative exponent without its leading zero (1e-7, not 1e-07).
func appendJSONFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedJSON, strconv.FormatFloat(f, 'g', -1, bits))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, nil
}

// appendJSONString writes s quoted as encoding/json does with HTML escaping on: <, > and & as \u003c…, control
// characters as \n, \t, … or \u00XX, invalid UTF-8 as \ufffd, and U+2028/U+2029 escaped for JavaScript.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}
