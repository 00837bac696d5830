package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCheckUserinfo: a URL's user info is accepted only where every reader ends the password at the same '@'.
func TestCheckUserinfo(t *testing.T) {
	for _, tt := range []struct {
		dsn string
		ok  bool
	}{
		{"postgres://fleet:pw@db/fleet", true},
		{"postgres://fleet@db/fleet?sslmode=require", true},
		{"postgres://db/fleet", true},
		{"postgres://fleet:Ab%40Cd%23%3F%25@db/fleet", true},
		{"postgres://fleet:a:b@db/fleet", true}, // the first ':' ends the user for every reader
		{"host=db user=fleet password=a@b@c", true},
		{"postgres://fleet:Ab@Cd@db/fleet", false},
		{"postgres://fleet:pw@db/fleet?application_name=a@b", false},
		{"postgres://fleet:p#w@db/fleet", false},
		{"postgres://fleet:p?w@db/fleet", false},
		{"postgres://fleet:p/w@db/fleet", false},
		{"postgres://fleet:p%w@db/fleet", false},
		{"postgres://fleet:p%4@db/fleet", false},
		{"POSTGRESQL://fleet:p#w@db/fleet", false},
	} {
		err := checkUserinfo(tt.dsn)
		if got := err == nil; got != tt.ok {
			t.Errorf("checkUserinfo(%q) = %v, want ok %v", tt.dsn, err, tt.ok)
		}
		if err != nil && (!errors.Is(err, ErrUnsafeURL) || !errors.Is(err, ErrCannotOpen)) {
			t.Errorf("checkUserinfo(%q) = %v, want ErrUnsafeURL and ErrCannotOpen", tt.dsn, err)
		}
		if err != nil && strings.Contains(err.Error(), "db/fleet") {
			t.Errorf("checkUserinfo(%q) = %v: quotes the URL", tt.dsn, err)
		}
		if got := Redact(tt.dsn); !tt.ok && got != "postgres://***" && got != "postgresql://***" {
			t.Errorf("Redact(%q) = %q, want nothing of it", tt.dsn, got)
		}
	}
}

// TestScrub: every spelling of a password, as written and as decoded, leaves an error's text; what the error
// wraps is still found, and a password that came from elsewhere (PGPASSWORD) goes too when named.
func TestScrub(t *testing.T) {
	base := errors.New("base")
	for _, tt := range []struct{ dsn, msg, want string }{
		{"postgres://u:Ab%40Cd@h/d", "bad Ab@Cd and Ab%40Cd", "bad *** and ***"},
		{"postgres://u@h/d?sslmode=disable&password=q%2Bw", "bad q+w and q%2Bw", "bad *** and ***"},
		{"postgres://u@h/d?password=a+b", "bad a b, a+b", "bad ***, ***"},
		{"host=h password='two words' user=u", "bad two words", "bad ***"},
		{"--db=postgres://u:arg@h/d", "bad arg", "bad ***"},
		{"postgres://u:x@y@h/d", "host y@h, x@y", "host ***@h, ***"},
		{"postgres://u@h/d", "nothing to hide", "nothing to hide"},
	} {
		err := Scrub(fmt.Errorf("%s: %w", tt.msg, base), tt.dsn)
		if got, want := err.Error(), tt.want+": base"; got != want {
			t.Errorf("Scrub(%q, %q) = %q, want %q", tt.msg, tt.dsn, got, want)
		}
		if !errors.Is(err, base) {
			t.Errorf("Scrub(%q, %q) lost what it wraps", tt.msg, tt.dsn)
		}
	}
	if Scrub(nil, "postgres://u:p@h/d") != nil {
		t.Error("Scrub(nil) is not nil")
	}
}

// TestOpenUnsafeURLRefused: Open and OpenReadOnly refuse the URL before any driver reads it.
func TestOpenUnsafeURLRefused(t *testing.T) {
	for _, open := range []func(context.Context, string) (*DB, error){Open, OpenReadOnly} {
		_, err := open(context.Background(), "postgres://fleet:Ab@CdSECRET@127.0.0.1:1/fleet")
		if !errors.Is(err, ErrUnsafeURL) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("open = %v, want ErrUnsafeURL and no password", err)
		}
	}
}

// TestOpenURLParseReasons: a URL pgx cannot read says why, without its password: a port out of range or not a
// number is named (pgx says only "invalid port"); an upper-case scheme is a URL (schemes are case-insensitive),
// read and dialled as the lower-case one, not a keyword/value string; Redact reads it the same.
func TestOpenURLParseReasons(t *testing.T) {
	for _, tc := range []struct{ dsn, want, redacted string }{
		{"postgres://h:99999/db", `cannot parse the URL: port "99999" is not a number from 1 to 65535`, "postgres://***"},
		{"postgres://u:SECRET@[::1]:0/db", `port "0" is not a number from 1 to 65535`, "postgres://***"},
		{"host=h port=abc password=SECRET", `port "abc" is not a number from 1 to 65535`, "postgres://***"},
		{"POSTGRES://u:SECRET@127.0.0.1:1/db", "cannot connect to PostgreSQL at 127.0.0.1:1/db as u", "postgres://u:***@127.0.0.1:1/db"},
		{"PostgreSQL://u@127.0.0.1:1/db?sslmode=disable", "cannot connect to PostgreSQL at 127.0.0.1:1/db as u",
			"postgresql://u@127.0.0.1:1/db?sslmode=disable"},
	} {
		_, err := Open(context.Background(), tc.dsn)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "SECRET") ||
			strings.Contains(err.Error(), "keyword/value") {
			t.Errorf("Open(%s) = %v, want it to say %q, without the password", tc.dsn, err, tc.want)
		}
		if got := Redact(tc.dsn); got != tc.redacted {
			t.Errorf("Redact(%s) = %q, want %q", tc.dsn, got, tc.redacted)
		}
	}
}
