package report

import (
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// t0 is the fixed clock of the fixtures, so golden files do not depend on the day they were made.
var t0 = time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)

// s00 is opensslspeed/testdata/captures/S00_am335x-1.0.0d-sw-and-cryptodev-time-v.txt as the parser stores it:
// an AM335x (Cortex-A8) with OpenSSL 1.0.0d, `openssl speed aes-256-cbc` (cpu mode), then `openssl speed -evp
// aes-256-cbc -engine cryptodev` (devcrypto mode), both without -elapsed, both wrapped in GNU time -v. Without
// -elapsed OpenSSL divides by user CPU seconds, which makes the cryptodev run absurd (2460 × 8192 B in 0.01 s); the
// parser replaces that with count × block ÷ nominal seconds (3 s), a wall-time estimate, and marks timing "cpu".
// CPU accounting is the whole command's (time -v), repeated on each point.
func s00() []store.Measurement {
	sizes := []int{16, 64, 256, 1024, 8192}
	runs := []struct {
		mode, engine    string
		counts          []float64
		secs            []float64
		wall, user, sys float64
	}{
		{"cpu", "", []float64{1399402, 376353, 96197, 24205, 3029}, []float64{3, 3, 3, 3, 3}, 15.05, 15.01, 0.02},
		{"devcrypto", "cryptodev", []float64{137551, 102837, 52428, 17712, 2460}, []float64{0.12, 0.07, 0.06, 0.04, 0.01}, 15.05, 0.32, 12.40},
	}
	var ms []store.Measurement
	id := int64(0)
	for _, r := range runs {
		for i, size := range sizes {
			id++
			ms = append(ms, store.Measurement{ID: id, RunID: 1, RunLabel: "S00", RunStarted: t0, Board: "am335x",
				Point: protocol.Point{Mode: r.mode, Algorithm: "aes-256-cbc", Op: "encrypt", BlockSize: size, Threads: 1,
					Engine: r.engine, Count: r.counts[i], Seconds: r.secs[i], Timing: "cpu", WallEst: 3,
					BytesPerSec: r.counts[i] * float64(size) / 3,
					WallS:       r.wall, UserS: r.user, SysS: r.sys, CPUPct: (r.user + r.sys) / r.wall * 100,
					Flags: []string{"default-3s: openssl 1.0 has no -seconds"}}})
		}
	}
	return ms
}

// series describes one synthetic series: throughput (B/s, or ops/s when size is 0) per repeat.
type series struct {
	board, mode, alg, op string
	size, bits           int
	values               []float64
	cpu                  float64
	driver               string
}

// jitter spreads a median over n repeats deterministically: ±0.8 % at most, in a fixed shuffled order.
func jitter(median float64, n int, phase int) []float64 {
	steps := []float64{-0.008, 0.004, 0, -0.004, 0.008, 0.002, -0.002}
	out := make([]float64, n)
	for i := range out {
		out[i] = median * (1 + steps[(i+phase)%len(steps)])
	}
	return out
}

func build(run int64, label string, started time.Time, ss []series) []store.Measurement {
	var ms []store.Measurement
	for _, s := range ss {
		for rep, v := range s.values {
			p := protocol.Point{Mode: s.mode, Algorithm: s.alg, Op: s.op, BlockSize: s.size, KeyBits: s.bits, Threads: 1,
				Repeat: rep, Timing: "wall", CPUPct: s.cpu, Driver: s.driver, WallS: 3, Seconds: 3}
			if s.size > 0 {
				p.BytesPerSec = v
				p.Count = v * 3 / float64(s.size)
			} else {
				p.OpsPerSec = v
				p.Count = v * 3
			}
			p.UserS = s.cpu / 100 * 3 * 0.1
			p.SysS = s.cpu/100*3 - p.UserS
			ms = append(ms, store.Measurement{ID: int64(len(ms) + 1), RunID: run, RunLabel: label, RunStarted: started,
				Board: s.board, Point: p})
		}
	}
	return ms
}

