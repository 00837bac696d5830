package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshlab"
	"github.com/fleetlab/fleet/store"
)

// TestHostileAgentOutput: an agent (testdata/hostileagent, pushed with --agent to the local board) prints hostile
// lines among good points. The controller rejects each bad line with a message saying what is wrong, stores none
// of their values, keeps every good point around them, and does not crash.
func TestHostileAgentOutput(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		msg     string // what stderr must say about the bad line(s)
		badSize int    // block size of the hostile points: none may be stored
		points  int    // good points to be stored
	}{
		{"longline", "protocol line too long", 777, 4},
		{"numbers", "malformed agent message", 999, 4},
		{"utf8", "invalid UTF-8", 555, 4},
		{"protocol", "unknown agent protocol version", 0, 0},
		{"flood", "too many bad lines from the agent", 0, 1},
		{"probe", "protocol line too long", 0, 0},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			w := newWorld(t)
			w.writeInventory(fmt.Sprintf("[boards.local]\nenv = { FLEET_HOSTILE = %q }\n", tc.kind))
			r := w.fleet("run", "--boards", "local", "--agent", hostileBin, "--seconds", "1", "--algorithms", "aes-128-cbc",
				"--sizes", "16,1024", "--modes", "soft,cpu")
			if r.code != 3 {
				t.Errorf("want exit 3 (the board's agent misbehaved)\n%s", r)
			}
			if l := summaryLine(r.stderr, "local"); !strings.Contains(l, tc.msg) {
				t.Errorf("local's summary = %q, want it to say %q\n%s", l, tc.msg, r)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("fleet crashed\n%s", r)
			}
			if len(r.stderr) > 64<<10 {
				t.Errorf("stderr is %d bytes: the hostile line was echoed to the user", len(r.stderr))
			}
			db := w.openDB()
			ms := w.measurements(db, store.Filter{})
			if len(ms) != tc.points {
				t.Errorf("%d points stored, want the %d good ones", len(ms), tc.points)
			}
			for _, m := range ms {
				if m.BlockSize == tc.badSize || m.BytesPerSec != 1234567 || m.WallS != 1 || m.Count != 1234567 || m.CPUPct != 100 || m.Algorithm != "aes-128-cbc" {
					t.Errorf("stored point %+v is not one of the good points", m.Point)
				}
			}
			integrityOK(t, w.db)
			res := w.fleet("results", "--format", "json")
			if res.code != 0 || strings.Contains(res.stdout, "NaN") || strings.Contains(res.stdout, "Inf") {
				t.Errorf("fleet results after hostile output\n%s", res)
			}
		})
	}
}

// TestHostileAgentOffPlanMode: a point for a mode the plan did not ask for (here devcrypto, on a run of soft and
// cpu) is not stored: it would put numbers under an accelerator's name that nobody measured with it.
func TestHostileAgentOffPlanMode(t *testing.T) {
	w := newWorld(t)
	w.writeInventory("[boards.local]\nenv = { FLEET_HOSTILE = \"offplan\" }\n")
	r := w.fleet("run", "--boards", "local", "--agent", hostileBin, "--algorithms", "aes-128-cbc", "--sizes", "16,1024", "--modes", "soft,cpu")
	ms := w.measurements(w.openDB(), store.Filter{})
	for _, m := range ms {
		if m.Mode != "soft" && m.Mode != "cpu" {
			t.Errorf("stored a %s point (block size %d) on a run of soft and cpu", m.Mode, m.BlockSize)
		}
	}
	if len(ms) != 4 {
		t.Errorf("%d points stored, want the 4 of the plan", len(ms))
	}
	if r.code != 3 || !strings.Contains(summaryLine(r.stderr, "local"), "devcrypto") {
		t.Errorf("want exit 3 and the off-plan devcrypto point reported\n%s", r)
	}
}

