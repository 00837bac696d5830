package agent

import "github.com/fleetlab/fleet/protocol"

// kernelKeep is what one poll keeps of the kernel lines it reads. Every line is matched against the patterns as
// it is read, before any cap: a driver that floods its log (a job ring error per request, DMA warnings) and then
// oopses must have its Oops seen. It keeps the first protocol.MaxKernelLines lines, every matched line up to
// protocol.MaxKernelMatches more, and the first fatal line whatever the caps, and counts the rest, so that its
// memory is bounded however many lines the kernel prints: a flood of a million lines costs their count.
type kernelKeep struct {
	match     protocol.KernelMatcher
	lines     []protocol.KernelLine
	tally     protocol.KernelTally
	extra     int  // matched lines kept beyond MaxKernelLines
	fatalKept bool // a fatal line is among lines
}

func (k *kernelKeep) add(l protocol.KernelLine) {
	k.tally.Read++
	p, matched := k.match.Match(l.Text)
	if matched {
		k.tally.Matched++
		if p.Fatal {
			k.tally.Fatal++
		}
	}
	keep := len(k.lines) < protocol.MaxKernelLines
	if !keep && matched && k.extra < protocol.MaxKernelMatches {
		keep = true
		k.extra++
	}
	if !keep && matched && p.Fatal && !k.fatalKept {
		keep = true // the board run fails on it: its text is the cause
	}
	if !keep {
		return
	}
	k.lines = append(k.lines, l)
	if matched && p.Fatal {
		k.fatalKept = true
	}
}

// lost counts n lines that could not be read, so never matched.
func (k *kernelKeep) lost(n int) {
	k.tally.Lost += n
}

// notRead records why lines of the poll were not read; the first reason stands.
func (k *kernelKeep) notRead(why string) {
	if k.tally.Unreadable == "" {
		k.tally.Unreadable, _ = protocol.CutKernelText(why)
	}
}

// result is the lines kept and the tally of all of them; nil when the poll read nothing and lost nothing.
func (k *kernelKeep) result() ([]protocol.KernelLine, *protocol.KernelTally) {
	if k.tally == (protocol.KernelTally{}) {
		return nil, nil
	}
	t := k.tally
	return k.lines, &t
}
