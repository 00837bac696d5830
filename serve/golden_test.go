package serve

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
)

var tableRE = regexp.MustCompile(`(?s)<table[ >].*?</table>`)

// TestGoldenTables compares the tables of the pages with testdata/NAME.html (go test -update rewrites them).
func TestGoldenTables(t *testing.T) {
	srv := startServer(t, writeFixture(t))
	for _, tc := range []struct{ name, path string }{
		{"runs", "/?per=3&page=1"},
		{"run_progress", "/runs/4"},
		{"compare", "/compare?run=3&modes=cpu,devcrypto&algorithms=aes-128-cbc"},
		{"history", "/history?board=am64x&mode=devcrypto&algorithm=aes-128-cbc&size=16384"},
		{"regress", "/regress?baseline=2&run=3"},
		{"changes", "/changes?label=nightly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s: %d", tc.path, resp.StatusCode)
			}
			got := strings.Join(tableRE.FindAllString(string(body), -1), "\n") + "\n"
			golden.Check(t, tc.name+".html", []byte(got))
		})
	}
}
