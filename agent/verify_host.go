package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"
)

// verifyHost is where the verification's files and commands are: this machine for the agent, the board behind
// Remote for the shell path. The verification itself (verify_openssl.go) is one code path for both: it writes
// its inputs, runs openssl and reads the outputs through a host, and the controller judges what came out.
type verifyHost interface {
	// mkdir makes a private directory for the verification's files; the returned function removes the names
	// given and the directory.
	mkdir() (string, func(names ...string), error)
	writeFile(path string, b []byte) error
	// readFile reads path when it holds at most max bytes, else returns *errOutputTooLong
	readFile(path string, max int) ([]byte, error)
	remove(path string)
	// run runs argv and ends it after timeout: here by the context, on the board by the session's watchdog
	// (the controller's own wait then ends later, so that the session survives the kill).
	run(ctx context.Context, argv, env []string, input string, timeout time.Duration) childResult
}

// verifyHost is the host the sweep's verification runs on: the remote board on the shell path.
func (s *sweepState) verifyHost(ctx context.Context) verifyHost {
	if s.remote != nil {
		return &remoteHost{ctx: ctx, r: s.remote}
	}
	return localHost{}
}

// localHost is the agent's own machine.
type localHost struct{}

func (localHost) mkdir() (string, func(names ...string), error) { return verifyDir() }
func (localHost) writeFile(path string, b []byte) error         { return os.WriteFile(path, b, 0o600) }
func (localHost) readFile(path string, max int) ([]byte, error) { return readFileMax(path, max) }
func (localHost) remove(path string)                            { os.Remove(path) }
func (localHost) run(ctx context.Context, argv, env []string, input string, timeout time.Duration) childResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return runChildInput(ctx, argv, env, input)
}

// remoteHost is a board behind Remote. Every call is a request over the board's one session, so it saves
// round trips where that changes nothing the verification sees: removals wait for the next request (nothing
// reads a file between its removal and the next command), and a command's -out file is read back in the
// command's own request, kept until the next command, write or removal.
type remoteHost struct {
	ctx     context.Context
	r       Remote
	removes []string
	read    map[string][]byte // -out files of the last command, as read back after it
}

// errNoRemoteDir is a board whose session has no private directory for files.
var errNoRemoteDir = errors.New("the board's shell session has no private directory under /tmp")

func (h *remoteHost) mkdir() (string, func(names ...string), error) {
	dir := h.r.Dir()
	if dir == "" {
		return "", nil, errNoRemoteDir
	}
	// the session's own directory: the board removes it, and whatever is left in it, when the session ends
	return dir, func(names ...string) {
		rm := slices.Clone(h.removes)
		for _, n := range names {
			rm = append(rm, dir+"/"+n)
		}
		h.removes, h.read = nil, nil
		if len(rm) > 0 {
			h.r.Exec(h.ctx, RemoteExec{Remove: rm})
		}
	}, nil
}

func (h *remoteHost) writeFile(path string, b []byte) error {
	h.flush(path)
	return h.r.WriteFile(h.ctx, path, b)
}

func (h *remoteHost) readFile(path string, max int) ([]byte, error) {
	b, err := h.readWhole(path)
	if err == nil && len(b) > max {
		return nil, &errOutputTooLong{Size: int64(len(b)), Max: max}
	}
	return b, err
}

// readWhole reads path back from the board: from the last command's request when it brought it.
func (h *remoteHost) readWhole(path string) ([]byte, error) {
	if b, ok := h.read[path]; ok {
		return slices.Clone(b), nil
	}
	if slices.Contains(h.removes, path) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	res, files := h.r.Exec(h.ctx, RemoteExec{Remove: h.takeRemoves(), Read: []string{path}})
	if res.Err != nil {
		return nil, res.Err
	}
	b, ok := files[path]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	return b, nil
}

func (h *remoteHost) remove(path string) {
	delete(h.read, path)
	if !slices.Contains(h.removes, path) {
		h.removes = append(h.removes, path)
	}
}

func (h *remoteHost) run(ctx context.Context, argv, env []string, input string, timeout time.Duration) childResult {
	e := RemoteExec{Argv: argv, Env: env, Remove: h.takeRemoves(), Read: outFiles(argv), TimeoutS: timeout.Seconds()}
	if input != "" {
		e.Stdin = []byte(input)
	}
	h.read = nil
	r, files := h.r.Exec(ctx, e)
	h.read = files
	res := r.child()
	res.Argv, res.Env = argv, env
	return res
}

// flush forgets what is known of path and sends the removals waiting, before path is written.
func (h *remoteHost) flush(path string) {
	delete(h.read, path)
	if rm := h.takeRemoves(); len(rm) > 0 {
		h.r.Exec(h.ctx, RemoteExec{Remove: rm})
	}
}

func (h *remoteHost) takeRemoves() []string {
	rm := h.removes
	h.removes = nil
	return rm
}

// outFiles are the files a command names after -out: what it writes.
func outFiles(argv []string) []string {
	var out []string
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "-out" {
			out = append(out, argv[i+1])
		}
	}
	return out
}
