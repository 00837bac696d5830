package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// verifyChildTimeout bounds one openssl enc or dgst of the verification: far above what 64 KiB takes on any
// board, so that only a hung driver reaches it.
const verifyChildTimeout = 60 * time.Second

// opensslVerifier runs `openssl enc` and `openssl dgst` the way `openssl speed` runs for one mode: the same
// binary, the same -engine or -provider, the same environment (soft's capability mask included).
type opensslVerifier struct {
	argv0  string
	opts   []string // -engine NAME, -provider NAME
	env    []string
	engine string
	alg    string
	dir    string
	// workers is how many openssl processes of the verification run at once: the board's cores, or one on the
	// shell path (its Remote runs one command at a time)
	workers int
	host    verifyHost // where the files are and openssl runs: here, or the board of the shell path
}

// verifyOpenSSL runs the verification of one openssl mode and algorithm.
func (s *sweepState) verifyOpenSSL(ctx context.Context, openssl string, v opensslVersion, mode, alg string) protocol.VerifyReport {
	spec, isCipher := protocol.VerifyCiphers[alg]
	_, isDigest := protocol.VerifyDigests[alg]
	if a, _, _, ok := opensslspeed.AsymName(alg); ok {
		if a == "rsa" || a == "ecdsa" || a == "eddsa" {
			return s.verifySignature(ctx, openssl, v, mode, alg)
		}
		return protocol.VerifyReport{Unknown: "verification checks the signatures of rsa, ecdsa and eddsa, not " + a}
	}
	if !isCipher && !isDigest {
		why := "verification checks no " + alg + " yet (ciphers: aes cbc/ecb/ctr, des-ede3-cbc; digests: md5, sha1, sha2, sha3)"
		if strings.Contains(alg, "gcm") || strings.Contains(alg, "ccm") || strings.Contains(alg, "poly1305") || strings.Contains(alg, "ocb") {
			why = "openssl enc cannot run AEAD ciphers such as " + alg
		}
		return protocol.VerifyReport{Unknown: why}
	}
	o, cleanup, unknown := s.newOpenSSLVerifier(ctx, mode, v, openssl, alg)
	if unknown != "" {
		return protocol.VerifyReport{Unknown: unknown}
	}
	host, dir := o.host, o.dir
	var written []string
	defer func() { cleanup(written...) }()
	tool := "dgst"
	if isCipher {
		tool = "enc"
	}
	r := protocol.VerifyReport{Path: strings.TrimSpace(strings.Join(append(append(o.env, "openssl", tool), o.opts...), " "))}
	sizes := verifySizes(s.plan)
	files := make(map[int]string, len(sizes))
	for _, n := range sizes {
		f := filepath.Join(dir, "in-"+strconv.Itoa(n))
		if err := host.writeFile(f, protocol.VerifyPattern(n, protocol.VerifySeedPayload)); err != nil {
			return protocol.VerifyReport{Unknown: fmt.Sprintf("write verification input: %v", err)}
		}
		files[n] = f
		written = append(written, filepath.Base(f))
	}

	if isDigest {
		r.Cases, r.Unknown = o.digests(ctx, sizes, files)
	} else {
		var err string
		r.Cases, err = o.ciphers(ctx, spec, sizes, files, &written)
		if err != "" {
			return protocol.VerifyReport{Path: r.Path, Unknown: err}
		}
	}
	if workers := s.verifyWorkers(mode); workers > 0 && r.Unknown == "" {
		size := verifyConcurrencySize(s.plan)
		if lr, ok := s.remote.(LoopsRemote); ok {
			r.Concurrency = o.remoteConcurrency(ctx, lr, spec, isDigest, workers, s.verifySeconds(), size, files[size])
		} else {
			r.Concurrency = o.concurrency(ctx, spec, isDigest, workers, s.verifySeconds(), size, files[size])
		}
		for w := range workers {
			written = append(written, "conc-"+strconv.Itoa(w))
		}
	}
	return r
}

// encArgv is the `openssl enc` command for one input.
func (o *opensslVerifier) encArgv(spec protocol.VerifyCipherSpec, in, out string, decrypt, pad bool) []string {
	argv := []string{o.argv0, "enc", "-" + o.alg, "-e"}
	if decrypt {
		argv[3] = "-d"
	}
	argv = append(argv, "-K", hex.EncodeToString(protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey)))
	if spec.IVLen > 0 {
		argv = append(argv, "-iv", hex.EncodeToString(protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV)))
	}
	if !pad {
		argv = append(argv, "-nopad")
	}
	argv = append(argv, "-in", in, "-out", out)
	return append(argv, o.opts...)
}

// opensslEncChunk is how many bytes `openssl enc` hands the cipher at a time: it reads its input in 8 KiB and
// writes it through its cipher BIO, which calls EVP_CipherUpdate with at most ENC_BLOCK_SIZE (4 KiB) at once, in
// every OpenSSL since 0.9.
const opensslEncChunk = 4096

