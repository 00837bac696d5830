package report_test

import (
	"fmt"
	"os"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// points makes repeats of one series.
func points(run int64, mode string, size int, values ...float64) []store.Measurement {
	var ms []store.Measurement
	for i, v := range values {
		ms = append(ms, store.Measurement{RunID: run, Board: "am64x", Point: protocol.Point{Mode: mode, Algorithm: "aes-128-cbc",
			Op: "encrypt", BlockSize: size, Threads: 1, Repeat: i, Timing: "wall", BytesPerSec: v, CPUPct: 100}})
	}
	return ms
}

func ExampleCompare() {
	var ms []store.Measurement
	ms = append(ms, points(1, "cpu", 16, 78e6, 79e6, 78.5e6)...)
	ms = append(ms, points(1, "cpu", 16384, 120e6, 121e6, 120.5e6)...)
	ms = append(ms, points(1, "devcrypto", 16, 1.9e6, 1.8e6, 2e6)...)
	ms = append(ms, points(1, "devcrypto", 16384, 182e6, 181e6, 183e6)...)
	c, err := report.Compare(ms, report.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range c.Crossovers {
		fmt.Println(x)
	}
	fmt.Printf("%.2f×\n", c.Geomeans[0].Ratio)
	// Output:
	// am64x devcrypto aes-128-cbc: 16384 B
	// 0.19×
}

func ExampleRegress() {
	base := points(1, "cpu", 16384, 120e6, 121e6, 120.5e6, 119.5e6, 120.2e6)
	cur := points(2, "cpu", 16384, 90e6, 91e6, 90.5e6, 89.5e6, 90.2e6)
	r := report.Regress(base, cur, nil, nil, report.RegressOptions{})
	fmt.Println(r.HasRegression(), r.Rows[0].Verdict, r.Rows[0].Delta)
	report.WriteJUnit(os.Stdout, r)
	// Output:
	// true regressed −25.0%
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="fleet regress" tests="1" failures="1">
	//   <testsuite name="am64x" tests="1" failures="1" skipped="0">
	//     <testcase name="cpu/aes-128-cbc/16384" classname="fleet.regress.am64x">
	//       <failure message="aes-128-cbc 16384 B cpu: 120.2 MB/s → 90.20 MB/s (−25.0%), p=0.008 n=5+5" type="regressed">aes-128-cbc 16384 B cpu: 120.2 MB/s → 90.20 MB/s (−25.0%), p=0.008 n=5+5</failure>
	//       <system-out>regressed&#xA;baseline: run 1, 5 samples</system-out>
	//     </testcase>
	//   </testsuite>
	// </testsuites>
}
