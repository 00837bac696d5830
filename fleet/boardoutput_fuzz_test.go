package fleet

import (
	"bufio"
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzBoardOutput feeds what a board prints to the controller's two parsers of plain board output, added for mode
// ssh and for the one-session deploy check: the deploy check's lines (readCheck) and the agent's transfer report
// (parseTransfer). A hostile or broken board must get an error, never a panic, and what they accept must be
// usable as it is.
func FuzzBoardOutput(f *testing.F) {
	for _, s := range []string{
		"arch aarch64\nhome /root\nabsent\n",
		"arch armv7l\nhome /home/lab/\nsize 3145728\nsha256 " + strings.Repeat("ab", 32) + " cached\n",
		"arch x86_64\nhome /\nsize -1\nsha256 zz\n",
		"arch\nhome relative\n",
		"bad name\n",
		"arch x86_64\nhome /root\nsize 3145728\nsha256 " + strings.Repeat("cd", 32) + " cached\nexec\n{\"type\":\"hello\"}\n",
		"arch x86_64\nhome /root\nexec\n",
		`{"bytes":67108864,"wall_s":1.5,"busy_ticks":10,"total_ticks":20,"cores":2,"board_cpu_pct":100}`,
		`{"bytes":67108864,"wall_s":1e308,"busy_ticks":30,"total_ticks":20,"cores":-1,"board_cpu_pct":1e300}`,
		`{"bytes":67108864,"wall_s":2,"busy_ticks":10,"total_ticks":20,"cores":2,"board_cpu_pct":1e300}`,
		`{"error":"no /proc/stat"}`,
	} {
		f.Add([]byte(s), int64(64<<20))
	}
	f.Fuzz(func(t *testing.T, out []byte, n int64) {
		asked := 0
		st, err := readCheck(bufio.NewReaderSize(bytes.NewReader(out), 512), false, func(boardPlatform) error { asked++; return nil })
		if err == nil {
			if st.execd && (!st.present || st.sha256 == "") {
				t.Fatalf("readCheck let an agent it has no checksum of start: %+v", st)
			}
			if st.home != "" && !strings.HasPrefix(st.home, "/") {
				t.Fatalf("readCheck accepted the relative $HOME %q", st.home)
			}
			if strings.HasSuffix(st.home, "/") {
				t.Fatalf("readCheck kept a trailing slash in $HOME %q", st.home)
			}
			if asked > 1 {
				t.Fatalf("readCheck asked for the agent %d times", asked)
			}
		}
		rep, err := parseTransfer(out, n)
		if err != nil {
			return
		}
		if rep.Bytes != n || rep.Error != "" {
			t.Fatalf("parseTransfer accepted %+v for %d bytes", rep, n)
		}
		for _, v := range []float64{rep.WallS, rep.BoardPct} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("parseTransfer accepted the value %v in %+v", v, rep)
			}
		}
		if rep.BoardPct > 100*float64(max(rep.Cores, 1))*1.001 || rep.BusyTicks > rep.TotalTicks {
			t.Fatalf("parseTransfer accepted an impossible board CPU in %+v", rep)
		}
	})
}