// ciphers runs every input through `openssl enc`, both ways (decryption of whole blocks only: unpadded), one
// openssl per input (OpenSSL 3 has no interactive mode that could take them all, and each size must reach the
// path as its own message), as many at once as the board has cores. Inputs that fill whole blocks go unpadded,
// as `openssl speed` runs them; others are padded (PKCS#7). An engine that did not load returns its reason and
// no cases.
//
// An unpadded size that is a multiple of opensslEncChunk, below the largest such size, is not run again: the
// path saw exactly its requests (its 4 KiB updates from the same key and IV, in the same order) as the first
// ones of the largest size's run, and CBC, ECB and CTR output what those requests are due before any later
// request comes, so its output is the prefix of that run's. That saves three of the 21 runs of the default sizes
// each way (4096, 8192 and 16384 B, inside 65536 B's).
func (o *opensslVerifier) ciphers(ctx context.Context, spec protocol.VerifyCipherSpec, sizes []int, files map[int]string, written *[]string) ([]protocol.VerifyCase, string) {
	var cases []protocol.VerifyCase
	var argvs [][]string
	var outs []string
	var runOf []int    // index in argvs of the run whose output (or prefix of it) is the case's
	var derived []bool // the case's output is the prefix of a longer run's
	for _, dec := range []bool{false, true} {
		longest := -1 // the run of the largest unpadded multiple of the chunk, this direction
		for i := len(sizes) - 1; i >= 0; i-- {
			n := sizes[i]
			if dec && n%spec.Block != 0 {
				continue
			}
			c := protocol.VerifyCase{Op: "encrypt", Size: n, Padded: n%spec.Block != 0}
			if dec {
				c.Op = "decrypt"
			}
			cases = append(cases, c)
			derived = append(derived, !c.Padded && n%opensslEncChunk == 0 && longest >= 0)
			if derived[len(derived)-1] {
				runOf = append(runOf, longest)
				continue
			}
			out := filepath.Join(o.dir, "out-"+strconv.Itoa(len(argvs)))
			*written = append(*written, filepath.Base(out))
			o.host.remove(out)
			if !c.Padded && n%opensslEncChunk == 0 {
				longest = len(argvs)
			}
			runOf = append(runOf, len(argvs))
			outs = append(outs, out)
			argvs = append(argvs, o.encArgv(spec, files[n], out, dec, c.Padded))
		}
	}
	results := o.runAll(ctx, argvs)
	whys := make([]string, len(results))
	for i, res := range results {
		whys[i] = o.failed(res)
		if strings.HasPrefix(whys[i], "engine ") {
			return nil, whys[i]
		}
	}
	outputs := make([][]byte, len(outs))
	readErrs := make([]error, len(outs))
	for i, f := range outs {
		outputs[i], readErrs[i] = o.host.readFile(f)
	}
	for i := range cases {
		c, run := &cases[i], runOf[i]
		b := outputs[run]
		switch {
		case whys[run] != "":
			c.Err = whys[run]
		case readErrs[run] != nil:
			c.Err = fmt.Sprintf("read the output of openssl enc: %v", readErrs[run])
		case derived[i] && len(b) >= c.Size:
			b = b[:c.Size]
			fallthrough
		default:
			padded := c.Padded
			*c = newVerifyCase(c.Op, c.Size, b)
			c.Padded = padded
		}
	}
	slices.SortStableFunc(cases, func(a, b protocol.VerifyCase) int {
		if a.Op != b.Op {
			return strings.Compare(b.Op, a.Op) // encrypt first
		}
		return a.Size - b.Size
	})
	return cases, ""
}

