package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// fakeProcStat makes every sample of the board's counters advance by busy of total ticks, on two cores.
func fakeProcStat(t *testing.T, busy, total uint64) {
	t.Helper()
	old := readBoardStat
	t.Cleanup(func() { readBoardStat = old })
	var n uint64
	readBoardStat = func() ([]statLine, error) {
		n++
		return []statLine{{Name: "cpu", Busy: n * busy, Total: n * total}, {Name: "cpu0"}, {Name: "cpu1"}}, nil
	}
}

func TestSSHSinkCountsBytesAndBoardCPU(t *testing.T) {
	fakeProcStat(t, 150, 200) // 75 % of two cores = 150 % of one
	var stdout, stderr bytes.Buffer
	in := bytes.NewReader(make([]byte, 3<<20))
	if code := Main(t.Context(), []string{"ssh-sink", "3145728"}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	ready, line, _ := strings.Cut(stdout.String(), "\n")
	if ready != "ready" {
		t.Fatalf("first line %q, want ready", ready)
	}
	var rep protocol.Transfer
	if err := json.Unmarshal([]byte(line), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bytes != 3<<20 || rep.Cores != 2 || rep.BusyTicks != 150 || rep.TotalTicks != 200 || rep.BoardPct != 150 {
		t.Errorf("report %+v, want 3 MiB, 2 cores, 150 of 200 ticks, 150 %%", rep)
	}
}

func TestSSHSinkShortInputFails(t *testing.T) {
	fakeProcStat(t, 10, 100)
	var stdout, stderr bytes.Buffer
	if code := Main(t.Context(), []string{"ssh-sink", "1000"}, strings.NewReader("abc"), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(stdout.String(), `"error":"ssh-sink: stdin ended after 3 of 1000 bytes"`) {
		t.Errorf("report %q does not say the input ended early", stdout.String())
	}
}

func TestSSHSourceWaitsForGoThenWrites(t *testing.T) {
	fakeProcStat(t, 20, 200)
	var stdout, stderr bytes.Buffer
	if code := Main(t.Context(), []string{"ssh-source", "100000"}, strings.NewReader("g"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.Len() != 100000 || bytes.Count(stdout.Bytes(), []byte{0}) != 100000 {
		t.Errorf("wrote %d bytes, want 100000 zeros", stdout.Len())
	}
	ready, line, _ := strings.Cut(stderr.String(), "\n")
	if ready != "ready" || !strings.Contains(line, `"bytes":100000`) {
		t.Errorf("stderr %q, want ready then the report", stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := Main(t.Context(), []string{"ssh-source", "10"}, strings.NewReader(""), &stdout, &stderr); code != 1 || stdout.Len() != 0 {
		t.Errorf("without the go: exit %d, wrote %d bytes; want exit 1 and nothing", code, stdout.Len())
	}
}

func TestSSHTransferUsage(t *testing.T) {
	for _, args := range [][]string{{"ssh-sink"}, {"ssh-sink", "0"}, {"ssh-source", "-5"}, {"ssh-source", "x"}} {
		var stdout, stderr bytes.Buffer
		if code := Main(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
