package agent

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
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

// FuzzParseVerifyAnswer: whatever `openssl pkeyutl -verify` (or a wrapper in its place) prints and exits with, the
// answer is accepted only with the success line, exit 0 and no failure line, rejected only with the failure line,
// exit 1 and no success line, and nothing otherwise.
func FuzzParseVerifyAnswer(f *testing.F) {
	f.Add("Signature Verified Successfully\n", 0)
	f.Add("Signature Verification Failure\n", 1)
	f.Add("Signature Verified Successfullz\n", 0)
	f.Add("Engine \"afalg\" set.\nSignature Verification Failure\nSignature Verified Successfully\n", 1)
	f.Fuzz(func(t *testing.T, out string, exit int) {
		ok, bad := strings.Contains(out, "Signature Verified Successfully"), strings.Contains(out, "Signature Verification Failure")
		switch a := parseVerifyAnswer(out, exit, nil); a {
		case protocol.VerifyAccepted:
			if !ok || bad || exit != 0 {
				t.Fatalf("accepted %q exit %d", out, exit)
			}
		case protocol.VerifyRejected:
			if ok || !bad || exit != 1 {
				t.Fatalf("rejected %q exit %d", out, exit)
			}
		case "":
			if ok && !bad && exit == 0 || bad && !ok && exit == 1 {
				t.Fatalf("no answer from %q exit %d", out, exit)
			}
		default:
			t.Fatalf("answer %q", a)
		}
		if parseVerifyAnswer(out, exit, errors.New("start openssl: no such file")) != "" {
			t.Fatal("an answer from a run that did not start")
		}
	})
}
