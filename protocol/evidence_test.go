package protocol

import (
	"strings"
	"testing"
)

func TestDecodeRefusesBadEvidence(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"point","mode":"cpu","algorithm":"sha256","evidence":{"background_pct":140}}`, "background_pct = 140"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","evidence":{"core_busy_pct":[5,-1]}}`, "core_busy_pct = -1"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","evidence":{"pswpout":-3}}`, "negative count"},
		{`{"type":"point","mode":"cpu","algorithm":"sha256","evidence":{"cpufreq":[{"policy":"p","below_max_pct":101}]}}`, "below_max_pct = 101"},
	} {
		_, err := DecodeLine([]byte(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeLine(%s) = %v, want an error naming %q", tc.line, err, tc.want)
		}
	}
	m, err := DecodeLine([]byte(`{"type":"point","mode":"cpu","algorithm":"sha256","evidence":{"cores":2,"background_pct":3.5,"unknown":["thermal: none"]},"validity":"suspect","validity_reasons":["x"]}`))
	if err != nil || m.Point.Evidence == nil || *m.Point.Evidence.BackgroundPct != 3.5 || m.Point.Validity != "suspect" {
		t.Errorf("a good point with evidence: %+v, %v", m.Point, err)
	}
}
