// Command hostileagent answers the controller like fleet-agent (version, sha256, probe) but, on sweep and on
// measure (its probe, then the sweep), prints hostile protocol lines among good points. FLEET_HOSTILE (from the
// board's env in boards.toml) picks them:
//
//	longline   a point line over 1 MiB (block size 777)
//	numbers    points with 1e999, -5, NaN and a negative count (block size 999)
//	protocol   a hello with protocol version 99, then good points
//	utf8       a point and a log line with invalid UTF-8 (block size 555)
//	flood      100000 lines of garbage after the first point
//	probe      on probe (not sweep): a facts line over 1 MiB
//	offplan    a point for mode devcrypto, which the plan did not ask for (block size 333)
//	endless    garbage after the first point, without end, ignoring stdin: the controller must cut it off
//
// Good points all have bytes_per_sec 1234567 and wall_s 1, so a stored value that differs is a corrupted one.
// Message shapes copy agent/protocol.go and agent/facts.go.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

type plan struct {
	Algorithms []string `json:"algorithms"`
	Modes      []string `json:"modes"`
	Sizes      []int    `json:"sizes"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hostileagent version | sha256 FILE | probe | sweep | measure")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	switch os.Args[1] {
	case "version":
		fmt.Fprintln(out, "0.1.0+hostile")
	case "sha256":
		f, err := os.Open(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		h := sha256.New()
		io.Copy(h, f)
		fmt.Fprintf(out, "%x\n", h.Sum(nil))
	case "probe":
		fmt.Fprintln(out, hello(1))
		probe(out)
		fmt.Fprintln(out, `{"type":"done","points":0,"skips":0,"failed":0}`)
	case "sweep":
		sweep(out, true)
	case "measure":
		// probe, then sweep the plan read on stdin; the hello, sent once, is the sweep's
		if os.Getenv("FLEET_HOSTILE") == "protocol" {
			fmt.Fprintln(out, hello(99))
		} else {
			fmt.Fprintln(out, hello(1))
		}
		probe(out)
		out.Flush()
		sweep(out, false)
	default:
		fmt.Fprintf(os.Stderr, "hostileagent: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func machine() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64"
	}
	return "x86_64"
}

func hello(protocol int) string {
	return fmt.Sprintf(`{"type":"hello","agent":"0.1.0+hostile","protocol":%d,"goos":"linux","goarch":%q}`, protocol, runtime.GOARCH)
}

func point(mode, alg string, size int, extra string) string {
	return fmt.Sprintf(`{"type":"point","mode":%q,"algorithm":%q,"op":"encrypt","block_size":%d,"threads":1,"repeat":0,`+
		`"count":1234567,"seconds":1,"timing":"wall","bytes_per_sec":1234567,"wall_s":1,"user_s":0.9,"sys_s":0.1,"cpu_pct":100%s}`,
		mode, alg, size, extra)
}

func probe(out *bufio.Writer) {
	if os.Getenv("FLEET_HOSTILE") == "probe" {
		fmt.Fprintf(out, `{"type":"facts","hostname":%q}`+"\n", strings.Repeat("h", 2<<20))
	}
	fmt.Fprintf(out, `{"type":"facts","hostname":"hostile","uname":"Linux hostile","machine":%q,"kernel":"6.1.0","cpu":{"cores":1},"openssl":"OpenSSL 3.0.19 27 Jan 2026","openssl_version":"3.0.19","dev_crypto":false,"af_alg":false,"modes":[{"mode":"soft","available":true},{"mode":"cpu","available":true}]}`+"\n", machine())
}

func sweep(out *bufio.Writer, withHello bool) {
	kind := os.Getenv("FLEET_HOSTILE")
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	var p plan
	if err != nil || json.Unmarshal(line, &p) != nil || len(p.Modes) == 0 || len(p.Algorithms) == 0 {
		if withHello {
			fmt.Fprintln(out, hello(1))
		}
		fmt.Fprintln(out, `{"type":"error","msg":"read plan: bad plan"}`)
		fmt.Fprintln(out, `{"type":"done","points":0,"skips":0,"failed":0}`)
		return
	}
	switch {
	case !withHello:
	case kind == "protocol":
		fmt.Fprintln(out, hello(99))
	default:
		fmt.Fprintln(out, hello(1))
	}
	n := 0
	for _, mode := range p.Modes {
		for _, alg := range p.Algorithms {
			for _, size := range p.Sizes {
				fmt.Fprintln(out, point(mode, alg, size, ""))
				out.Flush()
				n++
				if n == 1 {
					hostile(out, kind, mode, alg)
				}
			}
		}
	}
	fmt.Fprintf(out, `{"type":"done","points":%d,"skips":0,"failed":0}`+"\n", n)
}

// hostile prints the bad lines after the first good point.
func hostile(out *bufio.Writer, kind, mode, alg string) {
	switch kind {
	case "longline":
		pad := strings.Repeat("A", 3<<19) // 1.5 MiB
		fmt.Fprintln(out, point(mode, alg, 777, `,"error":"`+pad+`"`))
	case "numbers":
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 999, ""), `"bytes_per_sec":1234567`, `"bytes_per_sec":1e999`, 1))
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 999, ""), `"bytes_per_sec":1234567`, `"bytes_per_sec":-5`, 1))
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 999, ""), `"wall_s":1`, `"wall_s":NaN`, 1))
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 999, ""), `"count":1234567`, `"count":-1`, 1))
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 999, ""), `"cpu_pct":100`, `"cpu_pct":-1e308`, 1))
	case "flood":
		for range 100000 {
			fmt.Fprintln(out, "garbage, not JSON")
		}
	case "offplan":
		fmt.Fprintln(out, point("devcrypto", alg, 333, `,"engine":"devcrypto"`))
	case "endless":
		for {
			if _, err := fmt.Fprintln(out, "garbage, not JSON, and more of it"); err != nil {
				os.Exit(1)
			}
		}
	case "utf8":
		// Raw bytes, not JSON escapes: 0xff 0xfe is no UTF-8.
		fmt.Fprintln(out, strings.Replace(point(mode, alg, 555, ""), `"algorithm":"`+alg+`"`, `"algorithm":"`+alg+"\xff\xfe\"", 1))
		fmt.Fprintln(out, `{"type":"log","level":"warn","msg":"bad `+"\xc3\x28"+` bytes"}`)
	}
	out.Flush()
}
