package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrChecksum is wrapped when the agent on the board does not have the sha256 of the local file, even after it
// was pushed again.
var ErrChecksum = errors.New("unexpected checksum")

// DeployOptions configures Deploy.
type DeployOptions struct {
	Board string                           // board name, for messages
	Arch  string                           // the board's arch from boards.toml, when the agent was chosen by it
	Logf  func(format string, args ...any) // progress for people; nil: quiet
}

// DeployResult says where the agent is on the board and what it cost to put it there.
type DeployResult struct {
	RemotePath string // absolute: $HOME/.cache/fleet/agent-<sha256[:12]>
	SHA256     string // hex sha256 of the agent, verified on the board
	Pushed     int64  // bytes sent; 0 when the board already had it
}

// Skipped reports whether the board already had a matching copy, so that nothing was pushed.
func (r DeployResult) Skipped() bool { return r.Pushed == 0 }

// remoteState is what the board says about the agent's path.
type remoteState struct {
	present bool
	size    int64
	sha256  string // empty when the board has no sha256sum
	cached  bool   // sha256 came from the checksum file, the agent unchanged since it was hashed
}

// Deploy puts the agent at localAgent on the board behind t, content-addressed in the user's private cache
// directory ($HOME/.cache/fleet, mode 0700), and verifies its sha256 there: with sha256sum when the board has it,
// else with the agent's own `sha256` command after the size matched. A matching copy is not pushed again; a corrupt
// one is replaced, and a push whose checksum does not verify is tried once more. An agent already there costs one
// SSH session (see deployScript).
func Deploy(ctx context.Context, t Transport, localAgent string, opts DeployOptions) (DeployResult, error) {
	res, _, err := deploy(ctx, t, localAgent, nil, opts)
	return res, err
}

