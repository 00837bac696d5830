package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// A path under test is hostile: an openssl that writes without end or never exits must cost the verification
// a bounded amount of memory and time, and still be judged — wrong, naming what it did — rather than fail the
// sweep with an unrelated protocol error or keep the board for minutes.

// verifyOutputSlack is what an output may exceed its input by: a cipher's padding is at most one block (16 B).
// A longer output is wrong whatever it holds, so its bytes are never read.
const verifyOutputSlack = 64

// maxSignatureBytes bounds a signature read back: RSA 15360 is 1920 bytes.
const maxSignatureBytes = 64 << 10

// errOutputTooLong is an output file longer than any right output could be.
type errOutputTooLong struct {
	Size int64 // the file's length
	Max  int
}

func (e *errOutputTooLong) Error() string {
	return fmt.Sprintf("%d bytes of output, more than the %d any right output has", e.Size, e.Max)
}

// readFileMax reads path when it holds at most max bytes, else returns *errOutputTooLong without reading it.
func readFileMax(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > int64(max) {
		return nil, &errOutputTooLong{Size: st.Size(), Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err == nil && len(b) > max {
		return nil, &errOutputTooLong{Size: int64(len(b)), Max: max} // grew while read
	}
	return b, err
}

// errChildHung is an openssl of the verification that did not exit within its time: the path hangs.
var errChildHung = errors.New("hung")

// errEarlierHung is a command not run because an earlier one of the same path hung: each would wait the whole
// timeout too (11 inputs at 2 at a time were 6 minutes of a 60 s timeout), and one hang is the verdict already.
var errEarlierHung = errors.New("not run: an earlier input of this path hung")

// runTimed runs argv on o's host under o's child timeout, and names a run that reached it as hung.
func (o *opensslVerifier) runTimed(ctx context.Context, argv []string, input string) childResult {
	timeout := o.timeout
	if timeout <= 0 {
		timeout = verifyChildTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := o.host.run(cctx, argv, o.env, input)
	if res.Err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		res.Err = fmt.Errorf("%s %w: no exit within %v", argv[0], errChildHung, timeout)
	}
	return res
}
