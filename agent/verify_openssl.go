package agent

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

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
	workers  int
	host     verifyHost    // where the files are and openssl runs: here, or the board of the shell path
	deadline *pathDeadline // the path's one deadline (verify_deadline.go); nil: each run its own
	batch    bool          // the openssl has the interactive mode (verify_batch.go): one process runs many commands
	// only, when set, picks the enc runs of a path the agent verifies at every size itself (glueRuns)
	only func(decrypt bool, n int) bool
}

// verifyOpenSSL runs the verification of one openssl mode and algorithm.
func (s *sweepState) verifyOpenSSL(ctx context.Context, openssl string, v opensslVersion, mode, alg string) protocol.VerifyReport {
	spec, isCipher := protocol.VerifyCiphers[alg]
	_, isDigest := protocol.VerifyDigests[alg]
	if r, done := s.verifyNotEncOrDgst(ctx, openssl, v, mode, alg, isCipher || isDigest); done {
		return r
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
			return protocol.VerifyReport{Unknown: writeFailure(f, err)}
		}
		files[n] = f
		written = append(written, filepath.Base(f))
	}

	// a two-part verification (verify_engine.go): the agent's requests at every size, openssl for the glue
	glue, chunk := s.engineGlue(mode, alg), opensslEncChunk
	if glue {
		o.only, chunk = glueRuns(sizes), 0
	}
	if isDigest {
		r.Cases, r.Unknown = o.digests(ctx, sizes, files)
		if r.Unknown == "" {
			r.Cases = append(r.Cases, s.directCases(o.deadline, mode, alg, sizes, true, 1, min(chunk, opensslDgstChunk))...)
		}
	} else {
		var err string
		r.Cases, err = o.ciphers(ctx, spec, sizes, files, &written)
		if err != "" {
			return protocol.VerifyReport{Path: r.Path, Unknown: err}
		}
		r.Cases = append(r.Cases, s.directCases(o.deadline, mode, alg, sizes, false, spec.Block, chunk)...)
	}
	// a path past its deadline has hung already: its check under load would only hang again
	if workers := s.verifyWorkers(mode); workers > 0 && r.Unknown == "" && !o.deadline.expired() {
		size := verifyConcurrencySize(s.plan)
		if glue {
			if kspec, ok := kcapiSpecOf(alg); mode == protocol.ModeAFALG && ok {
				if s.checkedUnderLoad(kspec.Kind, kspec.Name) {
					return r // kcapi's check ran these very requests
				}
				s.markUnderLoad(kspec.Kind, kspec.Name)
			}
			r.Concurrency = s.directConcurrency(ctx, mode, alg, isDigest, max(spec.Block, 1), workers, s.verifySeconds(), size)
			return r
		}
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

// verifyNotEncOrDgst answers for the algorithms openssl enc and dgst do not run (done true): signatures by
// their own check, the rest unknown with what is checked instead.
func (s *sweepState) verifyNotEncOrDgst(ctx context.Context, openssl string, v opensslVersion, mode, alg string, encOrDgst bool) (protocol.VerifyReport, bool) {
	if a, _, _, ok := opensslspeed.AsymName(alg); ok {
		if a == "rsa" || a == "ecdsa" || a == "eddsa" {
			return s.verifySignature(ctx, openssl, v, mode, alg), true
		}
		return protocol.VerifyReport{Unknown: "verification checks the signatures of rsa, ecdsa and eddsa, not " + a}, true
	}
	if encOrDgst {
		return protocol.VerifyReport{}, false
	}
	why := "verification checks no " + alg + " yet (ciphers: aes cbc/ecb/ctr, des-ede3-cbc; digests: md5, sha1, sha2, sha3)"
	if strings.Contains(alg, "gcm") || strings.Contains(alg, "ccm") || strings.Contains(alg, "poly1305") || strings.Contains(alg, "ocb") {
		why = "openssl enc cannot run AEAD ciphers such as " + alg
	}
	return protocol.VerifyReport{Unknown: why}, true
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

// opensslEncChunk is the largest request `openssl enc` hands the cipher (and so an engine's driver): it reads its
// input in -bufsize pieces (8 KiB by default) and writes them through its cipher BIO, whose enc_write calls
// EVP_CipherUpdate with at most ENC_BLOCK_SIZE (4 KiB) at once, in every OpenSSL from 0.9 to 3.x (crypto/evp/
// bio_enc.c). -bufsize changes the read, not the update: on this machine's 3.0.19, a 64 KiB input reached
// EVP_CipherUpdate as 16 updates of 4096 B at -bufsize 8192 and at -bufsize 65536 alike (gdb, a breakpoint on
// EVP_CipherUpdate), so the verification does not pass it. A size above 4 KiB reaches the path in one piece only
// through the agent's own requests (verify_direct.go).
const opensslEncChunk = 4096

// opensslDgstChunk is the largest update `openssl dgst` hands a digest: it reads each file through its digest BIO
// in BUFSIZE (8 KiB) reads, one EVP_DigestUpdate per read (apps/dgst.c, 1.0.x to 3.x; 3.0.19 here: a 64 KiB file
// is 8 updates of 8192 B). dgst has no -bufsize.
const opensslDgstChunk = 8192

// ciphers runs every input through `openssl enc`, both ways (decryption of whole blocks only: unpadded), one
// openssl per input and direction, as many at once as the board has cores. Inputs that fill whole blocks go
// unpadded, as `openssl speed` runs them; others are padded (PKCS#7). An engine that did not load returns its
// reason and no cases.
//
// What each run verifies: the path's answer to an input of exactly that size, from a fresh key and IV, with its
// own final call: a size up to 4 KiB as one request of that size, a larger one as a chain of 4 KiB requests
// (opensslEncChunk). Each size is its own run, never the prefix of a longer run's output, so a path wrong only
// for one input length shows at that length; OpenSSL 3 has no batch mode that could take several messages in one
// process. That is 21 runs for the default sizes (13 encrypt, 8 decrypt), each an openssl start of a few
// milliseconds on a board, beside a sweep of 6 sizes × 3 s per mode and algorithm.
func (o *opensslVerifier) ciphers(ctx context.Context, spec protocol.VerifyCipherSpec, sizes []int, files map[int]string, written *[]string) ([]protocol.VerifyCase, string) {
	var cases []protocol.VerifyCase
	var argvs [][]string
	var outs []string
	var maxOut []int
	for _, dec := range []bool{false, true} {
		for _, n := range sizes {
			if dec && n%spec.Block != 0 || o.only != nil && !o.only(dec, n) {
				continue
			}
			c := protocol.VerifyCase{Op: "encrypt", Size: n, Padded: n%spec.Block != 0, Request: min(n, opensslEncChunk)}
			if dec {
				c.Op = "decrypt"
			}
			cases = append(cases, c)
			out := filepath.Join(o.dir, "out-"+strconv.Itoa(len(argvs)))
			*written = append(*written, filepath.Base(out))
			o.host.remove(out)
			outs = append(outs, out)
			maxOut = append(maxOut, n+verifyOutputSlack)
			argvs = append(argvs, o.encArgv(spec, files[n], out, dec, c.Padded))
		}
	}
	var results []childResult
	var outputs [][]byte
	var readErrs []error
	batched := false
	if o.batch && batchable(argvs) {
		results, outputs, readErrs, batched = o.runBatches(ctx, argvs, outs, maxOut)
	}
	if !batched {
		results, outputs, readErrs = o.runAndRead(ctx, argvs, outs, maxOut)
	}
	whys := make([]string, len(results))
	for i, res := range results {
		whys[i] = o.failed(res)
		if strings.HasPrefix(whys[i], "engine ") {
			return nil, whys[i]
		}
		if noSpace(res.Err, res.Stderr+"\n"+res.Stdout) {
			// not the path's fault: the outputs cannot be judged, which is unknown, not wrong
			return nil, fmt.Sprintf("openssl enc (%s %d B): writing the output to %s: no space left on device",
				cases[i].Op, cases[i].Size, outs[i])
		}
	}
	for i := range cases {
		c := &cases[i]
		switch {
		case whys[i] != "":
			c.Err = whys[i]
		case errors.As(readErrs[i], new(*errOutputTooLong)):
			c.Err = readErrs[i].Error() // its bytes say nothing more, and its length may pass the protocol's bound
		case readErrs[i] != nil:
			c.Err = fmt.Sprintf("read the output of openssl enc: %v", readErrs[i])
		default:
			padded, req := c.Padded, c.Request
			*c = newVerifyCase(c.Op, c.Size, outputs[i])
			c.Padded, c.Request = padded, req
		}
	}
	return cases, ""
}

// runAll runs every command, o.workers at once (at least one), and returns their results in order.
func (o *opensslVerifier) runAll(ctx context.Context, argvs [][]string) []childResult {
	results, _, _ := o.runAndRead(ctx, argvs, nil, nil)
	return results
}

// runAndRead is runAll that also reads back outs[i] (when outs is not nil, at most maxOut[i] bytes) right after command i ends: on the
// shell path the command's own request brings its -out file back, so reading it now costs no round trip.
func (o *opensslVerifier) runAndRead(ctx context.Context, argvs [][]string, outs []string, maxOut []int) ([]childResult, [][]byte, []error) {
	results := make([]childResult, len(argvs))
	read := make([][]byte, len(argvs))
	readErrs := make([]error, len(argvs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(o.workers, len(argvs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = o.run(ctx, argvs[i], "")
				if outs != nil && results[i].Err == nil && results[i].Exit == 0 {
					// a failed run's output is not judged: no read (on the shell path, no request)
					read[i], readErrs[i] = o.host.readFile(outs[i], maxOut[i])
				}
			}
		}()
	}
	for i := range argvs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, read, readErrs
}

// digests runs every input through one `openssl dgst` and returns a case per size. One process is enough: dgst
// starts a fresh digest for each file it names, so each size is its own message, up to 8 KiB in one update of
// that size and above it in 8 KiB updates (opensslDgstChunk).
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
			c := newVerifyCase("digest", n, d)
			c.Request = min(n, opensslDgstChunk)
			cases = append(cases, c)
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

// run runs one openssl of the path within what is left of its deadline: past it, nothing runs (skipped), and
// a run the deadline ended (killed here, or by the board's watchdog on the shell path) says so, naming the path
// and the deadline, instead of "context deadline exceeded" or the kill's exit.
func (o *opensslVerifier) run(ctx context.Context, argv []string, input string) childResult {
	if o.deadline.expired() {
		return childResult{Argv: argv, Env: o.env, Exit: -1, Err: o.deadline.skipped()}
	}
	res := o.host.run(ctx, argv, o.env, input, o.deadline.left())
	if ctx.Err() == nil && (res.Err != nil || res.Exit != 0) && o.deadline.expired() {
		res.Err = o.deadline.hung()
	}
	return res
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
	runConcurrency(ctx, c, workers, d, 0, nil, func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
		out := filepath.Join(o.dir, "conc-"+strconv.Itoa(w))
		for more() {
			var b []byte
			var res childResult
			if digest {
				res = o.run(ctx, append([]string{o.argv0, "dgst", "-" + o.alg}, append(o.opts, in)...), "")
				b = parseDgstOutput(res.Stdout)[in]
			} else {
				o.host.remove(out)
				res = o.run(ctx, o.encArgv(spec, in, out, false, size%spec.Block != 0), "")
				b, _ = o.host.readFile(out, size+verifyOutputSlack)
			}
			if why := o.failed(res); why != "" {
				return []string{fmt.Sprintf("worker %d: %s", w, why)}, isVerifyTimeout(res.Err)
			}
			mine.add(b)
		}
		return nil, false
	})
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
		alg: alg, dir: dir, workers: s.verifyProcesses(), host: host, deadline: s.pathDeadline(mode, alg),
		batch: v.Major < 3 && !v.LibreSSL}, cleanup, ""
}
