package lab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// energyPoint is the part of `fleet results --format json` the power test checks.
type energyPoint struct {
	Board         string   `json:"board"`
	Mode          string   `json:"mode"`
	BlockSize     int      `json:"block_size"`
	BytesPerSec   float64  `json:"bytes_per_sec"`
	CPUPct        float64  `json:"cpu_pct"`
	Failed        bool     `json:"failed"`
	Error         string   `json:"error"`
	Flags         []string `json:"flags"`
	EnergyJ       *float64 `json:"energy_j"`
	PowerW        *float64 `json:"power_w"`
	EnergySamples int      `json:"energy_samples"`
	UJPerByte     *float64 `json:"energy_uj_per_byte"`
	EnergyUnknown string   `json:"energy_unknown"`
}

// labPowerModel is each board's model in lab/lab (POWER_MODEL, mW): idle, per busy core, and its cores.
var labPowerModel = map[string][3]float64{"qemu-arm64": {2000, 1000, 2}, "qemu-armv7": {1500, 1500, 1}}

// powerModes are the sweep's modes: the CPU path, the kernel's through AF_ALG (cbc-aes-ce / -neonbs), the
// virtio-crypto offload (the work is done by QEMU's threads, outside the guest's CPUs) and /dev/crypto where the
// board has it (qemu-arm64; a skip with its reason on qemu-armv7).
const powerModes = "cpu,afalg,devcrypto,kcapi:virtio_crypto_aes_cbc"

// TestLabPower boots both boards with their INA226 (i2c-stub + the kernel's ina2xx driver, the watts modelled by
// lab-power from the CPU load, at no fork a reading) and checks the path from the sensor to fleet's energy per
// point: the hwmon device is the driver's, `fleet boards check` lists its rail, a short sweep stores energy with
// every point (or the flagged too-short state with its reason, never a silent zero) at a power inside the board's
// model, and `fleet compare` prints µJ/B per mode. The figures are logged; whether an offload that leaves the CPU
// idle costs less per byte is reported, not asserted, since the host's load moves the emulated throughput.
func TestLabPower(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	boards := []string{"qemu-arm64", "qemu-armv7"}
	root, lab, runDir, env := labPaths(t, strings.Join(boards, ","))
	tmp := t.TempDir()
	fleetBin := filepath.Join(tmp, "fleet")
	db := filepath.Join(tmp, "power.db")
	inv := filepath.Join(runDir, "boards.toml")
	mustRun(t, ctx, nil, root, "go", "build", "-o", fleetBin, "./cmd/fleet")
	mustRun(t, ctx, env, root, lab, "build")
	t.Cleanup(func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := command(t, down, env, root, lab, "down"); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	mustRun(t, ctx, env, root, lab, "up")
	fleet := func(args ...string) string {
		t.Helper()
		return mustRun(t, ctx, nil, root, fleetBin, append([]string{"--inventory", inv, "--db", db}, args...)...)
	}
	checkPowerInventory(t, inv, boards)
	for _, b := range boards {
		checkGuestSensor(t, ctx, env, root, lab, runDir, b)
	}
	check := fleet("boards", "check", "--all")
	if n := strings.Count(check, "hwmon:ina226/1  (hwmon0 channel 1, read as power"); n != len(boards) {
		t.Errorf("boards check: %d ina226 rails listed, want one per board (%d) in\n%s", n, len(boards), check)
	}
	if !strings.Contains(check, "read as power, updated every 282 ms") {
		t.Errorf("boards check: the ina226 rail is not read as power every 282 ms in\n%s", check)
	}
	fleet("run", "--boards", strings.Join(boards, ","), "--modes", powerModes, "--algorithms", "aes-128-cbc",
		"--sizes", "16,16384", "--seconds", "1", "--repeat", "1")
	var points []energyPoint
	if err := json.Unmarshal([]byte(fleet("results", "--format", "json")), &points); err != nil {
		t.Fatalf("results --format json: %v", err)
	}
	checkEnergyPoints(t, points)
	checkCompareEnergy(t, fleet("compare"), points)
}

// checkPowerInventory: lab/lab up names the sensor for each board in boards.toml.
func checkPowerInventory(t *testing.T, inv string, boards []string) {
	t.Helper()
	b, err := os.ReadFile(inv)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "power = \"hwmon:ina226\"\n"); n != len(boards) {
		t.Errorf("%s: %d boards with power = \"hwmon:ina226\", want %d:\n%s", inv, n, len(boards), b)
	}
}

