package fleet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// deployScript is the deploy check, in one session (each session costs round trips, and the board a shell; with
// the agent there, the script starts three programs: uname, chmod and stat). It prints the board's `uname -m` and
// $HOME and makes the private directory $HOME/.cache/fleet (0700); then reads "NAME SHA256" on stdin — sent at
// once when the controller knows its agent, else after it has read the arch — and describes NAME in that
// directory: "absent", or its size and its sha256.
//
// The sha256 of a 3 MiB agent costs a slow board 0.6 s (ARMv5 at ~5 MB/s), every run. So after sha256sum has
// verified the file, the script writes .NAME.sha256 beside it (hidden: agent-* lists agents only), the checksum
// with the file's size, inode, mtime and ctime (stat with nanoseconds, GNU and busybox alike), and while all of
// those are unchanged a later check trusts that file ("sha256 SUM cached") instead of hashing again. Why that is
// safe: any write to the file through the file system changes its ctime, which no unprivileged call can set back
// (touch sets mtime and atime only), and a replacement changes its inode; the stat is taken before the hash and
// compared again after it, so a write during the hash is not recorded as verified. The checksum file sits in the
// same 0700 directory as the agent: whoever could forge it could replace the agent itself, which no checksum of
// ours has ever protected against. What it does not see is corruption below the file system (a failing flash
// block); a board whose storage rots needs a fresh deployment (remove ~/.cache/fleet). Without stat or sha256sum
// the script prints no checksum and Deploy falls back to the agent's own `sha256`, every run.
//
// NAME travels on stdin and is checked to be a plain agent-* name; nothing is spliced into the script.
//
// With arguments (warmScript: `sh -c SCRIPT sh measure FLAGS…`) a verified agent is started in the same session:
// the script prints "exec" and execs it with those arguments, so that the rest of stdin (the plan) and of stdout
// (the agent's protocol lines) are the agent's, and the agent keeps its probe's cache in the same private
// directory (--probe-cache, agent/probe_cache.go). A warm board costs one session: the deploy check, the probe and
// the sweep. The shell's read takes stdin one byte at a time (it must not read past its line on a pipe), so the
// agent finds the plan where the request line ended. Without arguments, or when the agent is absent or its
// checksum is not the one asked for, the script ends after the check and the controller pushes. Every way out of
// the script but exec prints "end" last: the controller, keeping stdin open for the agent, reads that the script
// is done rather than wait for the end of its output (a transport may wait for stdin to end before it ends that).
//
// The first line also says what chooses between the agent and the shell path (arch_board.go): `uname -r`, and on
// MIPS the byte order of /bin/sh's ELF header (od) and whether /proc/cpuinfo names an FPU ("-" where not read).
// The directory is made only once the controller has sent a name: a board the shell path measures keeps nothing.
const deployScript = "# deploy check\n" + deployBody

// warmScript is deployScript for a session that goes on into the agent's measure (see deployScript).
const warmScript = "# deploy check, then the agent\n" + deployBody

const deployBody = `umask 077
trap 'echo end' EXIT
m=$(uname -m) e=- f=-
case "$m" in mips*)
  set -- $(od -An -tx1 -j5 -N1 /bin/sh 2>/dev/null); e=${1:--}
  f=no; while IFS= read -r l; do case "$l" in *"FPU V"*) f=yes;; esac; done < /proc/cpuinfo
esac
printf 'arch %s %s %s %s\nhome %s\n' "$m" "$(uname -r)" "$e" "$f" "$HOME"
read -r name want || exit 0
d="$HOME/.cache/fleet"
chmod 700 "$d" 2>/dev/null || { mkdir -p "$d" && chmod 700 "$d"; } || exit 1
case "$name" in */*|.*|'') echo "bad name"; exit 1;; agent-*) ;; *) echo "bad name"; exit 1;; esac
f="$d/$name" c="$d/.$name.sha256"
if [ ! -f "$f" ]; then echo absent; exit 0; fi
st=$(stat -c '%s %i %y %z' "$f" 2>/dev/null) || st=
if [ -n "$st" ]; then echo "size ${st%% *}"; else echo "size $(wc -c < "$f")"; fi
sum=
[ -n "$st" ] && [ -f "$c" ] && read -r sum < "$c"
if [ -n "$sum" ] && [ "$sum" = "$want $st" ]; then echo "sha256 $want cached"
else
  command -v sha256sum >/dev/null 2>&1 || exit 0
  s=$(sha256sum < "$f") || exit 1
  s=${s%% *}
  echo "sha256 $s"
  [ "$s" = "$want" ] || exit 0
  if [ -n "$st" ] && [ "$(stat -c '%s %i %y %z' "$f")" = "$st" ]; then
    printf '%s %s\n' "$want" "$st" > "$c.tmp" && mv -f "$c.tmp" "$c"
  fi
fi
[ $# -gt 0 ] || exit 0
[ -x "$f" ] || chmod 700 "$f" || exit 1
trap - EXIT
echo exec
exec "$f" "$@" --probe-cache "$d"`

