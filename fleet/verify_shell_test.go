package fleet

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/protocol"
)

// shellVerify runs the agent's sweep with verification over a real `sh -s` session (dash) of a board whose
// openssl is the testdata/verify script name (the real openssl's path written in), and returns the verification
// reports by algorithm and the session's directory. replace are more of the script's names, old and new in turn.
func shellVerify(t *testing.T, name string, plan protocol.Plan, replace ...string) (map[string]protocol.VerifyReport, string) {
	t.Helper()
	return shellVerifyTools(t, name, nil, plan, replace...)
}

// shellVerifyTools is shellVerify on a board that also has tools: testdata/verify files installed as the
// name before their first dot (df.full is the board's df).
func shellVerifyTools(t *testing.T, name string, tools []string, plan protocol.Plan, replace ...string) (map[string]protocol.VerifyReport, string) {
	t.Helper()
	board := shellBoard(t, []string{"dash"})
	for _, tool := range tools {
		b, err := os.ReadFile(filepath.Join("testdata/verify", tool))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(board.path, strings.SplitN(tool, ".", 2)[0]), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl")
	}
	b, err := os.ReadFile(filepath.Join("testdata/verify", name))
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(board.path, "openssl")
	os.Remove(fake)
	if err := os.WriteFile(fake, []byte(strings.NewReplacer(append(replace, "@OPENSSL@", real)...).Replace(string(b))), 0o755); err != nil {
		t.Fatal(err)
	}
	reps := map[string]protocol.VerifyReport{}
	dir := shellSweep(t, board, plan, func(m *protocol.Message) {
		switch m.Type {
		case protocol.TypeVerify:
			reps[m.Verify.Algorithm] = *m.Verify
		case protocol.TypeError:
			t.Logf("sweep error: %s", m.Error)
		}
	})
	return reps, dir
}

// shellSweep runs the agent's sweep of plan over a real `sh -s` session of board, as the controller's shell path
// does, gives each line of its stream to each (the done line last), and returns the session's directory.
func shellSweep(t *testing.T, board Transport, plan protocol.Plan, each func(*protocol.Message)) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := startShell(ctx, board, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	probe, err := s.probe(ctx, plan, "test")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		enc := protocol.NewEncoder(pw)
		done, err := agent.RemoteSweep(ctx, plan, enc, probe, s)
		if err != nil {
			_ = enc.Encode(protocol.TypeError, err.Error())
		}
		_ = enc.Encode(protocol.TypeDone, &done)
		pw.Close()
	}()
	dec := protocol.NewDecoder(pr)
	for {
		m, err := dec.Next()
		if err != nil {
			t.Fatalf("the sweep's stream: %v", err)
		}
		each(&m)
		if m.Type == protocol.TypeDone {
			return s.Dir()
		}
	}
}

// TestShellVerifyPathDeadline: on the shell path, an aes-128-cbc path that hangs from 4096 B on (testdata/verify/
// openssl-hang-cbc) ends within its one deadline (3 s here) plus the board's kill: the board's watchdog kills the
// hung openssl, the session goes on, the later inputs are skipped naming mode, algorithm and deadline, and the
// next path (aes-128-ctr) is verified in the same session. Before, each input waited for its own 50 s watchdog.
func TestShellVerifyPathDeadline(t *testing.T) {
	plan := protocol.Plan{OpenSSL: "openssl", Modes: []string{protocol.ModeCPU}, Algorithms: []string{"aes-128-cbc", "aes-128-ctr"},
		Sizes: []int{16}, Seconds: 1, Verify: true, VerifyTimeoutS: 3}
	reps, _ := shellVerify(t, "openssl-hang-cbc", plan)
	cbc, ok := reps["aes-128-cbc"]
	if !ok {
		t.Fatalf("no verification of aes-128-cbc: %v", reps)
	}
	if cbc.Seconds < 3 || cbc.Seconds > 8 {
		t.Errorf("the hung path's verification took %.1f s, want its 3 s deadline and the board's kill", cbc.Seconds)
	}
	const hung = "verification of cpu aes-128-cbc did not answer within 3 s"
	n := map[string]int{}
	for _, c := range cbc.Cases {
		switch {
		case c.Err == hung && c.Op == "encrypt" && c.Size == 4096:
			n["hung"]++
		case c.Err == "skipped: "+hung:
			n["skipped"]++
		case c.Err == "" && c.Size < 4096:
			n["ok"]++
		default:
			t.Errorf("%s %d B: err %q", c.Op, c.Size, c.Err)
		}
	}
	if n["ok"] != 5 || n["hung"] != 1 || n["skipped"] != 5 {
		t.Errorf("cases %v, want encrypt 1 to 4095 B answered, 4096 B hung, the 5 after it skipped", n)
	}
	rec := &recorder{verifying: true}
	if res := rec.verified(cbc); res.Verdict != protocol.VerificationWrong || !strings.Contains(res.Detail, "encrypt 4096 B: the path failed: "+hung) {
		t.Errorf("hung path: %s %q, want wrong naming the deadline", res.Verdict, res.Detail)
	}
	ctr, ok := reps["aes-128-ctr"]
	if res := rec.verified(ctr); !ok || res.Verdict != protocol.VerificationOK {
		t.Errorf("the next path in the same session: %s %q, want ok", res.Verdict, res.Detail)
	}
}