// checkGuestSensor: the board's console says the model started, and its hwmon device is the ina2xx driver's
// ina226 on the stub's bus, with the driver's files; i2cget reads back through the bus what the driver reports.
func checkGuestSensor(t *testing.T, ctx context.Context, env []string, root, lab, runDir, board string) {
	t.Helper()
	console, err := os.ReadFile(filepath.Join(runDir, board+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(console), "lab: power: ina226 on i2c-") {
		t.Errorf("%s: the console has no \"lab: power: ina226 on i2c-…\" line:\n%s", board, console)
	}
	out := mustRun(t, ctx, env, root, lab, "ssh", board, `for h in /sys/class/hwmon/hwmon*; do
	[ "$(cat $h/name)" = ina226 ] || continue
	echo "driver=$(basename $(readlink $h/device/driver)) bus=$(cat $h/device/../name)"
	for f in in0_input in1_input curr1_input power1_input shunt_resistor update_interval; do echo "$f=$(cat $h/$f)"; done
done`)
	for _, want := range []string{"driver=ina2xx bus=SMBus stub driver\n", "in1_input=5000\n", "shunt_resistor=10000\n",
		"update_interval=282\n", "power1_input="} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: the ina226 hwmon device lacks %q:\n%s", board, want, out)
		}
	}
	var uw float64
	if i := strings.Index(out, "power1_input="); i >= 0 {
		fmt.Sscanf(out[i:], "power1_input=%g", &uw)
	}
	m := labPowerModel[board]
	if w := uw / 1e6; w < m[0]/1000-0.01 || w > (m[0]+m[1]*m[2])/1000+0.01 {
		t.Errorf("%s: power1_input %.3f W, outside the model's %.1f–%.1f W", board, w, m[0]/1000, (m[0]+m[1]*m[2])/1000)
	}
	checkModelCost(t, ctx, env, root, lab, board, string(console))
}

// modelCostSeconds is how long checkModelCost watches the board at rest.
const modelCostSeconds = 5

// checkModelCost: the power model costs the board next to nothing, as a real INA226 does: over modelCostSeconds
// at rest, the board starts almost no process (its fork counter, /proc/stat's "processes", moves by the one sleep
// of the check, where the sh model forked usleep and three i2cset per 282 ms reading, about 70 in 5 s), and the
// daemon the console names is lab-power's loop, still running; its CPU ticks are logged.
func checkModelCost(t *testing.T, ctx context.Context, env []string, root, lab, board, console string) {
	t.Helper()
	match := regexp.MustCompile(`\(lab-power pid ([0-9]+)\)`).FindStringSubmatch(console)
	if match == nil {
		t.Errorf("%s: the console's lab: power: line names no \"(lab-power pid N)\"", board)
		return
	}
	out := mustRun(t, ctx, env, root, lab, "ssh", board, `pid=`+match[1]+`
read -r s0 </proc/$pid/stat || exit 1
while read -r k v _; do [ "$k" != processes ] || a=$v; done </proc/stat
sleep `+fmt.Sprint(modelCostSeconds)+`
while read -r k v _; do [ "$k" != processes ] || b=$v; done </proc/stat
read -r s1 </proc/$pid/stat || exit 1
echo "forks=$((b - a))"
echo "stat0=${s0##*) }"
echo "stat1=${s1##*) }"
echo "cmdline=$(tr '\0' ' ' </proc/$pid/cmdline)"`)
	var forks int
	var cmdline string
	var ticks [2]int
	for line := range strings.SplitSeq(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "forks":
			fmt.Sscan(v, &forks)
		case "stat0", "stat1":
			// After the comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime.
			f := strings.Fields(v)
			if len(f) < 13 {
				t.Fatalf("%s: /proc/%s/stat: %q", board, match[1], v)
			}
			var u, s int
			fmt.Sscan(f[11], &u)
			fmt.Sscan(f[12], &s)
			ticks[k[4]-'0'] = u + s
		case "cmdline":
			cmdline = v
		}
	}
	if !strings.Contains(cmdline, "lab-power loop ") {
		t.Errorf("%s: pid %s is %q, want lab-power's loop", board, match[1], cmdline)
	}
	if forks > 3 {
		t.Errorf("%s: %d processes started in %d s at rest, want at most 3 (the check's sleep): the power model forks",
			board, forks, modelCostSeconds)
	}
	t.Logf("%s: at rest for %d s: %d processes started, lab-power (pid %s) used %d CPU ticks", board,
		modelCostSeconds, forks, match[1], ticks[1]-ticks[0])
}

