package serve

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestComparePageBesideReference shows the fixture's boards beside a vendor's table on the compare page, and
// the runs page marks the reference with a link to it.
func TestComparePageBesideReference(t *testing.T) {
	path := writeFixture(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	pts := []store.BoardPoint{
		{Board: "am64x-evm", Point: protocol.Point{Mode: "accelerator", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384,
			Threads: 1, BytesPerSec: 134.93e6, CPUPct: 39}},
		{Board: "am64x-evm", Point: protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384,
			Threads: 1, BytesPerSec: 727.48e6, CPUPct: 99}},
	}
	if _, err := db.ImportReference(ctx, store.RunInfo{Label: "ti-sdk", Source: "TI guide " + hostile}, pts); err != nil {
		t.Fatal(err)
	}
	db.Close()
	srv := startServer(t, path)
	for _, tc := range []struct {
		path   string
		status int
		body   []string
	}{
		{"/compare?run=3&reference=ti-sdk", 200, []string{"Beside reference ti-sdk", "<td>am64x</td><td>devcrypto</td>", "<td>accelerator</td>",
			"not compared: imx6q", `<option selected>ti-sdk</option>`}},
		{"/compare?run=3&reference=ti-sdk&reference-board=am64x-evm", 200, []string{"<td>imx6q</td><td>cpu</td>"}},
		{"/compare?run=3&reference=ti-sdk&algorithms=sha256", 200, []string{"none has a figure in ti-sdk"}},
		{"/compare?reference=nosuch", 404, []string{"no reference labelled"}},
		{"/compare?reference=ti-sdk&reference-board=zz", 400, []string{"has no board"}},
		{"/?status=reference", 200, []string{"1 runs", `href="/compare?reference=ti-sdk"`}},
		{"/runs/5", 200, []string{"reference", "TI guide &lt;script&gt;", "am64x-evm"}},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s: %d, want %d\n%s", tc.path, resp.StatusCode, tc.status, b)
		}
		for _, want := range tc.body {
			if !strings.Contains(string(b), want) {
				t.Errorf("GET %s lacks %q", tc.path, want)
			}
		}
		if strings.Contains(string(b), "<script>alert") {
			t.Errorf("GET %s: the source's markup is not escaped", tc.path)
		}
	}
}

// TestReferenceRequestsAreBadRequests: asking /regress to judge a reference, or naming a label that means both a
// reference and measured runs (a database filled by db copy from two databases), is the request's fault: 400
// with the reason, never the 500 "internal error" these answered before.
func TestReferenceRequestsAreBadRequests(t *testing.T) {
	path := writeFixture(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ref := store.BoardPoint{Board: "am64x", Point: protocol.Point{Mode: "accelerator", Algorithm: "aes-128-cbc",
		Op: "encrypt", BlockSize: 16384, Threads: 1, BytesPerSec: 134.93e6}}
	refID, err := db.ImportReference(ctx, store.RunInfo{Label: "ti-sdk", Source: "TI guide"}, []store.BoardPoint{ref})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// what db copy from two databases can leave: a measured run under the reference's label
	sdb, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.ExecContext(ctx, `UPDATE runs SET label = 'ti-sdk' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	srv := startServer(t, path)
	for _, tc := range []struct{ path, want string }{
		{fmt.Sprintf("/regress?baseline=nightly&run=%d", refID), "never a measurement to judge"},
		{fmt.Sprintf("/api/regress?baseline=nightly&run=%d", refID), "never a measurement to judge"},
		{"/api/results?run=ti-sdk", "names both measured runs and a reference"},
		{"/compare?run=ti-sdk", "names both measured runs and a reference"},
		{"/api/compare?run=ti-sdk", "names both measured runs and a reference"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("GET %s: %d %s\nwant 400 saying %q", tc.path, resp.StatusCode, b, tc.want)
		}
		if strings.Contains(string(b), path) {
			t.Errorf("GET %s names the server's file %s", tc.path, path)
		}
	}
}
