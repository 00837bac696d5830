package protocol

import (
	"fmt"
	"strconv"
)

// The kernel's side of a sweep: what its log said while the points ran, which drivers /proc/crypto offered before
// and after, and whether the board rebooted under the sweep. The agent reports what it read (Kernel, the lines on
// each Point); the controller judges it against patterns and stores a KernelHealth per board run.

// TypeKernel is the agent's report of the kernel log and /proc/crypto at the start (Phase "before") and the end
// (Phase "after") of a sweep. TypeBegin announces the job the agent starts next, so that a board lost mid-sweep
// is known to have been lost during that job.
const (
	TypeKernel = "kernel"
	TypeBegin  = "begin"
)

// Kernel log sources.
const (
	KernelSourceKmsg  = "/dev/kmsg"
	KernelSourceDmesg = "dmesg"
)

// Caps on what the agent sends of the kernel log: a driver that logs an error per request must not flood the
// controller, nor the agent's memory. The agent matches every line it reads against the patterns
// (kernel_patterns.go) before any cap applies, and sends the first MaxKernelLines lines of a point, every line a
// pattern matched up to MaxKernelMatches more, and the first fatal line whatever the caps; the rest is counted
// in a KernelTally, never silently lost.
const (
	MaxKernelLines     = 64  // per point, and in one Kernel message
	MaxKernelMatches   = 64  // matched lines beyond MaxKernelLines, per point and Kernel message
	MaxKernelLineBytes = 512 // text of one line, longer is cut
	maxUnreadableBytes = 512 // KernelTally.Unreadable
)

// KernelTally accounts for every kernel line the agent read for one point (Point.KernelTally) or at the sweep's
// end (Kernel.Tally). Lines not sent are Read minus the lines sent; matched lines not sent are Matched minus the
// sent lines that match. The fields are optional: an agent that predates them sends none, and its Kernel.Dropped
// counts lines it left out without matching them, which the controller judges as lines not read.
type KernelTally struct {
	Read    int `json:"read"`              // lines read, each matched against the patterns
	Matched int `json:"matched,omitempty"` // of those, lines a pattern matched
	Fatal   int `json:"fatal,omitempty"`   // of those, lines a fatal pattern matched
	// Lost are lines the agent could not read, so never matched: overwritten in /dev/kmsg's ring buffer before
	// they were read (EPIPE), a ring buffer that wrapped between two runs of dmesg, records it could not parse.
	Lost int `json:"lost,omitempty"`
	// Unreadable is why the log stopped being readable during the point (a read error of /dev/kmsg, dmesg
	// failing), "" while it could be read.
	Unreadable string `json:"unreadable,omitempty"`
}

// Validate rejects counts no agent can have sent with sent lines.
func (t *KernelTally) Validate(sent int) error {
	switch {
	case t.Read < 0 || t.Matched < 0 || t.Fatal < 0 || t.Lost < 0:
		return fmt.Errorf("kernel tally %+v: negative count", *t)
	case t.Matched > t.Read || t.Fatal > t.Matched || sent > t.Read:
		return fmt.Errorf("kernel tally read %d, matched %d, fatal %d with %d lines sent: the counts do not nest", t.Read, t.Matched, t.Fatal, sent)
	case len(t.Unreadable) > maxUnreadableBytes:
		return fmt.Errorf("kernel tally: unreadable reason of %d bytes, at most %d", len(t.Unreadable), maxUnreadableBytes)
	}
	return nil
}

// KernelLine is one record of the kernel log.
type KernelLine struct {
	Seq   int64  `json:"seq,omitempty"`  // /dev/kmsg sequence number; 0 from dmesg
	Level int    `json:"level"`          // syslog level 0 (emerg) to 7 (debug); -1 unknown
	Usec  int64  `json:"usec,omitempty"` // microseconds since boot
	Text  string `json:"text"`           // the message, continuation lines joined with " | "
	Cut   bool   `json:"cut,omitempty"`  // Text was longer than MaxKernelLineBytes
}

