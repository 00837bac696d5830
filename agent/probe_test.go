package agent

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// fakeBoardRoot lays out the /proc, /sys, /etc and /dev files of an ARM board under a temporary directory.
func fakeBoardRoot(t *testing.T, devCrypto bool) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"proc/cpuinfo":    cpuinfoArm64A53,
		"proc/meminfo":    "MemTotal:        1012344 kB\nMemFree:          500000 kB\n",
		"proc/interrupts": interruptsSMP,
		"proc/stat":       "cpu  100 0 50 800 0 0 0 0 0 0\n",
		"proc/crypto":     procCryptoFull,
		"etc/os-release":  "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n# comment\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq": "1200000\n",
		"sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "1512000\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "ondemand\n",
	}
	if devCrypto {
		files["dev/crypto"] = ""
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func modeMap(f protocol.Facts) map[string]protocol.ModeFact {
	m := map[string]protocol.ModeFact{}
	for _, mf := range f.Modes {
		m[mf.Mode] = mf
	}
	return m
}

func TestProbeFakeBoard(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	root := fakeBoardRoot(t, true)
	f := Probe(context.Background(), ProbeOptions{OpenSSL: fake, Engines: []string{"fakeok"}, Root: root})
	if got, want := f.CPU.Model, "Cortex-A53"; got != want {
		t.Errorf("CPU model %q, want %q", got, want)
	}
	if f.CPU.Cores != 4 || f.CPU.CurMHz != 1200 || f.CPU.MaxMHz != 1512 || f.CPU.Governor != "ondemand" {
		t.Errorf("CPU %+v: want 4 cores at 1200/1512 MHz, ondemand", f.CPU)
	}
	if f.MemKiB != 1012344 || f.OSRelease["VERSION_ID"] != "12" || f.OSRelease["NAME"] != "Debian GNU/Linux" {
		t.Errorf("memory %d, os-release %v", f.MemKiB, f.OSRelease)
	}
	if !f.DevCrypto || len(f.ProcCrypto) != 4 || len(f.Interrupts) != 2 {
		t.Errorf("dev crypto %v, %d /proc/crypto entries, crypto IRQs %q", f.DevCrypto, len(f.ProcCrypto), f.Interrupts)
	}
	modes := modeMap(f)
	if m := modes["soft"]; !m.Available || m.Reason != "OPENSSL_ia32cap=~0x200000200000000:~0x60020000000" && m.Reason != "OPENSSL_armcap=0" {
		t.Errorf("soft mode %+v", m)
	}
	// the fake has no devcrypto engine although /dev/crypto exists
	if m := modes["devcrypto"]; m.Available || !strings.HasPrefix(m.Reason, "engine devcrypto: not available: ") {
		t.Errorf("devcrypto mode %+v, want unavailable naming the engine", m)
	}
	if m := modes["engine:fakeok"]; !m.Available {
		t.Errorf("engine:fakeok mode %+v, want available", m)
	}
	if f.Engines["fakeok"] != "available" || !strings.HasPrefix(f.Engines["afalg"], "not available: ") {
		t.Errorf("engines %v", f.Engines)
	}
	if m := modes["kcapi"]; m.Available != f.AFALG {
		t.Errorf("kcapi mode %+v disagrees with AF_ALG %v (%s)", m, f.AFALG, f.AFALGError)
	}
}

func TestProbeNothingThere(t *testing.T) {
	root := t.TempDir() // no /proc, no /etc, no openssl: every fact fails, the probe does not
	f := Probe(context.Background(), ProbeOptions{OpenSSL: filepath.Join(root, "no-openssl"), Root: root})
	modes := modeMap(f)
	// the reason names the path the user configured, so a typo in boards.toml is seen at once
	want := "openssl " + filepath.Join(root, "no-openssl") + ": not found"
	for _, m := range []string{"soft", "cpu", "devcrypto", "afalg"} {
		if modes[m].Available || modes[m].Reason != want {
			t.Errorf("mode %s = %+v, want unavailable: %s", m, modes[m], want)
		}
	}
	if len(f.Errors) < 4 {
		t.Errorf("errors %q: want one per missing fact", f.Errors)
	}
	if f.Kernel == "" || f.CPU.Cores < 1 {
		t.Errorf("uname and core count come from the kernel, not files: kernel %q, cores %d", f.Kernel, f.CPU.Cores)
	}
}

// TestProbeOpenSSLNotInPath: the default openssl missing from PATH is "openssl: not found in $PATH".
func TestProbeOpenSSLNotInPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := Probe(context.Background(), ProbeOptions{OpenSSL: "openssl", Root: t.TempDir()})
	if m, want := modeMap(f)["cpu"], "openssl: not found in $PATH"; m.Available || m.Reason != want {
		t.Errorf("cpu mode %+v, want unavailable: %s", m, want)
	}
}

