package reftable

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedTablesKnown: every algorithm of the tables in testdata is one fleet knows: no warning.
func TestShippedTablesKnown(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, f := range files {
		if strings.HasSuffix(f, "README.md") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(data, Options{File: f, Board: "b", Mode: "cpu"})
		if err != nil {
			continue // a table that needs options of its own is read by its own test
		}
		for _, w := range r.Warnings {
			t.Errorf("%v", w)
		}
	}
}

// TestUnknownAlgorithmWarns: an algorithm name fleet does not know is stored as written with a warning at its
// line, once per name, with the nearest known name when one is near; a known name gives none.
func TestUnknownAlgorithmWarns(t *testing.T) {
	text := "# source: made up\nAlgorithm\tSize (bytes)\tARM CE (MB/s)\n" +
		"aes-128-cbc\t16\t1\naes-128-cbcc\t16\t2\naes-128-cbcc\t64\t3\nkuznyechik-cbc\t16\t4\nhmac(sha265)\t16\t5\nAES128CBC\t64\t6\n"
	r, err := Parse([]byte(text), Options{File: "t.txt", Board: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Entries) != 6 || r.Entries[1].Algorithm != "aes-128-cbcc" {
		t.Errorf("entries = %+v, want all 6, the unknown as written", r.Entries)
	}
	want := []struct {
		line int
		msg  string
	}{
		{4, `algorithm "aes-128-cbcc" is not one fleet knows; did you mean aes-128-cbc? (stored as aes-128-cbcc`},
		{6, `algorithm "kuznyechik-cbc" is not one fleet knows (stored as kuznyechik-cbc`},
		{7, `algorithm "hmac(sha265)" is not one fleet knows; did you mean hmac-sha256? (stored as hmac-sha265`},
		{8, `algorithm "AES128CBC" is not one fleet knows; did you mean aes-128-cbc? (stored as aes128cbc`},
	}
	if len(r.Warnings) != len(want) {
		t.Fatalf("warnings = %v, want %d", r.Warnings, len(want))
	}
	for i, w := range want {
		var pe *Error
		if !errors.As(r.Warnings[i], &pe) || pe.File != "t.txt" || pe.Line != w.line || !strings.HasPrefix(pe.Msg, w.msg) {
			t.Errorf("warning %d = %v, want t.txt:%d: %s…", i, r.Warnings[i], w.line, w.msg)
		}
	}
}
