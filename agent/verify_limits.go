package agent

import (
	"fmt"
	"io"
	"os"
)

// A path under test is hostile: an openssl that writes without end must cost the verification a bounded
// amount of memory (one that never exits is bounded by the path's deadline, verify_deadline.go), and still be judged — wrong, naming what it did — rather than fail the
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
