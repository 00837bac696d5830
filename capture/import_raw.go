package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// importRaw keeps a capture's text as the run's raw outputs: one for a capture of up to importRawChunk bytes,
// else consecutive pieces of about that size, cut after a newline, each naming its byte range. The text is the
// one the parser reads (opensslspeed.DecodeText): a UTF-16 capture is kept as UTF-8, which the store can hold
// and people can read, and a lone '\r' line end gets its '\n', so that lines count as the parser counts them;
// the byte ranges are then of that text. A UTF-8 capture is kept byte for byte, "\r\n" included. It returns the
// first line of each piece, so that a point can name the raw output its line is in (rawIDOf).
// The pieces are numbered from base+1: a run of several files numbers each file's after the previous ones'.
func importRaw(ctx context.Context, sink ImportSink, r io.Reader, abs string, size int64, base int) ([]int, error) {
	br := bufio.NewReaderSize(opensslspeed.DecodeText(r), 64<<10)
	var firsts []int
	buf := make([]byte, 0, importRawChunk+64<<10)
	line, start := 1, int64(0)
	emit := func() error {
		if len(buf) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		cmd := []string{"import", abs}
		if size > importRawChunk {
			cmd = append(cmd, fmt.Sprintf("bytes %d-%d", start, start+int64(len(buf))-1))
		}
		if err := sink.Raw(ctx, protocol.Raw{ID: base + len(firsts), Command: cmd, Stdout: string(buf)}); err != nil {
			return err
		}
		start += int64(len(buf))
		buf = buf[:0]
		return nil
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if len(buf) == 0 {
				firsts = append(firsts, line)
			}
			buf = append(buf, chunk...)
			endsLine := chunk[len(chunk)-1] == '\n'
			if endsLine {
				line++
			}
			// cut after a newline; a line longer than a piece is cut where it is
			if len(buf) >= importRawChunk && (endsLine || len(buf) >= importRawChunk+32<<10) {
				if err := emit(); err != nil {
					return nil, err
				}
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := emit(); err != nil {
		return nil, err
	}
	return firsts, nil
}

// rawIDOf is the raw output (1-based) holding line, given the first line of each.
func rawIDOf(firsts []int, line int) int {
	i := sort.Search(len(firsts), func(i int) bool { return firsts[i] > line })
	return max(i, 1)
}

// ctxReader ends a read of a capture when the context ends: a capture of gigabytes is read in one loop, and
// Ctrl-C must stop it between two reads.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
