package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

func runMain(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestMainVersionAndSHA256(t *testing.T) {
	code, out, _ := runMain(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, Version) {
		t.Errorf("version: exit %d, %q; want 0, %q...", code, out, Version)
	}
	p := filepath.Join(t.TempDir(), "agent")
	body := []byte("not really an agent\n")
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runMain(t, "", "sha256", p)
	if want := fmt.Sprintf("%x\n", sha256.Sum256(body)); code != 0 || out != want {
		t.Errorf("sha256: exit %d, %q; want 0, %q", code, out, want)
	}
	if code, _, errOut := runMain(t, "", "sha256", p+".missing"); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("sha256 of a missing file: exit %d, %q", code, errOut)
	}
}

func TestMainUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"sha256"}, {"probe", "--nope"}, {"probe", "--openssl"},
		{"probe", "--timeout=soon"}, {"probe", "stray"}, {"sweep", "extra"}, {"measure", "--nope"}} {
		if code, _, _ := runMain(t, "", args...); code != 2 {
			t.Errorf("fleet-agent %q: exit %d, want 2", args, code)
		}
	}
}

func TestMainProbe(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	code, out, errOut := runMain(t, "", "probe", "--openssl", fake, "--engines", "fakeok,missing")
	if code != 0 {
		t.Fatalf("probe: exit %d, stderr %q", code, errOut)
	}
	msgs := decodeAll(t, []byte(out))
	if len(msgs) != 3 || msgs[0].Type != protocol.TypeHello || msgs[1].Type != protocol.TypeFacts || msgs[2].Type != protocol.TypeDone {
		t.Fatalf("probe printed %d lines, want hello, facts, done:\n%s", len(msgs), out)
	}
	if h := msgs[0].Hello; h.Protocol != protocol.ProtocolVersion || h.GOOS != "linux" || h.Agent == "" {
		t.Errorf("hello %+v", h)
	}
	f := msgs[1].Facts
	if f.OpenSSLVersion != "3.0.99" || f.OpenSSLPath != fake || f.Kernel == "" || f.CPU.Cores < 1 {
		t.Errorf("facts: openssl %q at %q, kernel %q, cores %d", f.OpenSSLVersion, f.OpenSSLPath, f.Kernel, f.CPU.Cores)
	}
	modes := map[string]protocol.ModeFact{}
	for _, m := range f.Modes {
		modes[m.Mode] = m
	}
	for _, m := range append(protocol.StandardModes, "engine:fakeok", "engine:missing") {
		if _, ok := modes[m]; !ok {
			t.Errorf("facts lack mode %s", m)
		}
	}
	if !modes["engine:fakeok"].Available || modes["engine:missing"].Available || !modes["cpu"].Available {
		t.Errorf("modes: %+v", f.Modes)
	}
}

func TestMainSweepBadPlan(t *testing.T) {
	for _, plan := range []string{"", "not json\n", `{"algorithms":[],"modes":["cpu"]}` + "\n"} {
		code, out, _ := runMain(t, plan, "sweep")
		msgs := decodeAll(t, []byte(out))
		if code != 1 || len(msgs) != 3 || msgs[1].Type != protocol.TypeError || !strings.Contains(msgs[1].Error, "read plan") {
			t.Errorf("sweep with plan %q: exit %d, output %q; want 1 with hello, error naming the plan, done", plan, code, out)
		}
	}
}

// TestMainSweepStdinEOF: a controller that sends the plan and hangs up cancels the sweep at once.
func TestMainSweepStdinEOF(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	plan := fmt.Sprintf(`{"openssl":%q,"env":{"FAKE_SLEEP":"30"},"algorithms":["sha256"],"modes":["cpu"],"sizes":[16],"seconds":1}`+"\n", fake)
	start := time.Now()
	code, out, _ := runMain(t, plan, "sweep")
	if d := time.Since(start); d > time.Second {
		t.Errorf("sweep took %v to stop", d)
	}
	msgs := decodeAll(t, []byte(out))
	last := msgs[len(msgs)-1]
	if code != 1 || last.Type != protocol.TypeDone || !strings.Contains(out, "stdin closed") {
		t.Errorf("sweep with stdin closed after the plan: exit %d, output %q; want 1, an error naming stdin, done", code, out)
	}
}

func TestParseProbeArgs(t *testing.T) {
	got, err := parseProbeArgs([]string{"--openssl", "/opt/ssl/bin/openssl", "-engines=pka, kae", "--providers", "legacy", "--timeout", "3s"})
	if err != nil {
		t.Fatal(err)
	}
	want := ProbeOptions{OpenSSL: "/opt/ssl/bin/openssl", Engines: []string{"pka", "kae"}, Providers: []string{"legacy"}, Timeout: 3 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseProbeArgs = %+v, want %+v", got, want)
	}
	if got, _ := parseProbeArgs(nil); got.OpenSSL != "openssl" || got.Timeout != 10*time.Second {
		t.Errorf("defaults %+v", got)
	}
}
