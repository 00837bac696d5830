package fleet

import (
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/fleetlab/fleet/protocol"
)

// A board's facts are what its tools printed: a board can print anything, as long as it fits a protocol line
// (1 MiB) or a shell record (1 MiB). So every string of the facts is capped as the controller receives them,
// before they are judged, stored or printed: a value longer than its field's limit keeps its first bytes (at a
// UTF-8 boundary) and ends with a marker saying how much was cut, "…(199,745 more bytes)". Control characters
// are kept (the stored fact is what the board said); every text renderer makes them visible (report.Printable).
//
// The limits, in bytes, by the field's path in protocol.Facts (a map's or a slice's values share their field's
// limit); every other string has defaultFactLimit. Each is the real-world maximum with a margin, so that no
// honest board loses a byte.
var factLimits = map[string]int{
	"Hostname":          255,     // POSIX's HOST_NAME_MAX floor and a DNS name's length (Linux's own is 64)
	"Kernel":            64 + 16, // uname -r: Linux's release field is 64 bytes
	"Machine":           64 + 16, // uname -m, the same field size
	"Uname":             512,     // uname -a: five fields of Linux's 65 bytes, with a margin
	"BootID":            64,      // a UUID is 36
	"OpenSSL":           256,     // "OpenSSL 3.0.19 27 Jan 2026"
	"OpenSSLVersion":    64,
	"OpenSSLBuild":      8 << 10, // openssl version -a, whole: about 1 KiB, 3 KiB with a long CFLAGS line
	"OpenSSLPath":       4096,    // PATH_MAX
	"OpenSSLConf":       4096,
	"KernelCmdline":     4096, // COMMAND_LINE_SIZE is 2048 on arm64 and x86, 4096 at most
	"Modules":           64,   // MODULE_NAME_LEN is 56
	"CPU.Model":         256,
	"CPU.Features":      32,
	"ProcCrypto.Name":   128, // CRYPTO_MAX_ALG_NAME
	"ProcCrypto.Driver": 128,
	"ProcCrypto.Module": 64,
}

// defaultFactLimit bounds every string without a limit of its own: a reason, an error, a /proc/crypto type, an
// engine's status. The agent's own errors quote at most 400 bytes of a tool's stderr.
const defaultFactLimit = 1024

// capFacts caps every string of f in place (see factLimits).
func capFacts(f *protocol.Facts) {
	if f != nil {
		capValue(reflect.ValueOf(f).Elem(), "")
	}
}

func capValue(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		limit, ok := factLimits[path]
		if !ok {
			limit = defaultFactLimit
		}
		if s := v.String(); len(s) > limit {
			v.SetString(capString(s, limit))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			capValue(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if sf := v.Type().Field(i); sf.IsExported() {
				capValue(v.Field(i), join(path, sf.Name))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			capValue(v.Index(i), path)
		}
	case reflect.Map:
		if v.IsNil() || v.Type().Key().Kind() != reflect.String {
			return
		}
		capped := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(capString(iter.Key().String(), defaultFactLimit))
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			capValue(e, path)
			capped.SetMapIndex(k, e)
		}
		v.Set(capped)
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// capString is s cut to at most limit bytes at a UTF-8 boundary, with the marker of what was cut.
func capString(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…(" + thousands(len(s)-n) + " more bytes)"
}

// thousands is n with a comma between each group of three digits: 199,745.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
