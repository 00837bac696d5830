package agent

import (
	"fmt"
	"os"

	"github.com/fleetlab/fleet/protocol"

	"golang.org/x/sys/unix"
)

// systemSample is what the agent reads around a measurement to see work that the child's rusage misses: the
// kernel threads, softirqs and interrupts of an accelerator.
type systemSample struct {
	CPU    cpuTimes
	CPUOK  bool
	IRQs   []irqLine
	IRQsOK bool
	Ev     evidenceSample // what a validity verdict needs (evidence.go)
}

// sampleSystem reads /proc/stat and the crypto lines of /proc/interrupts under root ("" for the real /proc).
// What cannot be read is left unset, and the point simply carries no such figure.
func sampleSystem(root string) systemSample {
	var s systemSample
	if f, err := os.Open(root + "/proc/stat"); err == nil {
		s.CPU, err = parseProcStat(f)
		s.CPUOK = err == nil
		f.Close()
	}
	if f, err := os.Open(root + "/proc/interrupts"); err == nil {
		s.IRQs, err = parseCryptoInterrupts(f)
		s.IRQsOK = err == nil
		f.Close()
	}
	s.Ev = sampleEvidence(root)
	return s
}

// cpuUsage is user and system CPU seconds.
type cpuUsage struct{ user, sys float64 }

// threadRusage is the CPU time of the calling OS thread (the caller must hold it with runtime.LockOSThread):
// the work the kernel does inside that thread's system calls shows as its sys time. Where RUSAGE_THREAD is
// missing (Linux before 2.6.26) it falls back to the whole process, whose Go runtime threads add a little.
func threadRusage() (cpuUsage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(rusageThread, &ru); err != nil {
		if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
			return cpuUsage{}, err
		}
	}
	return cpuUsage{
		user: float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6,
		sys:  float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6,
	}, nil
}

// setAccounting fills a point's CPU accounting from wall, user and system seconds and two system samples.
func setAccounting(p *protocol.Point, wall, user, sys float64, before, after systemSample) {
	p.WallS, p.UserS, p.SysS = nonNegative(wall), nonNegative(user), nonNegative(sys)
	if p.WallS > 0 {
		p.CPUPct = (p.UserS + p.SysS) / p.WallS * 100
	}
	if before.CPUOK && after.CPUOK {
		if pct, ok := busyPct(before.CPU, after.CPU); ok {
			p.SysBusyPct = pct
		}
	}
	if before.IRQsOK && after.IRQsOK {
		p.IRQDelta = irqDelta(before.IRQs, after.IRQs)
	}
	p.Evidence = evidenceBetween(before.Ev, after.Ev)
}

func nonNegative(v float64) float64 {
	if v < 0 || v != v {
		return 0
	}
	return v
}

// kernelWork says, for a point of a mode that runs OpenSSL's own code (cpu, soft), that most of its CPU time was
// the kernel's: OpenSSL's ciphers and digests run in user space, so a system time above the user time (and not a
// trace of it: at least 50 ms) is an engine handing the work to the kernel (afalg, devcrypto), "" otherwise.
func kernelWork(p *protocol.Point) string {
	if p.SysS < 0.05 || p.SysS <= p.UserS {
		return ""
	}
	return fmt.Sprintf("system CPU %.2f s above user %.2f s: the kernel did most of the work", p.SysS, p.UserS)
}

// sampleSystem is the sweep's system sample, its sampler made on first use.
func (s *sweepState) sampleSystem() systemSample {
	if s.sampler == nil {
		s.sampler = newSystemSampler(s.root)
	}
	return s.sampler.sample()
}

func (s *sweepState) closeSampler() {
	if s.sampler != nil {
		s.sampler.close()
	}
}
