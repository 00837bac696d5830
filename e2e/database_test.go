package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/store"
)

// localSweep is a short run on the built-in local board.
var localSweep = []string{"run", "--boards", "local", "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "16,1024", "--modes", "cpu"}

// dbMountScript runs fleet with its database on a tmpfs of its own, in a private mount namespace (nothing is
// mounted on the host; the mount goes with the namespace). $1 tmpfs dir, $2 size, $3 the database to start from
// (may be empty), $4 how the disk is broken (ro, full, fill-after-points), $5 out dir; then fleet and its args.
// The database files are copied to $5 afterwards for inspection, fleet's exit code is the script's.
const dbMountScript = `set -e
dir=$1 size=$2 src=$3 how=$4 out=$5
shift 5
mount -t tmpfs -o size=$size e2e-db "$dir"
if [ -n "$src" ]; then cp "$src" "$dir/fleet.db"; fi
case $how in
ro) mount -o remount,ro "$dir" ;;
full) dd if=/dev/zero of="$dir/fill" bs=4k >/dev/null 2>&1 || true ;;
esac
set +e
if [ "$how" = fill-after-points ]; then
	"$@" >"$out/stdout" 2>"$out/stderr" &
	pid=$!
	i=0
	until [ "$("$1" results --db "$dir/fleet.db" --format csv 2>/dev/null | wc -l)" -ge 2 ] || [ $i -ge 600 ]; do
		sleep 0.1; i=$((i+1))
	done
	dd if=/dev/zero of="$dir/fill" bs=4k >/dev/null 2>&1
	wait $pid
else
	"$@" >"$out/stdout" 2>"$out/stderr"
fi
code=$?
cp "$dir"/fleet.db* "$out/" 2>/dev/null
exit $code`

// fleetOnBrokenDisk runs fleet (args after the command word get --db on the tmpfs) and returns what it printed
// and the path of the database copied out of the tmpfs.
func fleetOnBrokenDisk(t *testing.T, w *world, how, size, src string, args ...string) (result, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts a tmpfs in a private mount namespace (unshare --mount)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	dir, out := filepath.Join(w.dir, "mnt"), filepath.Join(w.dir, "out")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(out, 0o755)
	full := append([]string{args[0], "--inventory", w.inv, "--db", filepath.Join(dir, "fleet.db")}, args[1:]...)
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", dbMountScript, "sh",
		dir, size, src, how, out, fleetBin}, full...)...)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("fleet on a broken disk did not end within 3 minutes")
	}
	r := result{args: full}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	so, _ := os.ReadFile(filepath.Join(out, "stdout"))
	se, _ := os.ReadFile(filepath.Join(out, "stderr"))
	r.stdout, r.stderr = string(so), string(se)
	return r, filepath.Join(out, "fleet.db")
}

// seedDB makes a database with one ok run of the local board and returns its path (closed, checkpointed).
func seedDB(t *testing.T, w *world) (path string, points int) {
	t.Helper()
	needOpenSSL(t)
	r := w.fleet(append(append([]string{}, localSweep...), "--agent", agentBin)...)
	if r.code != 0 {
		t.Fatalf("seed run: want exit 0\n%s", r)
	}
	db, err := store.Open(t.Context(), w.db)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := db.Measurements(t.Context(), store.Filter{})
	db.Close()
	if err != nil || len(ms) != 2 {
		t.Fatalf("seed run stored %d points (%v), want 2", len(ms), err)
	}
	if _, err := os.Stat(w.db + "-wal"); err == nil {
		t.Fatalf("%s-wal left after fleet and the store closed the database: not checkpointed", w.db)
	}
	return w.db, len(ms)
}

// checkSeedIntact opens a copy of the seed database: integrity ok, the seed run and its points still there.
func checkSeedIntact(t *testing.T, path string, points int) {
	t.Helper()
	integrityOK(t, path)
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open the database after the failure: %v", err)
	}
	defer db.Close()
	ms, err := db.Measurements(t.Context(), store.Filter{RunID: 1})
	if err != nil || len(ms) != points {
		t.Errorf("run 1 has %d points (%v), want the %d stored before", len(ms), err, points)
	}
	for _, m := range ms {
		checkPoint(t, m)
	}
}