// TestShellVerifyDiskFull: on the shell path, a /tmp that fills up (testdata/verify/openssl-disk-full: OpenSSL 3's
// "No space left on device", lost when stderr is a file on that disk) names the input being written, the
// command and the full disk, instead of a bare "exit 1:"; and an enc that cannot write its output names it.
func TestShellVerifyDiskFull(t *testing.T) {
	plan := protocol.Plan{OpenSSL: "openssl", Modes: []string{protocol.ModeCPU}, Algorithms: []string{"aes-128-cbc"},
		Sizes: []int{65536}, Seconds: 1, Verify: true}
	reps, dir := shellVerify(t, "openssl-disk-full", plan, "@FULL_IN@", "in-65536")
	want := "writing the input to " + dir + "/in-65536: shell path on test: openssl base64 -d -out " + dir +
		"/in-65536: exit 1: no space left on device"
	if got := reps["aes-128-cbc"].Unknown; got != want {
		t.Errorf("input on a full /tmp: unknown %q,\nwant %q", got, want)
	}

	// OpenSSL 3.0's base64 -d names no errno ("error writing output file"): df says the disk is full, and
	// without df the reason is what openssl said
	reps, dir = shellVerifyTools(t, "openssl-disk-full", []string{"df.full"}, plan, "@FULL_IN@", "in-65536",
		"40E7E11D8B7F0000:error:8000001C:system library:file_ctrl:No space left on device:../crypto/bio/bss_file.c:327:calling fflush()",
		"error writing output file")
	want = "writing the input to " + dir + "/in-65536: shell path on test: openssl base64 -d -out " + dir +
		"/in-65536: exit 1: error writing output file, and no space is left there: no space left on device"
	if got := reps["aes-128-cbc"].Unknown; got != want {
		t.Errorf("input on a full /tmp, OpenSSL 3.0's words: unknown %q,\nwant %q", got, want)
	}
	reps, dir = shellVerify(t, "openssl-disk-full", plan, "@FULL_IN@", "in-65536",
		"40E7E11D8B7F0000:error:8000001C:system library:file_ctrl:No space left on device:../crypto/bio/bss_file.c:327:calling fflush()",
		"error writing output file")
	if got, want := reps["aes-128-cbc"].Unknown, "/in-65536: exit 1: error writing output file"; !strings.HasSuffix(got, want) {
		t.Errorf("input on a full /tmp, no df: unknown %q, want it to end %q", got, want)
	}

	reps, dir = shellVerify(t, "openssl-disk-full", plan, "@FULL_ENC@", "in-4097")
	got := reps["aes-128-cbc"].Unknown
	if !strings.HasPrefix(got, "openssl enc (encrypt 4097 B): writing the output to "+dir+"/out-") || !strings.HasSuffix(got, ": no space left on device") {
		t.Errorf("output on a full /tmp: unknown %q, want the enc, its output file and the full disk", got)
	}
}