// TestHostileAgentOverSSH: an agent on an sshd board that floods its output without end and ignores its stdin:
// the controller gives up on it with a clear message (it does not hang), the good point is kept, the other board
// is measured, exit 3, and nothing of the agent is left on the board.
func TestHostileAgentOverSSH(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	w.writeInventory(lab.BoardsTOML() + "\n[defaults]\nenv = { FLEET_HOSTILE = \"endless\" }\n")
	p := w.start("run", "--boards", "board2", "--agent", hostileBin, "--algorithms", "aes-128-cbc", "--sizes", "16,1024", "--modes", "cpu")
	r := p.wait(30 * time.Second) // the fake agent measures nothing: fixed, this ends in a few seconds
	if r.code != 3 || !strings.Contains(summaryLine(r.stderr, "board2"), "too many bad lines") {
		t.Errorf("want exit 3 and board2 given up on: too many bad lines\n%s", r)
	}
	if ms := w.measurements(w.openDB(), store.Filter{}); len(ms) != 1 || ms[0].BytesPerSec != 1234567 {
		t.Errorf("stored %+v, want the one good point", ms)
	}
	waitIdle(t, lab.Board("board2"), 10*time.Second)
}

// TestHostileAgentLinesNamed: each rejected line is named by its line number in the agent's output, as an
// over-long line already is ("line 3: protocol line too long"), so that a user can find it in the raw stream.
// The stream is the agent's session, probe and sweep: hello, facts, the first good point, then the bad line 4.
func TestHostileAgentLinesNamed(t *testing.T) {
	for _, kind := range []string{"numbers", "utf8"} {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t)
			w.writeInventory(fmt.Sprintf("[boards.local]\nenv = { FLEET_HOSTILE = %q }\n", kind))
			r := w.fleet("run", "--boards", "local", "--agent", hostileBin, "--algorithms", "aes-128-cbc", "--sizes", "16", "--modes", "cpu")
			if l := summaryLine(r.stderr, "local"); !strings.Contains(l, "line 4: malformed agent message") {
				t.Errorf("local's summary = %q, want the first bad line named: \"line 4: malformed agent message: …\"", l)
			}
		})
	}
}

