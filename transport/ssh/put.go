package ssh

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/transport"
)

// Put streams size bytes from r to path on the board over a session's stdin, into a temporary file that is
// checked for size on the board, given mode perm and renamed into place: a reader that fails or a link that drops
// never leaves a truncated file at path. Parent directories are created 0700. A path starting with "~/" is
// relative to the remote $HOME. It needs only a POSIX shell, cat, wc, chmod and mv (busybox, dropbear), no
// scp or sftp.
func (t *Transport) Put(ctx context.Context, p string, r io.Reader, size int64, perm fs.FileMode) error {
	if p == "" || strings.ContainsRune(p, 0) || size < 0 {
		return fmt.Errorf("put %q on %s: bad path or size", p, t.board)
	}
	src := &countingReader{r: io.LimitReader(r, size)}
	stderr := transport.TailWriter{Max: 4096}
	err := t.run(ctx, "put "+p, putScript(p, size, perm), src, io.Discard, &stderr)
	if err == nil {
		return nil
	}
	n, rerr := src.result()
	if rerr != nil {
		return fmt.Errorf("put %s on %s: read source: %w", p, t.board, rerr)
	}
	// The board's own words come first: "No space left on device" says more than a byte count.
	// (A size mismatch with a short source is the source's fault, said below.)
	if msg := strings.TrimSpace(stderr.String()); msg != "" && (n == size || !strings.HasPrefix(msg, "size mismatch")) {
		return fmt.Errorf("put %s on %s: %w: %s", p, t.board, err, msg)
	}
	if n != size && ctx.Err() == nil && t.alive() {
		return fmt.Errorf("put %s on %s: reader ended after %d of %d bytes: %w", p, t.board, n, size, err)
	}
	return err
}

// putScript writes stdin to p.tmp.PID, checks its size, sets its mode and renames it to p. The temporary file
// is removed whatever happens, also when the shell is signalled (cancellation).
func putScript(p string, size int64, perm fs.FileMode) string {
	tmp := remotePath(p+".tmp.") + "$$"
	return strings.Join([]string{
		"umask 077",
		"mkdir -p " + remotePath(path.Dir(p)) + " || exit 1",
		"t=" + tmp,
		`trap 'rm -f "$t"' EXIT`,
		"trap 'exit 1' HUP INT TERM PIPE",
		`cat > "$t" || exit 1`,
		`n=$(wc -c < "$t")`,
		fmt.Sprintf(`if [ "$((n+0))" != %d ]; then echo "size mismatch: wrote $n bytes, want %d" >&2; exit 1; fi`,
			size, size),
		fmt.Sprintf(`chmod %o "$t" && mv -f "$t" %s`, perm.Perm(), remotePath(p)),
	}, "; ")
}

// remotePath quotes a remote path, keeping a leading "~" as the remote "$HOME".
func remotePath(p string) string {
	switch {
	case p == "~":
		return `"$HOME"`
	case strings.HasPrefix(p, "~/"):
		return `"$HOME"/` + transport.Quote(p[2:])
	default:
		return transport.Quote(p)
	}
}

// countingReader counts what was read and remembers a read error, to tell a bad source from a bad board.
// It is read by the session's stdin copier while Put may already be reporting, hence the lock.
type countingReader struct {
	r   io.Reader
	mu  sync.Mutex
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	c.mu.Unlock()
	return n, err
}

func (c *countingReader) result() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.err
}
