package opensslspeed

import "fmt"

// A pasted log: OpenSSL 1.0.0d on an AM335x with the cryptodev engine, timed on user CPU time (no -elapsed).
func ExampleParse() {
	const log = `root@am335x-evm:~# openssl speed -evp aes-256-cbc -engine cryptodev
engine "cryptodev" set.
Doing aes-256-cbc for 3s on 8192 size blocks: 2460 aes-256-cbc's in 0.01s
OpenSSL 1.0.0d 8 Feb 2011
The 'numbers' are in 1000s of bytes per second processed.
type             8192 bytes
aes-256-cbc     2015232.00k
`
	runs, err := Parse(log, Hint{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range runs {
		fmt.Println(r.Mode, r.Engine, r.Version, r.Timing)
		for _, p := range r.Points {
			fmt.Printf("%s %s %d B: %.0f B/s over %.0f s (line %d)\n", p.Algorithm, p.Op, p.BlockSize, p.BytesPerSec, p.WallEst, p.Line)
			fmt.Println(p.Flags[0])
		}
	}
	// Output:
	// devcrypto cryptodev 1.0.0d cpu
	// aes-256-cbc encrypt 8192 B: 6717440 B/s over 3 s (line 3)
	// cpu-timed: openssl reported 2015232000 B/s on user CPU time; rate re-derived on 3 s nominal wall time
}