// am64xSeries is a baseline-like sweep of an AM64x: aes-128-cbc in three modes over three sizes, sha256 in two,
// rsa 2048 sign and verify. scale changes one series: key "mode/alg/size" → factor.
func am64xSeries(n, phase int, scale map[string]float64, drop map[string]bool) []series {
	type base struct {
		mode, alg, op string
		size          int
		mbps, cpu     float64
		driver        string
	}
	bases := []base{
		{"devcrypto", "aes-128-cbc", "encrypt", 16, 1.9, 98, "cbc-aes-sa2ul"},
		{"devcrypto", "aes-128-cbc", "encrypt", 1024, 60.2, 71, "cbc-aes-sa2ul"},
		{"devcrypto", "aes-128-cbc", "encrypt", 16384, 182.4, 38, "cbc-aes-sa2ul"},
		{"cpu", "aes-128-cbc", "encrypt", 16, 78.3, 100, ""},
		{"cpu", "aes-128-cbc", "encrypt", 1024, 112.7, 100, ""},
		{"cpu", "aes-128-cbc", "encrypt", 16384, 120.5, 100, ""},
		{"soft", "aes-128-cbc", "encrypt", 16, 19.6, 100, ""},
		{"soft", "aes-128-cbc", "encrypt", 1024, 24.1, 100, ""},
		{"soft", "aes-128-cbc", "encrypt", 16384, 24.4, 100, ""},
		{"cpu", "sha256", "digest", 64, 41.5, 100, ""},
		{"cpu", "sha256", "digest", 8192, 289.1, 100, ""},
		{"devcrypto", "sha256", "digest", 64, 0.9, 99, "sha256-sa2ul"},
		{"devcrypto", "sha256", "digest", 8192, 141.9, 64, "sha256-sa2ul"},
	}
	var out []series
	for i, b := range bases {
		key := b.mode + "/" + b.alg + "/" + itoa(b.size)
		if drop[b.mode] || drop[key] {
			continue
		}
		f := 1.0
		if s, ok := scale[key]; ok {
			f = s
		}
		out = append(out, series{board: "am64x", mode: b.mode, alg: b.alg, op: b.op, size: b.size,
			values: jitter(b.mbps*1e6*f, n, phase+i), cpu: b.cpu, driver: b.driver})
	}
	for i, op := range []string{"sign", "verify"} {
		for j, mode := range []string{"cpu", "soft"} {
			v := []float64{421.3, 15512}[i] * []float64{1, 0.62}[j]
			if drop[mode] {
				continue
			}
			out = append(out, series{board: "am64x", mode: mode, alg: "rsa", op: op, bits: 2048,
				values: jitter(v, n, phase+i+j), cpu: 100})
		}
	}
	return out
}

func itoa(i int) string { return fmtFloat(float64(i)) }

func am64xFacts(kernel, cbcDriver string) *protocol.Facts {
	f := &protocol.Facts{Hostname: "am64xx-evm", Machine: "aarch64", Kernel: kernel,
		OpenSSL: "OpenSSL 3.0.11 19 Sep 2023", OpenSSLVersion: "3.0.11",
		CPU:       protocol.CPUFacts{Model: "Cortex-A53", Cores: 2, MaxMHz: 1000, CurMHz: 1000, Governor: "performance", Features: []string{"aes", "pmull", "sha1", "sha2"}},
		Engines:   map[string]string{"devcrypto": "available", "afalg": "not available: engine not built"},
		DevCrypto: true, AFALG: true,
		ProcCrypto: []protocol.CryptoAlg{
			{Name: "cbc(aes)", Driver: "cbc-aes-ce", Module: "aes_ce_blk", Priority: 300, Type: "skcipher"},
			{Name: "sha256", Driver: "sha256-ce", Module: "sha2_ce", Priority: 200, Type: "shash"},
			{Name: "sha256", Driver: "sha256-sa2ul", Module: "sa2ul", Priority: 400, Type: "ahash"},
		},
		Modes: []protocol.ModeFact{{Mode: "soft", Available: true}, {Mode: "cpu", Available: true},
			{Mode: "devcrypto", Available: true, Reason: "engine devcrypto"}, {Mode: "afalg", Reason: "engine afalg not built"}},
	}
	if cbcDriver != "" {
		f.ProcCrypto = append(f.ProcCrypto, protocol.CryptoAlg{Name: "cbc(aes)", Driver: cbcDriver, Module: "sa2ul", Priority: 5000, Type: "skcipher"})
	}
	return f
}

var (
	baseStarted = t0
	curStarted  = t0.Add(24 * time.Hour)
)

// baseline is run 10 (label nightly), five repeats.
func baseline() []store.Measurement {
	return build(10, "nightly", baseStarted, am64xSeries(5, 0, nil, nil))
}

// current is run 11 with n repeats, phase-shifted jitter, the given changes.
func current(n int, scale map[string]float64, drop map[string]bool) []store.Measurement {
	return build(11, "nightly", curStarted, am64xSeries(n, 3, scale, drop))
}

func facts(f *protocol.Facts) map[string]*protocol.Facts {
	return map[string]*protocol.Facts{"am64x": f}
}

// am64xEnvFacts are am64xFacts with the environment facts a current agent records: env is the openssl
// environment, modules the crypto modules loaded.
func am64xEnvFacts(env map[string]string, modules ...string) *protocol.Facts {
	f := am64xFacts("6.6.32-ti", "")
	f.OpenSSLEnv = env
	f.Modules = modules
	f.KernelCmdline = "console=ttyS2,115200n8 root=PARTUUID=076c4a2a-02 rw rootwait"
	f.OpenSSLConf, f.OpenSSLConfDigest = "/usr/lib/ssl/openssl.cnf", "none"
	f.OpenSSLSHA256 = "9f2c4e1b7a0d3c5e8f6a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6"
	return f
}