// checkEnergyPoints: every measured point carries energy from at least one reading at a power inside its board's
// model, or is flagged too short with the reason; none carries a silent zero.
func checkEnergyPoints(t *testing.T, points []energyPoint) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range points {
		name := fmt.Sprintf("%s %s %d B", p.Board, p.Mode, p.BlockSize)
		if p.Failed {
			t.Errorf("%s: failed: %s", name, p.Error)
			continue
		}
		seen[p.Board+" "+p.Mode] = true
		if p.EnergyJ == nil {
			if !slices.Contains(p.Flags, "energy-short") || p.EnergyUnknown == "" {
				t.Errorf("%s: no energy, flags %v, reason %q; want energy or the energy-short flag with a reason", name,
					p.Flags, p.EnergyUnknown)
			}
			t.Logf("%s: energy unknown: %s", name, p.EnergyUnknown)
			continue
		}
		if *p.EnergyJ <= 0 || p.EnergySamples <= 0 || p.PowerW == nil {
			t.Errorf("%s: energy %.4f J from %d samples (power %v); want > 0 from ≥ 1", name, *p.EnergyJ, p.EnergySamples,
				p.PowerW)
			continue
		}
		m := labPowerModel[p.Board]
		if w := *p.PowerW; w < m[0]/1000-0.01 || w > (m[0]+m[1]*m[2])/1000+0.01 {
			t.Errorf("%s: %.3f W, outside the model's %.1f–%.1f W", name, w, m[0]/1000, (m[0]+m[1]*m[2])/1000)
		}
		uj := "–"
		if p.UJPerByte != nil {
			uj = fmt.Sprintf("%.4g", *p.UJPerByte)
		}
		t.Logf("%s: %.3f MB/s, CPU %.0f %%, %.3f W, %.3f J from %d samples, %s µJ/B above idle", name, p.BytesPerSec/1e6,
			p.CPUPct, *p.PowerW, *p.EnergyJ, p.EnergySamples, uj)
	}
	for _, want := range []string{"qemu-arm64 cpu", "qemu-arm64 afalg", "qemu-arm64 devcrypto",
		"qemu-arm64 kcapi:virtio_crypto_aes_cbc", "qemu-armv7 cpu", "qemu-armv7 afalg", "qemu-armv7 kcapi:virtio_crypto_aes_cbc"} {
		if !seen[want] {
			t.Errorf("no measured point for %s", want)
		}
	}
}

// checkCompareEnergy: compare heads a µJ/B column for each board's modes, and the figures at 16 KiB are logged
// beside CPU %: does the offload that leaves the guest CPU idle cost less per byte than cpu in the model?
func checkCompareEnergy(t *testing.T, text string, points []energyPoint) {
	t.Helper()
	if n := strings.Count(text, "µJ/B"); n < 2 {
		t.Errorf("compare: %d µJ/B headings, want one per board's table at least:\n%s", n, text)
	}
	for _, mode := range []string{"cpu", "afalg", "devcrypto", "kcapi:virtio_crypto_aes_cbc"} {
		if !strings.Contains(text, mode) {
			t.Errorf("compare: no column for %s:\n%s", mode, text)
		}
	}
	at := map[string]energyPoint{}
	for _, p := range points {
		if p.BlockSize == 16384 && p.UJPerByte != nil {
			at[p.Board+" "+p.Mode] = p
		}
	}
	for _, b := range []string{"qemu-arm64", "qemu-armv7"} {
		cpu, okc := at[b+" cpu"]
		off, oko := at[b+" kcapi:virtio_crypto_aes_cbc"]
		if !okc || !oko {
			t.Logf("%s at 16384 B: cpu or offload without µJ/B: no comparison", b)
			continue
		}
		t.Logf("%s at 16384 B: offload %.4g µJ/B (CPU %.0f %%, %.2f MB/s) against cpu %.4g µJ/B (CPU %.0f %%, %.2f MB/s): "+
			"offload/cpu %.2f×", b, *off.UJPerByte, off.CPUPct, off.BytesPerSec/1e6, *cpu.UJPerByte, cpu.CPUPct,
			cpu.BytesPerSec/1e6, *off.UJPerByte / *cpu.UJPerByte)
	}
}
