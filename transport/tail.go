package transport

import (
	"strings"
	"sync"
)

// TailWriter keeps the last Max bytes written to it: the tail of a session's stderr, for the error that names
// why a command failed (ExitError.Stderr) without holding all a chatty command printed. Safe for concurrent
// writes (a session's stderr and a watchdog's).
type TailWriter struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

func (w *TailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.Max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.Max:]...)
	}
	return len(p), nil
}

// String is what was kept, without the white space around it.
func (w *TailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.buf))
}
