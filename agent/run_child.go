package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// childResult is the outcome of one child process: its output and what it cost.
type childResult struct {
	Argv   []string
	Env    []string // the extra variables set on top of the agent's environment
	Stdout string
	Stderr string
	Exit   int // -1 when it did not start or was killed by a signal
	WallS  float64
	UserS  float64 // of the child and the descendants it waited for (wait4 rusage)
	SysS   float64
	Err    error // start failure, signal, or context end; nil for any normal exit
}

// maxChildOutput bounds what is kept of a child's stdout and stderr each, so a runaway tool cannot grow the agent.
const maxChildOutput = 256 << 10

// boundedBuffer keeps the first max bytes written to it and drops the rest.
type boundedBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string {
	if b.truncated {
		return b.buf.String() + "\n[output truncated by agent]\n"
	}
	return b.buf.String()
}

// runChild runs argv (never through a shell) in its own process group with extra environment variables, and
// kills the whole group when ctx ends, so no descendant (openssl -multi forks) outlives the call.
func runChild(ctx context.Context, argv []string, env []string) childResult {
	return runChildInput(ctx, argv, env, "")
}

// childWaitDelay is how long the agent waits for a child's output after the child exited (a descendant that
// kept it open is killed with the group).
const childWaitDelay = 500 * time.Millisecond

// runChildInput is runChild with stdin reading input ("" : no stdin).
func runChildInput(ctx context.Context, argv []string, env []string, input string) childResult {
	var stdin io.Reader
	if input != "" {
		stdin = strings.NewReader(input)
	}
	stderr := &boundedBuffer{max: maxChildOutput}
	res := runChildWith(ctx, argv, env, stdin, stderr, nil)
	res.Stderr = stderr.String()
	return res
}

// runChildWith runs argv with stdin and stderr as given (stdout is kept in the result) and calls started with the
// child's pid once it runs, before waiting for it.
func runChildWith(ctx context.Context, argv []string, env []string, stdin io.Reader, stderr io.Writer, started func(pid int)) childResult {
	return runChildPinned(ctx, argv, env, stdin, stderr, started, nil)
}

// runChildPinned is runChildWith with the child pinned to pin's CPUs (nil: not pinned, pin.go); the CPUs the
// kernel let the child run on are checked into pin as soon as it runs.
func runChildPinned(ctx context.Context, argv []string, env []string, stdin io.Reader, stderr io.Writer, started func(pid int), pin *pinnedRun) childResult {
	res := childResult{Argv: argv, Env: env, Exit: -1}
	if len(argv) == 0 {
		res.Err = errors.New("run: empty command")
		return res
	}
	stdout := &boundedBuffer{max: maxChildOutput}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// own group: one kill reaches the workers openssl -multi forks (and, on Linux, Pdeathsig: even an agent
	// killed with SIGKILL takes its child with it).
	cmd.SysProcAttr = childSysProcAttr()
	cmd.Cancel = func() error {
		// the child leads its own group: kill all of it
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = childWaitDelay
	start := time.Now()
	var err error
	if pin != nil {
		err = startPinned(cmd, pin.target.cpus)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		res.Err = fmt.Errorf("start %s: %w", argv[0], err)
		return res
	}
	if pin != nil {
		// the child has not been waited for: its status is there, a zombie's too
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		pin.checkAllowed(string(status), err)
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	err = cmd.Wait()
	res.WallS = time.Since(start).Seconds()
	res.Stdout = stdout.String()
	if ps := cmd.ProcessState; ps != nil {
		res.Exit = ps.ExitCode()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
			res.UserS = timevalSeconds(ru.Utime)
			res.SysS = timevalSeconds(ru.Stime)
			if pin != nil {
				pin.childWaited(res.UserS+res.SysS, res.WallS)
			}
		}
		// a child that exited by itself may have left descendants in its group
		_ = syscall.Kill(-ps.Pid(), syscall.SIGKILL)
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.Err = fmt.Errorf("run %s: %w", argv[0], ctx.Err())
	case errors.As(err, &exitErr):
		if res.Exit < 0 {
			res.Err = fmt.Errorf("run %s: %w", argv[0], err)
		}
	case err != nil:
		res.Err = fmt.Errorf("run %s: %w", argv[0], err)
	}
	return res
}

func timevalSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}
