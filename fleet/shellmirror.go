package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The shell path mirrors the board's files on the controller (a directory per sample, read by
// agent.RemoteFacts and the validity evidence as the agent would read the board's own). A controller that
// ends normally removes its mirror when the session closes; one killed with SIGKILL, or whose host lost power,
// cannot. So the mirrors live in one per-user directory, os.UserCacheDir()/fleet/shell-mirror, each named
// PID-RANDOM after the controller that made it, and every new session first removes the mirrors whose
// controller is gone: what a killed controller left goes at the next shell session on that host. A PID that
// lives again (reused by another process) keeps its mirror until that process ends: a few kilobytes, never a
// mirror in use removed.
const shellMirrorDir = "shell-mirror"

// newShellMirror makes this session's mirror directory, after removing those of controllers that are gone.
// Without a user cache directory ($HOME unset) it falls back to a temporary directory, which a killed
// controller leaves behind.
func newShellMirror() (string, error) {
	base, err := os.UserCacheDir()
	if err == nil {
		base = filepath.Join(base, "fleet", shellMirrorDir)
		err = os.MkdirAll(base, 0o700)
	}
	if err != nil {
		dir, terr := os.MkdirTemp("", "fleet-shell-")
		if terr != nil {
			return "", fmt.Errorf("mirror directory: %w", errors.Join(err, terr))
		}
		return dir, nil
	}
	sweepShellMirrors(base)
	dir, err := os.MkdirTemp(base, strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("mirror directory: %w", err)
	}
	return dir, nil
}

// sweepShellMirrors removes the mirrors under base whose controller's PID is gone. Anything not named PID-…, a
// symbolic link and this process's own are left alone.
func sweepShellMirrors(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		pidText, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}