func TestProbeNoDevCrypto(t *testing.T) {
	f := Probe(context.Background(), ProbeOptions{OpenSSL: writeFakeOpenSSL(t), Root: fakeBoardRoot(t, false)})
	if m := modeMap(f)["devcrypto"]; m.Available || m.Reason != "no /dev/crypto" {
		t.Errorf("devcrypto mode %+v, want unavailable: no /dev/crypto", m)
	}
}

// TestProbeBoundedEngine: an engine test that hangs is cut off by the timeout and reported, the probe goes on.
func TestProbeBoundedEngine(t *testing.T) {
	// The timeout is each command's, version -a's too: generous, so that a loaded machine starting the fake
	// openssl slowly does not make cpu unavailable. The engine test hangs for 30 s: a probe that waited for it
	// would take that long.
	start := time.Now()
	f := Probe(context.Background(), ProbeOptions{OpenSSL: writeFakeOpenSSL(t), Engines: []string{"slow"}, Timeout: 5 * time.Second,
		Root: fakeBoardRoot(t, false)})
	if d := time.Since(start); d >= 30*time.Second {
		t.Errorf("probe took %v with a hanging engine test: it waited for the engine instead of its deadline", d)
	}
	if st := f.Engines["slow"]; !strings.Contains(st, "not available") || !strings.Contains(st, "deadline") {
		t.Errorf("engine slow = %q, want not available after the deadline", st)
	}
	if m := modeMap(f)["cpu"]; !m.Available {
		t.Errorf("cpu mode %+v: one hanging fact must not fail the others", m)
	}
}

func TestFirstErrorLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no output"},
		{"40A7B1B3727F0000:error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=x\n", "error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=x"},
		{"4027:error:4000006D:lib(128)::reason(109):e_afalg.c:859:\n4027:error:1300006D:engine routines:dynamic_load:init failed:eng_dyn.c:502:\n",
			"init failed: 4027:error:4000006D:lib(128)::reason(109):e_afalg.c:859:"},
		{"\n  Invalid engine \"x\"\n", "Invalid engine \"x\""},
	} {
		if got := firstErrorLine(tc.in); got != tc.want {
			t.Errorf("firstErrorLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestProbeAndRemoteFactsAgree: the agent's probe and the shell path's RemoteFacts read one board's files into
// the same facts (os-release, CPU, cpufreq, memory, /proc/crypto, interrupts), and a missing openssl into the
// same reason for every openssl mode, because both go through readBoardFiles, readCryptoProcs and
// noOpenSSLReason.
func TestProbeAndRemoteFactsAgree(t *testing.T) {
	root := fakeBoardRoot(t, true)
	missing := filepath.Join(root, "no-openssl")
	local := Probe(context.Background(), ProbeOptions{OpenSSL: missing, Root: root})
	remote := RemoteFacts(RemoteProbe{Root: root, Before: RemoteSample{Root: root}, Machine: "aarch64",
		OpenSSLMissing: "not found", Agent: "shell", AgentReason: "no Go port"}, protocol.Plan{OpenSSL: missing})
	for _, c := range []struct {
		what        string
		local, mote any
	}{
		{"os-release", local.OSRelease, remote.OSRelease},
		{"cpu", local.CPU, remote.CPU},
		{"memory", local.MemKiB, remote.MemKiB},
		{"/proc/crypto", local.ProcCrypto, remote.ProcCrypto},
		{"interrupts", local.Interrupts, remote.Interrupts},
		{"cpu mode", modeMap(local)["cpu"], modeMap(remote)["cpu"]},
		{"soft mode", modeMap(local)["soft"], modeMap(remote)["soft"]},
	} {
		if !reflect.DeepEqual(c.local, c.mote) {
			t.Errorf("%s: probe %+v, RemoteFacts %+v", c.what, c.local, c.mote)
		}
	}
	if m := modeMap(local)["cpu"]; m.Reason != "openssl "+missing+": not found" {
		t.Errorf("cpu mode %+v, want the configured openssl named", m)
	}
}
