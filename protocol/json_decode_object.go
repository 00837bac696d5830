package protocol

import (
	"reflect"
	"unicode"
	"unicode/utf8"
)

// object decodes a JSON object into a struct (by field name) or a string-keyed map (each value decoded from
// its zero value), or skips it when v is invalid.
func (d *jsonDecoder) object(v reflect.Value, depth int) error {
	var fields []jsonField
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.Struct:
		var err error
		if fields, err = jsonFields(v.Type()); err != nil {
			return err
		}
	case v.Kind() == reflect.Map && v.Type().Key() == reflect.TypeFor[string]():
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
	default:
		return jsonTypeError("object", v)
	}
	d.i++ // the opening brace
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return nil
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return d.syntax("looking for the beginning of an object key string")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return d.syntax("after object key")
		}
		d.i++
		d.space()
		if err := d.member(v, fields, key, depth); err != nil {
			return err
		}
		d.space()
		if d.i < len(d.b) && d.b[d.i] == ',' {
			d.i++
			d.space()
			continue
		}
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return nil
		}
		return d.syntax("after object key:value pair")
	}
}

// member decodes the value of key into its place in v.
func (d *jsonDecoder) member(v reflect.Value, fields []jsonField, key string, depth int) error {
	if !v.IsValid() {
		return d.value(reflect.Value{}, depth+1)
	}
	if v.Kind() == reflect.Map {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(elem, depth+1); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(key), elem)
		return nil
	}
	return d.value(jsonFieldFor(v, fields, key), depth+1)
}

// jsonFieldFor is the field of struct v that key names: the exact name first, else the first whose name folds
// to the key's, else the invalid Value (the member is skipped).
func jsonFieldFor(v reflect.Value, fields []jsonField, key string) reflect.Value {
	for _, f := range fields {
		if f.name == key {
			return v.Field(f.index)
		}
	}
	folded := jsonFoldName(key)
	for _, f := range fields {
		if jsonFoldName(f.name) == folded {
			return v.Field(f.index)
		}
	}
	return reflect.Value{}
}

// jsonFoldName is encoding/json's case folding of a name: ASCII upper case, and for other runes the upper case
// of their lower case (so the Kelvin sign matches k).
func jsonFoldName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return string(out)
}

// array decodes a JSON array into a slice (grown as needed, cut to the elements read, empty rather than nil)
// or an array (the rest zeroed), or skips it when v is invalid.
func (d *jsonDecoder) array(v reflect.Value, depth int) error {
	if v.IsValid() && v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return jsonTypeError("array", v)
	}
	if v.IsValid() && v.Type().Elem().Kind() == reflect.Uint8 {
		return jsonTypeError("array", v) // encoding/json reads base64 there, which EncodeJSON never writes
	}
	d.i++ // the opening bracket
	d.space()
	n := 0
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
	} else {
		for ; ; n++ {
			var elem reflect.Value
			if v.IsValid() {
				if v.Kind() == reflect.Slice {
					if n >= v.Cap() {
						v.Grow(1)
					}
					if n >= v.Len() {
						v.SetLen(n + 1)
					}
				}
				if n < v.Len() {
					elem = v.Index(n)
				}
			}
			if err := d.value(elem, depth+1); err != nil {
				return err
			}
			d.space()
			if d.i < len(d.b) && d.b[d.i] == ',' {
				d.i++
				d.space()
				continue
			}
			if d.i < len(d.b) && d.b[d.i] == ']' {
				d.i++
				n++
				break
			}
			return d.syntax("after array element")
		}
	}
	if !v.IsValid() {
		return nil
	}
	if n < v.Len() {
		if v.Kind() == reflect.Array {
			for k := n; k < v.Len(); k++ {
				v.Index(k).SetZero()
			}
		} else {
			v.SetLen(n)
		}
	}
	if n == 0 && v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	return nil
}
