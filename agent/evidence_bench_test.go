package agent

import (
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// BenchmarkEvidencePerPoint is the agent's extra work per point for validity: two readings of /proc and /sys
// (before and after) and the evidence between them. bench/README.md compares it with a 1-s point.
func BenchmarkEvidencePerPoint(b *testing.B) {
	for b.Loop() {
		before := sampleEvidence("")
		after := sampleEvidence("")
		if ev := evidenceBetween(before, after); ev == nil {
			b.Fatal("no evidence")
		}
	}
}

// BenchmarkEvidenceBoardTree is the same over the 4-core fixture board with cpufreq, thermal and hwmon: what
// a board that exposes everything costs in parsing.
func BenchmarkEvidenceBoardTree(b *testing.B) {
	for b.Loop() {
		before := sampleEvidence("testdata/evidence/rk3399-before")
		after := sampleEvidence("testdata/evidence/rk3399-after")
		evidenceBetween(before, after)
	}
}

// BenchmarkPointSamples is all the agent reads and computes around one openssl point on this machine: the
// system sample before and after (/proc/stat, /proc/interrupts and the evidence) and the point's accounting
// from them, as runOpenSSL does it.
func BenchmarkPointSamples(b *testing.B) {
	r := newSystemSampler("")
	defer r.close()
	for b.Loop() {
		before := r.sample()
		after := r.sample()
		var p protocol.Point
		setAccounting(&p, 1, 1, 0, before, after)
		if p.Evidence == nil {
			b.Fatal("no evidence")
		}
	}
}

// BenchmarkPointSamplesBoardTree is BenchmarkPointSamples over the 4-core fixture board.
func BenchmarkPointSamplesBoardTree(b *testing.B) {
	r := newSystemSampler("testdata/evidence/rk3399-before")
	defer r.close()
	for b.Loop() {
		before := r.sample()
		after := r.sample()
		var p protocol.Point
		setAccounting(&p, 1, 1, 0, before, after)
	}
}