// Kernel is the agent's report at one end of a sweep.
type Kernel struct {
	Phase      string       `json:"phase"`             // "before" or "after"
	Source     string       `json:"source,omitempty"`  // KernelSourceKmsg or KernelSourceDmesg; "" when unreadable
	Unknown    string       `json:"unknown,omitempty"` // why the log cannot be read (not root, dmesg_restrict)
	Lines      []KernelLine `json:"lines,omitempty"`   // new lines since the last point ("after")
	Tally      *KernelTally `json:"tally,omitempty"`   // what was read of them ("after")
	Dropped    int          `json:"dropped,omitempty"` // agents without Tally: lines left out unmatched, over the caps or lost
	ProcCrypto []CryptoAlg  `json:"proc_crypto,omitempty"`
	BootID     string       `json:"boot_id,omitempty"`
	Now        int64        `json:"now,omitempty"` // the board's clock (Unix seconds): which pstore records are new
}

// Begin names the job the agent starts now: one openssl command or kcapi point.
type Begin struct {
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`
	BlockSize int    `json:"block_size,omitempty"`
	Repeat    int    `json:"repeat,omitempty"`
	// Joined says the job is measured by the process the previous Begin started (the public-key algorithms of
	// one mode in one openssl): the board is now on this job, but no new command began.
	Joined bool `json:"joined,omitempty"`
}

// Kernel health of a board run.
const (
	HealthOK       = "ok"       // the log was read and no line matched
	HealthProblems = "problems" // lines matched: see Lines
	HealthUnknown  = "unknown"  // the log, or some of its lines, could not be read: see Reason
)

// KernelHealth is the controller's verdict on the kernel during a board's sweep, stored with the board run.
type KernelHealth struct {
	Health  string       `json:"health"`
	Reason  string       `json:"reason,omitempty"` // why unknown, or what of the log could not be read
	Source  string       `json:"source,omitempty"`
	Lines   []HealthLine `json:"lines,omitempty"`   // matched lines, at most MaxHealthLines
	Dropped int          `json:"dropped,omitempty"` // matched lines not kept: over MaxHealthLines or the agent's caps
	Drivers []string     `json:"drivers,omitempty"` // /proc/crypto: drivers not self-tested, a driver changed
	Reboot  *Reboot      `json:"reboot,omitempty"`
	// Read are the lines read during the sweep, each matched against the patterns; only those a pattern matched
	// are kept (Lines, and Dropped beyond them). Lost are lines never matched: lost before they were read, or
	// left out by an agent that predates matching on the board. Lost lines, or a log that stopped being
	// readable, make an otherwise ok health unknown, with Reason.
	Read int `json:"read,omitempty"`
	Lost int `json:"lost,omitempty"`
}

// MaxHealthLines bounds the excerpt stored with a board run.
const MaxHealthLines = 40

// HealthLine is one kernel line that matched a pattern.
type HealthLine struct {
	Text    string `json:"text"`
	Pattern string `json:"pattern"`          // the name of the default pattern, or the board's regexp
	Fatal   bool   `json:"fatal,omitempty"`  // an Oops or BUG: the board run failed
	During  string `json:"during,omitempty"` // the point measured when it appeared, "afalg aes-256-cbc 8192 B"
}

// Reboot is a board that went away during a point and came back with another boot id.
type Reboot struct {
	During     string `json:"during"`               // "afalg aes-256-cbc 8192 B"
	BootBefore string `json:"boot_before"`          // /proc/sys/kernel/random/boot_id
	BootAfter  string `json:"boot_after,omitempty"` // empty: it did not come back
	Panic      string `json:"panic,omitempty"`      // pstore's record of the crash, bounded
}

// Label names the job for messages: "afalg aes-256-cbc 8192 B".
func (b Begin) Label() string {
	s := b.Mode + " " + b.Algorithm
	if b.BlockSize > 0 {
		s += " " + strconv.Itoa(b.BlockSize) + " B"
	}
	return s
}