// deploy is Deploy of localAgent or, when that is "", of the agent agentFor returns for the arch the board
// reports in the same session. It returns the board's canonical arch too ("" when localAgent was given and the
// board's `uname -m` is not one fleet knows).
func deploy(ctx context.Context, t Transport, localAgent string, agentFor func(ctx context.Context, arch string) (string, error), opts DeployOptions) (DeployResult, string, error) {
	board := opts.Board
	if board == "" {
		board = "board"
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var want string
	var size int64
	var res DeployResult
	request := func(local string) (string, error) {
		var err error
		if want, size, err = fileSHA256(local); err != nil {
			return "", err
		}
		localAgent = local
		return agentName(want) + " " + want, nil
	}
	var req string
	if localAgent != "" {
		var err error
		if req, err = request(localAgent); err != nil {
			return res, "", fmt.Errorf("deploy agent to %s: %w", board, err)
		}
	}
	var arch string
	resolve := func(p boardPlatform) (string, error) {
		if why := platformShellReason(p); why != "" {
			return "", &ShellPathError{Board: board, Reason: why}
		}
		a, err := p.archFor()
		if err != nil {
			return "", fmt.Errorf("detect arch (uname -m): %w", err)
		}
		local, err := agentFor(ctx, a)
		if err != nil {
			return "", &agentError{arch: a, err: err}
		}
		return request(local)
	}
	st, err := deployCheck(ctx, t, req, resolve)
	if err != nil {
		var ae *agentError
		if errors.As(err, &ae) {
			return res, ae.arch, err
		}
		return res, "", fmt.Errorf("deploy agent to %s: %w", board, err)
	}
	arch, _ = st.platform.archFor()
	if localAgent != "" && req != "" {
		// the arch came from boards.toml: the kernel can still be older than Go's
		if why := kernelShellReason(opts.Arch, st.platform.kernel); why != "" {
			return res, arch, &ShellPathError{Board: board, Reason: why}
		}
	}
	res, err = deployFrom(ctx, t, st, localAgent, want, size, board, logf)
	return res, arch, err
}

// deployFrom finishes a deployment from what the deploy check st found: nothing to do when the board's agent has
// the sha256 want, else a push of localAgent (size bytes), verified, and tried once more if it does not verify.
func deployFrom(ctx context.Context, t Transport, st checkState, localAgent, want string, size int64, board string, logf func(string, ...any)) (DeployResult, error) {
	dir := st.home + "/.cache/fleet"
	res := DeployResult{RemotePath: dir + "/" + agentName(want), SHA256: want}
	if st.present {
		got, err := remoteSum(ctx, t, res.RemotePath, st.remoteState, size)
		if err != nil {
			return res, fmt.Errorf("deploy agent to %s: %w", board, err)
		}
		if got == want {
			how := "verified on the board"
			if st.cached {
				how = "unchanged since it was verified"
			}
			logf("agent already on %s (sha256 %s), pushed 0 bytes (%s)", board, want[:12], how)
			return res, nil
		}
		logf("agent on %s is corrupt (sha256 %s, want %s): pushing it again", board, short(got), want[:12])
	}

	for attempt := 1; ; attempt++ {
		if err := push(ctx, t, localAgent, res.RemotePath, size); err != nil {
			if free, ok := freeKiB(ctx, t, dir); ok && free*1024 < size {
				// The transport may only see the remote side stop reading; say why it stopped.
				return res, fmt.Errorf("push agent to %s: %w: %d KiB free in %s, the agent needs %d KiB (%w)",
					board, syscall.ENOSPC, free, dir, (size+1023)/1024, err)
			}
			return res, fmt.Errorf("push agent to %s: %w", board, err)
		}
		res.Pushed += size
		st, err := deployCheck(ctx, t, agentName(want)+" "+want, nil)
		if err != nil {
			return res, fmt.Errorf("verify agent on %s: %w", board, err)
		}
		got := ""
		if st.present {
			if got, err = remoteSum(ctx, t, res.RemotePath, st.remoteState, size); err != nil {
				return res, fmt.Errorf("verify agent on %s: %w", board, err)
			}
		}
		if got == want {
			logf("pushed agent to %s: %d bytes to %s (sha256 %s verified on the board)", board, size, res.RemotePath, want[:12])
			return res, nil
		}
		if attempt == 2 {
			return res, fmt.Errorf("%w on %s: got %s, want %s", ErrChecksum, board, orNone(got), want)
		}
		logf("unexpected checksum on %s after push (got %s, want %s): pushing again", board, short(got), want[:12])
	}
}

// agentName is the agent's file name in the board's cache directory: content-addressed, so that another
// version of fleet, or a corrupt copy, never passes for this one.
func agentName(sha string) string { return "agent-" + sha[:12] }

// agentError is a failure to provide an agent for the board's arch, which is not the board's fault.
type agentError struct {
	arch string
	err  error
}

func (e *agentError) Error() string { return e.err.Error() }
func (e *agentError) Unwrap() error { return e.err }

// remoteSum returns the sha256 of the file on the board: the one sha256sum printed, else, when the size is right,
// the agent's own. A file of the wrong size has no sum worth computing: it returns "size N".
func remoteSum(ctx context.Context, t Transport, path string, st remoteState, size int64) (string, error) {
	if st.size != size {
		return fmt.Sprintf("(size %d, want %d)", st.size, size), nil
	}
	if st.sha256 != "" {
		return st.sha256, nil
	}
	var out, errb bytes.Buffer
	err := t.Run(ctx, Command{Args: []string{"sh", "-c", `chmod 700 "$1" && exec "$1" sha256 "$1"`, "sh", path}, Stdout: &out, Stderr: &errb})
	if err != nil {
		// A corrupt agent of the right size may not even start: that is a mismatch, not a failure.
		var ee *ExitError
		if errors.As(err, &ee) {
			return fmt.Sprintf("(agent sha256 exited %d%s)", ee.Code, stderrSuffix(errb.String())), nil
		}
		return "", fmt.Errorf("agent sha256: %w", err)
	}
	sum := firstHexSum(out.String())
	if sum == "" {
		return fmt.Sprintf("(agent sha256 printed %q)", short(out.String())), nil
	}
	return sum, nil
}

// freeKiB returns the space available in dir on the board, from POSIX `df -Pk` (busybox has it too).
func freeKiB(ctx context.Context, t Transport, dir string) (int64, bool) {
	var out, errb bytes.Buffer
	if err := t.Run(ctx, Command{Args: []string{"df", "-Pk", dir}, Stdout: &out, Stderr: &errb}); err != nil {
		return 0, false
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(lines) < 2 || len(f) < 4 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[3], 10, 64)
	return n, err == nil
}

// push streams the local file to path on the board.
func push(ctx context.Context, t Transport, local, path string, size int64) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	return t.Put(ctx, path, f, size, 0o700)
}

// fileSHA256 returns the hex sha256 and size of a local file.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// firstHexSum returns the first field of s when it is a hex sha256 ("<sum>  -" from sha256sum), else "".
func firstHexSum(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 || len(f[0]) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(f[0]); err != nil {
		return ""
	}
	return strings.ToLower(f[0])
}

func short(s string) string {
	if len(s) == 64 && firstHexSum(s) == s {
		return s[:12]
	}
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(no file)"
	}
	return s
}