// runAll runs every command, o.workers at once (at least one), and returns their results in order.
func (o *opensslVerifier) runAll(ctx context.Context, argvs [][]string) []childResult {
	results := make([]childResult, len(argvs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(o.workers, len(argvs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = o.run(ctx, argvs[i], "")
			}
		}()
	}
	for i := range argvs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// digests runs every input through one `openssl dgst` and returns a case per size.
func (o *opensslVerifier) digests(ctx context.Context, sizes []int, files map[int]string) ([]protocol.VerifyCase, string) {
	argv := append([]string{o.argv0, "dgst", "-" + o.alg}, o.opts...)
	for _, n := range sizes {
		argv = append(argv, files[n])
	}
	res := o.run(ctx, argv, "")
	if why := o.failed(res); strings.HasPrefix(why, "engine ") {
		return nil, why
	}
	got := parseDgstOutput(res.Stdout)
	cases := make([]protocol.VerifyCase, 0, len(sizes))
	for _, n := range sizes {
		d, ok := got[files[n]]
		switch {
		case ok:
			cases = append(cases, newVerifyCase("digest", n, d))
		case res.Exit != 0 || res.Err != nil:
			cases = append(cases, protocol.VerifyCase{Op: "digest", Size: n, Err: o.failed(res)})
		default:
			cases = append(cases, protocol.VerifyCase{Op: "digest", Size: n, Err: "openssl dgst printed no digest of this input"})
		}
	}
	return cases, ""
}

// parseDgstOutput reads `openssl dgst` lines, "SHA2-256(FILE)= HEX" (1.0.x: "SHA256(FILE)= HEX"), into digests
// by file. Other lines (an engine's "Engine set." note) are left out; a digest that is not even hex is kept as
// the bytes it has, so a corrupted digest is judged wrong instead of disappearing.
func parseDgstOutput(out string) map[string][]byte {
	got := map[string][]byte{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		i, j := strings.IndexByte(line, '('), strings.Index(line, ")= ")
		if i < 0 || j < i {
			continue
		}
		file, sum := line[i+1:j], strings.TrimSpace(line[j+3:])
		if b, err := hex.DecodeString(sum); err == nil {
			got[file] = b
		} else {
			got[file] = []byte(sum)
		}
	}
	return got
}

func (o *opensslVerifier) run(ctx context.Context, argv []string, input string) childResult {
	ctx, cancel := context.WithTimeout(ctx, verifyChildTimeout)
	defer cancel()
	return o.host.run(ctx, argv, o.env, input)
}

// failed says why a run gave no output to judge: it did not start, exited non-zero, hung, or ran without the
// engine it was given (which would check software under the engine's name).
func (o *opensslVerifier) failed(res childResult) string {
	if why := engineFallback(o.engine, res.Stdout, res.Stderr); why != "" && o.engine != "" && strings.Contains(why, "did not load") {
		return why
	}
	switch {
	case res.Err != nil:
		return res.Err.Error()
	case res.Exit != 0:
		return fmt.Sprintf("exit %d: %s", res.Exit, firstErrorLine(res.Stderr))
	}
	return ""
}

// concurrency runs workers loops of the size-byte input through the path for d, and counts the outputs.
func (o *opensslVerifier) concurrency(ctx context.Context, spec protocol.VerifyCipherSpec, digest bool, workers int, d time.Duration, size int, in string) *protocol.VerifyConcurrency {
	c := &protocol.VerifyConcurrency{Workers: workers, Seconds: d.Seconds(), Size: size, Op: "encrypt"}
	if digest {
		c.Op = "digest"
	}
	var mu sync.Mutex
	all := &distinctOutputs{}
	done := make(chan struct{}, workers)
	deadline := time.Now().Add(d)
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			mine := &distinctOutputs{}
			var errs []string
			timedOut := false
			out := filepath.Join(o.dir, "conc-"+strconv.Itoa(w))
			for time.Now().Before(deadline) && ctx.Err() == nil && len(errs) == 0 {
				var b []byte
				var res childResult
				if digest {
					res = o.run(ctx, append([]string{o.argv0, "dgst", "-" + o.alg}, append(o.opts, in)...), "")
					b = parseDgstOutput(res.Stdout)[in]
				} else {
					o.host.remove(out)
					res = o.run(ctx, o.encArgv(spec, in, out, false, size%spec.Block != 0), "")
					b, _ = o.host.readFile(out)
				}
				if why := o.failed(res); why != "" {
					timedOut = res.Err != nil && ctx.Err() == nil && strings.Contains(res.Err.Error(), "deadline")
					errs = append(errs, fmt.Sprintf("worker %d: %s", w, why))
					break
				}
				mine.add(b)
			}
			mu.Lock()
			defer mu.Unlock()
			all.merge(mine)
			c.Errors = append(c.Errors, errs...)
			c.TimedOut = c.TimedOut || timedOut
		}()
	}
	for range workers {
		<-done
	}
	all.report(c)
	if len(c.Errors) > 4 {
		c.Errors = c.Errors[:4]
	}
	return c
}

// newOpenSSLVerifier is the verifier of one openssl mode and algorithm: the mode's options and environment, and
// a private directory on the host the path runs on (here, or the shell path's board). unknown says why there is
// none; cleanup removes the named files and the directory.
func (s *sweepState) newOpenSSLVerifier(ctx context.Context, mode string, v opensslVersion, openssl, alg string) (o *opensslVerifier, cleanup func(...string), unknown string) {
	opts, modeEnv, engine, err := speedModeOptions(mode, v, s.facts.Machine)
	if err != nil {
		return nil, nil, err.Error()
	}
	host := s.verifyHost(ctx)
	dir, cleanup, err := host.mkdir()
	if err != nil {
		return nil, nil, fmt.Sprintf("no private directory for the verification files: %v", err)
	}
	return &opensslVerifier{argv0: openssl, opts: opts, env: append(envList(s.plan.Env), modeEnv...), engine: engine,
		alg: alg, dir: dir, workers: s.verifyProcesses(), host: host}, cleanup, ""
}
