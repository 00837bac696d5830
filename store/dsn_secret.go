package store

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// A password given in a connection string must never reach a message. Two defences, because neither alone is
// enough: checkUserinfo refuses a URL whose user and password cannot be told from the rest with certainty
// (pgx reads them as libpq does, up to the first '@'; net/url to the last one before a '/', '?' or '#'; so
// "u:Ab@CdSECRET@host" makes "CdSECRET@host" a host name that every dial error then prints), and Scrub takes
// every spelling of every password a string carries out of an error's text, whatever printed it (pgx's parse
// errors quote the offending token; its connect errors name the host and user).

// ErrUnsafeURL wraps the refusal of a URL whose password is not percent-encoded where it must be. It also
// wraps ErrCannotOpen: nothing was opened, and the CLI exits 2.
var ErrUnsafeURL = errors.New("percent-encode the password")

// checkUserinfo refuses a PostgreSQL URL where the end of the password is not certain: more than one '@', or a
// '/', '?', '#' or a '%' that starts no %XX escape before the '@'. Each reads differently to libpq, pgx and
// net/url, and a misread password becomes a host, a database or a query parameter that messages show. The
// refusal names what is wrong and prints nothing of the URL. A keyword/value string is not a URL: pgx reads its
// quoting alone, and Scrub covers its password.
func checkUserinfo(dsn string) error {
	rest, ok := urlAfterScheme(dsn)
	if !ok {
		return nil
	}
	n := strings.Count(rest, "@")
	if n == 0 {
		return nil
	}
	info := rest[:strings.IndexByte(rest, '@')]
	var what string
	switch {
	case n > 1:
		what = "more than one '@'"
	case strings.ContainsAny(info, "/?#"):
		what = "a '/', '?' or '#' before its '@'"
	case badEscape(info):
		what = "a '%' that is no %XX escape before its '@'"
	default:
		return nil
	}
	return &kindError{ErrCannotOpen, fmt.Errorf("the URL has %s, so where its password ends is not certain: "+
		"%w (@ as %%40, # as %%23, ? as %%3F, / as %%2F, %% as %%25), or give it in PGPASSWORD or ~/.pgpass",
		what, ErrUnsafeURL)}
}

// urlAfterScheme is what follows "postgres:" or "postgresql:" (and its "//"), wherever the scheme starts (an
// argument such as --db=postgres://…), and whether dsn has such a scheme at all.
func urlAfterScheme(dsn string) (string, bool) {
	lower := strings.ToLower(dsn)
	for _, scheme := range []string{"postgresql:", "postgres:"} {
		if j := strings.Index(lower, scheme); j >= 0 {
			rest := dsn[j+len(scheme):]
			for range 2 {
				rest = strings.TrimPrefix(rest, "/")
			}
			return rest, true
		}
	}
	return "", false
}

// badEscape reports a '%' in s that does not start a %XX escape.
func badEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return true
		}
	}
	return false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// passwordParamRE finds a password parameter: in a URL's query (up to '&') or a keyword/value string (quoted
// or up to white space).
var passwordParamRE = regexp.MustCompile(`(?i)password\s*=\s*('(?:[^'\\]|\\.)*'|[^&\s]+)`)

// secrets are the spellings in which the passwords dsn carries could appear in a message: as written and as
// decoded, from a URL's user info (after the first ':', up to the first '@' as libpq reads it, up to the last
// as net/url does, and each piece between those '@') and from every password parameter.
func secrets(dsn string) []string {
	var raw []string
	if rest, ok := urlAfterScheme(dsn); ok {
		if first := strings.IndexByte(rest, '@'); first >= 0 {
			widest := afterColon(rest[:strings.LastIndexByte(rest, '@')])
			raw = append(raw, afterColon(rest[:first]), widest)
			raw = append(raw, strings.Split(widest, "@")...) // "Ab@Cd": a host "Cd@h" shows Cd
		}
	}
	for _, m := range passwordParamRE.FindAllStringSubmatch(dsn, -1) {
		raw = append(raw, m[1], strings.Trim(m[1], "'"))
	}
	var out []string
	for _, s := range raw {
		out = append(out, s)
		if d, err := url.PathUnescape(s); err == nil {
			out = append(out, d)
		}
		if d, err := url.QueryUnescape(s); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// afterColon is the password part of a user info: what follows its first ':', or "" without one.
func afterColon(info string) string {
	_, pw, _ := strings.Cut(info, ":")
	return pw
}

// Scrub returns err with every password that the connection strings dsns carry (see secrets) replaced by ***
// in its text; errors.Is and errors.As still see what it wraps. A nil err stays nil. Every error that opening a
// PostgreSQL database returns has been through it; the CLI passes its whole error through it again with every
// argument and FLEET_DB, so that no path that quotes a connection string can show its password.
func Scrub(err error, dsns ...string) error {
	var all []string
	for _, d := range dsns {
		all = append(all, secrets(d)...)
	}
	return scrubSecrets(err, all...)
}

// scrubSecrets replaces each secret in err's text by ***, the longest first (one may contain another).
func scrubSecrets(err error, secret ...string) error {
	if err == nil {
		return nil
	}
	secret = slices.DeleteFunc(slices.Clone(secret), func(s string) bool { return s == "" })
	slices.SortFunc(secret, func(a, b string) int { return len(b) - len(a) })
	msg := err.Error()
	clean := msg
	for _, s := range secret {
		clean = strings.ReplaceAll(clean, s, "***")
	}
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrubbedError is an error whose text had a password taken out.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
