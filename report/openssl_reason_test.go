package report

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPlainReason: the reasons a run met put in words: the afalg engine's bare reason code (3.x) and its string
// (1.1.1, wrapped by a mail) say what the kernel lacks, a known engine failure says what is missing, anything
// else keeps its reason and data and loses the thread id, source file and line.
func TestPlainReason(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"engine afalg: not available: init failed: error:4000006D:lib(128)::reason(109):../engines/e_afalg.c:859:",
			"the afalg engine did not load: the kernel has no AF_ALG sockets"},
		{"engine afalg: not available: 3080304384:error:80065067:lib(128):afalg_create_sk:socket bind failed:../engines/e_afalg.c:389:",
			"the afalg engine did not load: the kernel has no AF_ALG driver for the cipher"},
		{"engine missing: not available: error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=missing",
			"the missing engine did not load: OpenSSL has no engine of that name"},
		{"engine nosuchengine: not available: 4007926E8C7F0000:error:12800067:DSO support routines:dlfcn_load:could not load the shared library:../crypto/dso/dso_dlfcn.c:115:filename(libnosuchengine.so): libnosuchengine.so: cannot open shared object file: No such file or directory",
			"the nosuchengine engine did not load: its shared library could not be loaded (libnosuchengine.so: cannot open shared object file: No such file or directory)"},
		// not an engine's failure: the generic words, the code kept for a search
		{"40876E4D0B7F0000:error:0308010C:digital envelope routines:inner_evp_generic_fetch:unsupported:../crypto/evp/evp_fetch.c:386:Global default library context, Algorithm (nosuchcipher : 0), Properties (<null>)",
			"unsupported in inner_evp_generic_fetch: Global default library context, Algorithm (nosuchcipher : 0), Properties (<null>) (OpenSSL error 0308010C)"},
		{"engine vendor: not available: error:4000006D:lib(128)::reason(109):../engines/e_vendor.c:12:",
			"the vendor engine did not load: reason 109 in e_vendor.c (OpenSSL error 4000006D)"},
		{"engine x: not available: engine loads but reports [ unavailable ]", "engine x: not available: engine loads but reports [ unavailable ]"},
		{"no /dev/crypto", "no /dev/crypto"},
	} {
		if got := PlainReason(tc.in); got != tc.want {
			t.Errorf("PlainReason(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestPlainReasonRealLines: every OpenSSL error line of testdata/openssl_errors.txt (captured from real openssl
// runs, provenance in the file), as a mode's reason would carry it, reads without OpenSSL's noise: no "error:"
// record, thread id, packed code's fields or source line left, at most one code, and short enough for a line.
func TestPlainReasonRealLines(t *testing.T) {
	b, err := os.ReadFile("testdata/openssl_errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	noise := regexp.MustCompile(`error:[0-9A-Fa-f]{8}|[0-9A-F]{12,}:|\.c:[0-9]+|lib\([0-9]+\)|::`)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		source, line, ok := strings.Cut(l, "\t")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		n++
		for _, reason := range []string{line, "engine e: not available: init failed: " + line} {
			got := PlainReason(reason)
			if noise.MatchString(got) || strings.Count(got, "OpenSSL error") > 1 {
				t.Errorf("%s: PlainReason(%q) = %q: OpenSSL's noise left in", source, reason, got)
			}
			if w := utf8.RuneCountInString(got); w > 200 {
				t.Errorf("%s: PlainReason(%q) is %d characters", source, reason, w)
			}
		}
	}
	if n < 15 {
		t.Errorf("%d lines read from testdata/openssl_errors.txt, want the 20 captured", n)
	}
}
