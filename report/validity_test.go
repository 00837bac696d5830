package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestOutputsMarkInvalidPoints guards the marks of suspect and invalid points: the comparison shows a busy
// board's numbers with ‡ and a footnote naming the reason, and results carry the verdict per point.
func TestOutputsMarkInvalidPoints(t *testing.T) {
	ms := judged(current(1, nil, nil), "cpu", "aes-128-cbc", 16384, protocol.ValidityInvalid, "background CPU 38 % (limit 8 %)")
	ms = judged(ms, "cpu", "aes-128-cbc", 1024, protocol.ValiditySuspect, "swapping: 0 pages in, 64 out")
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCompare(&out, c, "text"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if n := strings.Count(text, markValidity); n < 3 {
		t.Errorf("comparison has %d ‡ marks, want the two cells and the footnote:\n%s", n, text)
	}
	if !strings.Contains(text, "1 invalid, 1 suspect of") || !strings.Contains(text, "background CPU 38 % (limit 8 %)") {
		t.Errorf("comparison lacks the validity footnote:\n%s", text)
	}

	out.Reset()
	if err := WriteHTML(&out, HTMLReport{Title: "t", Measurements: ms}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), markValidity) || !strings.Contains(out.String(), "background CPU 38 % (limit 8 %)") {
		t.Error("the HTML report does not mark the invalid point")
	}

	out.Reset()
	if err := WriteResults(&out, ms, "json"); err != nil {
		t.Fatal(err)
	}
	var rs []struct {
		Mode, Algorithm string
		BlockSize       int      `json:"block_size"`
		Validity        string   `json:"validity"`
		Reasons         []string `json:"validity_reasons"`
	}
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range rs {
		seen[r.Validity]++
		if r.Validity == "invalid" && (len(r.Reasons) != 1 || r.Reasons[0] != "background CPU 38 % (limit 8 %)") {
			t.Errorf("invalid point reasons %q", r.Reasons)
		}
		if r.Reasons == nil {
			t.Errorf("validity_reasons is null for %s %s %d, want []", r.Mode, r.Algorithm, r.BlockSize)
		}
	}
	if seen["invalid"] != 1 || seen["suspect"] != 1 || seen["unknown"] != len(rs)-2 {
		t.Errorf("verdicts in results = %v", seen)
	}

	out.Reset()
	if err := WriteResults(&out, ms, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "invalid: background CPU 38 % (limit 8 %)") {
		t.Errorf("results text lacks the verdict note:\n%s", out.String())
	}
}