// TestShellMetacharacters: values with ;, $(…), backquotes, quotes and newlines, from the command line and from
// boards.toml. Where the value is invalid: exit 2 with an error naming it (and the file:line). Where it is valid
// data: it travels literally. Never does a marker file appear, on the host or on any board.
func TestShellMetacharacters(t *testing.T) {
	w, lab := labWorld(t, sshlab.Options{})
	marker := filepath.Join(lab.Dir, "pwned") // the same path on the host and on every board
	inj := "touch " + marker
	assertNoMarker := func() {
		t.Helper()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s exists: a value was run by a shell", marker)
		}
		for _, b := range lab.Boards {
			if out, _ := b.Exec("sh", "-c", "ls -A /tmp"); strings.Contains(string(out), "pwned") {
				t.Fatalf("%s has /tmp/…pwned: a value was run by a shell: %s", b.Name, out)
			}
		}
	}
	run := func(extra ...string) []string {
		return append([]string{"run", "--agent", agentBin}, extra...)
	}

	// Invalid on the command line: refused before any board is contacted.
	for _, args := range [][]string{
		run("--boards", "board3", "--modes", "engine:x;"+inj, "--algorithms", "aes-128-cbc"),
		run("--boards", "board3", "--modes", "engine:$("+inj+")", "--algorithms", "aes-128-cbc"),
		run("--boards", "board3", "--modes", "engine:`"+inj+"`", "--algorithms", "aes-128-cbc"),
		run("--boards", "board3", "--modes", "engine:x\n"+inj, "--algorithms", "aes-128-cbc"),
		run("--boards", "board3", "--algorithms", "aes-128-cbc;"+inj),
		run("--boards", "board3", "--algorithms", "$("+inj+")"),
		run("--boards", "board3", "--algorithms", "aes-128-cbc'"+inj+"'"),
		run("--boards", "board3;"+inj, "--algorithms", "aes-128-cbc"),
		run("--boards", "$("+inj+")", "--algorithms", "aes-128-cbc"),
		run("--boards", "board3", "--algorithms", "aes-128-cbc", "--sizes", "16;"+inj),
	} {
		r := w.fleet(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "touch") && !strings.Contains(r.stderr, "invalid") && !strings.Contains(r.stderr, "unknown") {
			t.Errorf("want exit 2 and an error naming the bad value\n%s", r)
		}
		assertNoMarker()
	}
	if _, err := os.Stat(w.db); err == nil {
		if ms := w.measurements(w.openDB(), store.Filter{}); len(ms) != 0 {
			t.Errorf("%d points stored by refused runs", len(ms))
		}
	}

	// Invalid in boards.toml: exit 2, file:line.
	board := func(name, body string) string {
		return lab.BoardsTOML() + "\n[boards." + name + "]\n" + body
	}
	base := strings.Count(lab.BoardsTOML(), "\n") + 2 // the line of the extra [boards.…] header
	for _, tc := range []struct {
		toml string
		line int
	}{
		{board(`"x;`+inj+`"`, `host = "127.0.0.1"`+"\n"), base},
		{board(`"$(`+inj+`)"`, `host = "127.0.0.1"`+"\n"), base},
		{board("evil", `host = "127.0.0.1;`+inj+`"`+"\n"), base + 1},
		{board("evil", `host = "$(`+inj+`)"`+"\n"), base + 1},
		{board("evil", `host = "-oProxyCommand=`+inj+`"`+"\n"), base + 1},
		{board("evil", "host = \"127.0.0.1\"\nuser = \"root;"+inj+"\"\n"), base + 2},
		{board("evil", "host = \"127.0.0.1\"\nproxy_jump = \"board1;"+inj+"\"\n"), base + 2},
		{board("evil", "host = \"127.0.0.1\"\nmodes = [\"engine:x;"+inj+"\"]\n"), base + 2},
		{board("evil", "host = \"127.0.0.1\"\nenv = { \"X;"+inj+"\" = \"1\" }\n"), base + 2},
		{board("evil", "host = \"127.0.0.1\"\nenv = { X = \"a\\n"+inj+"\" }\n"), base + 2},
		{board("evil", "host = \"127.0.0.1\"\nopenssl = \"/usr/bin/openssl\\n"+inj+"\"\n"), base + 2},
	} {
		w.writeInventory(tc.toml)
		r := w.fleet("run", "--all", "--agent", agentBin, "--algorithms", "aes-128-cbc")
		if where := fmt.Sprintf("%s:%d:", w.inv, tc.line); r.code != 2 || !strings.Contains(r.stderr, where) {
			t.Errorf("want exit 2 and an error at %s\n%s\n--- boards.toml tail\n%s", where, r, tc.toml[len(lab.BoardsTOML()):])
		}
		assertNoMarker()
	}

	// Valid data with metacharacters travels literally: an env value reaches openssl's environment unchanged (a
	// wrapper named as the board's openssl records it), and the stored raw output shows it.
	value := `$(` + inj + `); ` + "`" + inj + "`" + ` 'single' "double" \ $HOME *`
	wrapper := filepath.Join(lab.Dir, "openssl-wrapper")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nprintf '%s' \"$FLEET_E2E\" > /tmp/fleet-e2e-env\nexec /usr/bin/openssl \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.writeInventory(lab.BoardsTOML() + fmt.Sprintf("\n[defaults]\nenv = { FLEET_E2E = %s }\nopenssl = %q\n", tomlString(value), wrapper))
	r := w.fleet("run", "--boards", "board2,board3", "--agent", agentBin, "--label", "$("+inj+")", "--seconds", "1",
		"--algorithms", "aes-128-cbc", "--sizes", "16", "--modes", "cpu")
	if r.code != 0 {
		t.Fatalf("run with a metacharacter env value: want exit 0\n%s", r)
	}
	assertNoMarker()
	for _, name := range []string{"board2", "board3"} {
		out, err := lab.Board(name).Exec("cat", "/tmp/fleet-e2e-env")
		if err != nil || string(out) != value {
			t.Errorf("openssl on %s saw FLEET_E2E=%q (%v), want %q", name, out, err, value)
		}
	}
	show := w.fleet("show", "--raw", "latest")
	if !strings.Contains(show.stdout, "FLEET_E2E="+value) {
		t.Errorf("fleet show --raw lacks env FLEET_E2E=%s\n%s", value, show.stdout)
	}
	runs := w.fleet("runs", "--format", "json")
	if !strings.Contains(runs.stdout, `"label": "$(`+inj+`)"`) && !strings.Contains(runs.stdout, `"label":"$(`+inj+`)"`) {
		t.Errorf("the label was not stored literally\n%s", runs.stdout)
	}
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