// TestDatabaseReadOnly: the database sits on a read-only filesystem. Queries work; a run is refused before any
// board is touched with a clear error naming the file, exit 2; nothing is corrupted.
func TestDatabaseReadOnly(t *testing.T) {
	w := newWorld(t)
	w.writeInventory("")
	src, n := seedDB(t, w)
	q, _ := fleetOnBrokenDisk(t, w, "ro", "8m", src, "runs")
	if q.code != 0 || !strings.Contains(q.stdout, "ok") {
		t.Errorf("fleet runs on a read-only database: want exit 0 and the run\n%s", q)
	}
	r, copied := fleetOnBrokenDisk(t, w, "ro", "8m", src, append(append([]string{}, localSweep...), "--agent", agentBin)...)
	if r.code != 2 || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "fleet.db") {
		t.Errorf("run on a read-only database: want exit 2 and an error naming fleet.db as read-only\n%s", r)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("fleet crashed\n%s", r)
	}
	checkSeedIntact(t, copied, n)
}

// TestDatabaseDiskFull: the database's disk is full before the run: a clear error, exit 2, no corruption.
func TestDatabaseDiskFull(t *testing.T) {
	w := newWorld(t)
	w.writeInventory("")
	src, n := seedDB(t, w)
	r, copied := fleetOnBrokenDisk(t, w, "full", "2m", src, append(append([]string{}, localSweep...), "--agent", agentBin)...)
	if r.code != 2 || !strings.Contains(r.stderr, "full") || !strings.Contains(r.stderr, "fleet.db") {
		t.Errorf("run on a full disk: want exit 2 and an error naming fleet.db and the full disk\n%s", r)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("fleet crashed\n%s", r)
	}
	checkSeedIntact(t, copied, n)
}

// TestDatabaseDiskFillsMidRun: the disk fills after the run's first points are stored: a clear error naming the
// full disk, exit 2, the points committed before are intact and the file passes the integrity check.
func TestDatabaseDiskFillsMidRun(t *testing.T) {
	needOpenSSL(t)
	w := newWorld(t)
	w.writeInventory("")
	args := []string{"run", "--boards", "local", "--agent", agentBin, "--seconds", "1", "--algorithms", "aes-128-cbc",
		"--sizes", "16,64,256,1024,8192,16384", "--modes", "soft,cpu"}
	r, copied := fleetOnBrokenDisk(t, w, "fill-after-points", "4m", "", args...)
	if r.code != 2 || !strings.Contains(r.stderr, "full") {
		t.Errorf("run whose disk fills: want exit 2 and an error naming the full disk\n%s", r)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("fleet crashed\n%s", r)
	}
	integrityOK(t, copied)
	db, err := store.Open(t.Context(), copied)
	if err != nil {
		t.Fatalf("open the database after the full disk: %v", err)
	}
	defer db.Close()
	ms, err := db.Measurements(t.Context(), store.Filter{})
	if err != nil || len(ms) < 1 {
		t.Errorf("%d points (%v) kept, want at least the one stored before the disk filled", len(ms), err)
	}
	for _, m := range ms {
		checkPoint(t, m)
	}
	t.Logf("%s", r)
}

// TestDatabaseNotADatabase: --db names a file that is not a fleet database, or a directory that does not exist:
// exit 2 with an error naming the path, and the file is left exactly as it was (fleet never overwrites it).
func TestDatabaseNotADatabase(t *testing.T) {
	w := newWorld(t)
	w.writeInventory("")
	notes := []byte("my notes, not a database\n")
	if err := os.WriteFile(w.db, notes, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, append(append([]string{}, localSweep...), "--agent", agentBin)} {
		r := w.fleet(args...)
		if r.code != 2 || !strings.Contains(r.stderr, w.db) {
			t.Errorf("want exit 2 and an error naming %s\n%s", w.db, r)
		}
		if data, _ := os.ReadFile(w.db); string(data) != string(notes) {
			t.Fatalf("fleet changed %s: %q", w.db, data)
		}
	}
	w.db = filepath.Join(w.dir, "no", "such", "dir", "fleet.db")
	r := w.fleet(append(append([]string{}, localSweep...), "--agent", agentBin)...)
	if r.code != 2 || !strings.Contains(r.stderr, w.db) {
		t.Errorf("want exit 2 and an error naming %s\n%s", w.db, r)
	}
}
