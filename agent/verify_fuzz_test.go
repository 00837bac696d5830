package agent

import (
	"encoding/hex"
	"strings"
	"testing"
)

// FuzzParseDgstOutput: whatever `openssl dgst` (or a wrapper in its place) prints, the parser returns, per file,
// the hex digest decoded or the text it had, and never a file it was not told about in a "NAME(FILE)= " line.
func FuzzParseDgstOutput(f *testing.F) {
	f.Add("SHA2-256(/a/in-16)= 0123456789abcdef\nSHA256(/a/in-1)= ff\n")
	f.Add(`Engine "devcrypto" set.` + "\nMD5(x)= zz\r\n")
	f.Add("SHA2-256(a)= \n(b)= 00")
	f.Fuzz(func(t *testing.T, out string) {
		for file, d := range parseDgstOutput(out) {
			if !strings.Contains(out, "("+file+")= ") {
				t.Fatalf("file %q is not in the output", file)
			}
			// a digest is its hex decoded, or the text it had: either way it came from the output
			if !strings.Contains(strings.ToLower(out), hex.EncodeToString(d)) && !strings.Contains(out, string(d)) {
				t.Fatalf("digest %q of %q is neither hex nor text of the output", d, file)
			}
		}
	})
}

func TestParseDgstOutput(t *testing.T) {
	got := parseDgstOutput("Engine \"afalg\" set.\nSHA2-256(/x/in-1)= 00ff\nSHA256(/x/in-2)= 0g\n")
	if hex.EncodeToString(got["/x/in-1"]) != "00ff" || string(got["/x/in-2"]) != "0g" || len(got) != 2 {
		t.Errorf("parseDgstOutput = %q", got)
	}
}
