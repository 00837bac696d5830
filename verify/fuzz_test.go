package verify

import (
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// FuzzVerifyReport feeds arbitrary agent lines through the decoder and, when one decodes as a verification
// report, through the judge: a hostile board may send anything, and the judge must answer with one of the three
// verdicts, never panic, and never call ok what has no case.
func FuzzVerifyReport(f *testing.F) {
	f.Add(`{"type":"verify","mode":"afalg","algorithm":"aes-128-cbc","cases":[{"op":"encrypt","size":16,"out_len":16,"out":"00112233445566778899aabbccddeeff"}]}`)
	f.Add(`{"type":"verify","mode":"kcapi","algorithm":"sha256","cases":[{"op":"digest","size":65536,"out_len":300,"chunks":["0011223344556677","0011223344556677"]}],"concurrency":{"workers":2,"seconds":2,"op":"digest","size":16,"ops":5,"outputs":{"00":5}}}`)
	f.Add(`{"type":"verify","mode":"soft","algorithm":"aes-128-gcm","unknown":"openssl enc cannot run AEAD ciphers"}`)
	f.Add(`{"type":"verify","mode":"cpu","algorithm":"aes-128-ctr","cases":[{"op":"decrypt","size":-1,"out_len":0}]}`)
	f.Add(`{"type":"verify","mode":"cpu","algorithm":"aes-128-cbc","cases":[{"op":"encrypt","size":17,"padded":true,"out_len":32,"out":"zz"}]}`)
	f.Add(`{"type":"verify","mode":"cpu","algorithm":"ed25519","cases":[{"op":"sign","size":32,"out_len":2,"out":"0011"},{"op":"verify","size":32,"out_len":0,"answer":"accepted"},{"op":"reject","size":32,"out_len":0,"answer":"rejected"}]}`)
	f.Add(`{"type":"verify","mode":"soft","algorithm":"rsa2048","cases":[{"op":"sign","size":32,"out_len":0},{"op":"reject","size":32,"out_len":0,"err":"exit 1"}]}`)
	f.Add(`{"type":"verify","mode":"soft","algorithm":"ecdsap256","cases":[{"op":"verify","size":32,"out_len":0,"answer":"maybe"}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		m, err := protocol.DecodeLine([]byte(line))
		if err != nil || m.Verify == nil {
			return
		}
		r := Judge(*m.Verify)
		switch r.Verdict {
		case protocol.VerificationOK:
			if len(m.Verify.Cases) == 0 || m.Verify.Unknown != "" {
				t.Fatalf("ok without cases: %+v", m.Verify)
			}
		case protocol.VerificationWrong, protocol.VerificationUnknown:
			if r.Detail == "" {
				t.Fatalf("%s without detail", r.Verdict)
			}
		default:
			t.Fatalf("verdict %q", r.Verdict)
		}
	})
}