// checkState is what the deploy check learned.
type checkState struct {
	uname    string // `uname -m` as printed
	platform boardPlatform
	home     string // $HOME, absolute, without a trailing slash
	remoteState
	execd bool // the script started the agent (warmScript): what follows on its stdout is the agent's
}

// deployCheck runs deployScript. req is "NAME SHA256"; when it is "", resolve turns the board's platform
// (`uname -m` and the rest of the first line) into it, in the same session.
func deployCheck(ctx context.Context, t Transport, req string, resolve func(p boardPlatform) (string, error)) (checkState, error) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr := &tailWriter{Max: 4096}
	runErr := make(chan error, 1)
	go func() {
		err := t.Run(ctx, Command{Args: []string{"sh", "-c", deployScript}, Stdin: stdinR, Stdout: stdoutW, Stderr: stderr})
		stdoutW.CloseWithError(io.EOF)
		stdinR.CloseWithError(io.ErrClosedPipe) // a request nobody reads any more must not block
		runErr <- err
	}()
	send := func(line string) {
		// Not in this goroutine: a transport may write all its output before it reads any input.
		go func() {
			stdinW.Write([]byte(line + "\n")) // an error means the session ended: its exit says why
			stdinW.Close()
		}()
	}
	if req != "" {
		send(req)
	}
	st, err := readCheck(bufio.NewReaderSize(stdoutR, 512), req != "", func(p boardPlatform) error {
		line, err := resolve(p)
		if err != nil {
			stdinW.Close() // the script ends at its read
			return err
		}
		send(line)
		return nil
	})
	stdinW.Close()
	stdoutR.CloseWithError(io.EOF) // unblock the transport if we stopped reading early
	runE := <-runErr
	switch {
	case err != nil:
		return st, err
	case runE != nil:
		return st, fmt.Errorf("deploy check: %w%s", runE, stderrSuffix(stderr.String()))
	case st.home == "":
		return st, errors.New("deploy check: no $HOME printed")
	case st.execd:
		return st, errors.New("deploy check: the board started the agent, which nobody asked for")
	}
	return st, nil
}

// maxCheckLine bounds a line of the deploy check's output: what it prints is a few dozen bytes.
const maxCheckLine = 4096

// readCheck parses deployScript's output, calling ask with the arch once it is known unless the request was sent.
// It stops after the "exec" line (st.execd): what follows on r is the agent's.
func readCheck(r *bufio.Reader, sent bool, ask func(p boardPlatform) error) (checkState, error) {
	var st checkState
	n := 0
	for {
		text, err := readCheckLine(r)
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("deploy check: %w", err)
		}
		n++
		key, val, _ := strings.Cut(text, " ")
		switch {
		case n == 1 && key == "arch":
			st.platform = parsePlatform(val)
			st.uname = st.platform.uname
		case n == 2 && key == "home":
			home := strings.TrimRight(val, "/")
			if !strings.HasPrefix(val, "/") {
				return st, fmt.Errorf("read $HOME: got %q, want an absolute path", val)
			}
			st.home = home
			if !sent {
				if err := ask(st.platform); err != nil {
					return st, err
				}
			}
		case n <= 2:
			return st, fmt.Errorf("deploy check: unexpected output %q", text)
		case key == "absent":
			st.remoteState = remoteState{}
		case key == "size":
			v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return st, fmt.Errorf("deploy check: size %q: %w", val, err)
			}
			st.present, st.size = true, v
		case key == "sha256":
			sum, how, _ := strings.Cut(val, " ")
			st.sha256, st.cached = firstHexSum(sum), how == "cached"
		case text == "end":
			return st, nil // the script's last line: it has exited, or is about to
		case text == "exec" && st.present && st.sha256 != "":
			st.execd = true
			return st, nil
		case key == "bad":
			return st, fmt.Errorf("deploy check: the board refused the agent's name: %s", text)
		default:
			return st, fmt.Errorf("deploy check: unexpected output %q", text)
		}
	}
}

// readCheckLine reads one line of the deploy check, without its newline; a last line without one counts.
func readCheckLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > maxCheckLine:
		return "", fmt.Errorf("a line of over %d bytes", r.Size())
	case errors.Is(err, io.EOF) && len(line) > 0:
	case err != nil:
		return "", err
	}
	return strings.TrimSuffix(string(line), "\n"), nil
}

// parsePlatform reads the rest of the deploy check's first line: `uname -m`, `uname -r`, the ELF byte order and
// the FPU, "-" for each not read. An older script's line has `uname -m` alone.
func parsePlatform(val string) boardPlatform {
	f := strings.Fields(val)
	get := func(i int) string {
		if i < len(f) && f[i] != "-" {
			return f[i]
		}
		return ""
	}
	return boardPlatform{uname: get(0), kernel: get(1), elf: get(2), fpu: get(3)}
}
