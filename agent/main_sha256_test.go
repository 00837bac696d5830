package agent

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

func TestSHA256MatchesStdlib(t *testing.T) {
	for _, n := range []int{0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 100000} {
		data := kcapiPattern(make([]byte, n), byte(n))
		want := sha256.Sum256(data)
		d := newSHA256()
		d.Write(data)
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Errorf("sha256 of %d bytes = %x, want %x", n, got, want)
		}
		// in uneven pieces
		d = newSHA256()
		for rest := data; len(rest) > 0; {
			k := min(len(rest), 1+len(rest)%37)
			d.Write(rest[:k])
			rest = rest[k:]
		}
		if got := d.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Errorf("sha256 of %d bytes written in pieces = %x, want %x", n, got, want)
		}
	}
}
