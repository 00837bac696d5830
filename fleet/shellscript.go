package fleet

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"

	"github.com/fleetlab/fleet/agent"
)

// The shell path's script, sent to `sh -s` on the board's stdin one request at a time: the prelude once, then the
// probe, then one request per openssl run. Everything is POSIX sh (BusyBox ash, dash): builtins, and the
// utilities cat, uname, mkdir, rm, sleep and kill; no bash, no `time` applet, no awk. Nothing is written on the
// board but one private directory under /tmp, removed when the shell exits (also on a signal): the stderr of the
// command running now, and the verification's inputs and outputs, which cross the session as base64 that the
// board's own openssl decodes and encodes (`openssl base64`: binary data through a shell needs no od or printf
// escapes then, and base64 is in every openssl).
//
// What each function prints is records (shellframe.go):
//
//	fleet_m KIND ARG   a marker line, after a newline of its own
//	fleet_f PATH…      each readable multi-line file as an F record (one cat each: the probe's large files)
//	fleet_r PATH…      the same with the read builtin, no process (a fork costs an emulated or small board
//	                   more than reading a few lines byte by byte); of /proc/vmstat only the pswp lines
//	fleet_v PATH…      each readable one-line file as a V record (the read builtin: no process)
//	fleet_s b|a        a sample of the board's state: /proc/stat, /proc/loadavg, /proc/vmstat, /proc/interrupts,
//	                   cpufreq and thermal files, and the shell's times. Before a command the times come last and
//	                   after it first, with /proc/stat beside them, so that the window /proc/stat measures is
//	                   the command's and the children's CPU in times is the command's alone.
//	fleet_w SECONDS s  waits for the command just started in the background ($!), killing it (fleet_k) after SECONDS (a
//	                   hung driver must not keep the board busy after the controller is gone), then prints its
//	                   exit status, the sample after it (with s) and its stderr. A fast command's watchdog is
//	                   stopped just as it starts, so: by USR1, which the session does not trap (a signal the
//	                   parent traps is lost when it reaches the subshell before its own trap is set, and the
//	                   watchdog then never ends); its trap kills the sleep by $! (set at the fork, when a variable
//	                   assigned after it may not be yet) once the sleep is forked (before, $! is the command's),
//	                   with SIGKILL (a signal caught by the forked shell before it execs sleep is lost too).
//	                   The watchdog sleeps one second at a time and, after each, writes a NUL byte to the
//	                   session's stderr (the controller drops NULs there): a session whose controller is gone
//	                   (SIGKILL, a lost connection: no signal reaches a shell without a terminal, only its pipes
//	                   close) fails that write, and the watchdog kills the command at once instead of sleeping
//	                   out its SECONDS; the shell then dies writing the command's exit. A subshell makes the
//	                   write, so that the SIGPIPE kills it and not the watchdog.
//	fleet_k PID        SIGKILLs PID and every process under it, found by their parent in /proc/PID/stat (the
//	                   field after the last ')': comm may hold any). The session's commands share its process
//	                   group (no job control without a terminal: dash refuses set -m), so killing only the
//	                   command left a wrapper's children behind (an openssl wrapper's sleep, reparented to
//	                   init). Each is stopped as it is found, so that none forks behind the walk.
//	fleet_x            the EXIT trap: removes the session's directory, but only in the session's own shell. A
//	                   USR1 that reaches bash's watchdog between its fork and its trap kills it through bash's
//	                   handler, which runs the EXIT trap the child still holds from the session: without the
//	                   guard it removed the directory under the session's next command (whose 2>"$fleet_d/err"
//	                   then failed, exit 1, no output). $$ is the session's pid in every subshell; the pid of
//	                   the shell running the trap is the parent of a process it starts (sh -c, POSIX: no
//	                   $BASHPID in dash or ash). The signal traps call it themselves: a signal that comes while
//	                   the shell waits for its next request is handled when the input ends, and an exit in a trap
//	                   run then skips the EXIT trap (dash, BusyBox ash and bash alike), which left the directory
//	                   of every session stopped with SIGTERM and its stdin closed, as the transports stop one.
//
// Before it makes its directory the prelude removes those of earlier sessions whose shell is gone (no
// /proc/PID; kill -0 where there is no /proc): a session killed with SIGKILL, a board that lost power or an
// SSH server that killed its children runs no EXIT trap, and each such session left a directory behind. A
// directory whose PID lives again is kept (it may be that session's), and so is one that is not ours to
// remove (rm fails quietly).
const shellPrelude = `umask 077
fleet_n=%[1]s
fleet_d=/tmp/fleet-sh.$$.%[2]s
fleet_m() { printf '\n@@%%s %%s\n' "$fleet_n" "$*"; }
fleet_f() { for fleet_p in "$@"; do [ -r "$fleet_p" ] && [ -f "$fleet_p" ] && fleet_m F "$fleet_p" && cat "$fleet_p" 2>/dev/null; done; }
fleet_r() {
	for fleet_p in "$@"; do
		[ -r "$fleet_p" ] && [ -f "$fleet_p" ] || continue
		fleet_m F "$fleet_p"
		case "$fleet_p" in
		/proc/vmstat) while IFS= read -r fleet_l; do case "$fleet_l" in pswp*) printf '%%s\n' "$fleet_l";; esac; done < "$fleet_p";;
		*) while IFS= read -r fleet_l || [ -n "$fleet_l" ]; do printf '%%s\n' "$fleet_l"; done < "$fleet_p";;
		esac
	done
}
fleet_v() {
	for fleet_p in "$@"; do
		[ -r "$fleet_p" ] || continue
		fleet_l=
		{ IFS= read -r fleet_l < "$fleet_p" || [ -n "$fleet_l" ]; } 2>/dev/null || continue
		fleet_m V "$fleet_p"
		printf '%%s' "$fleet_l"
	done
}
set -- /sys/devices/system/cpu/cpufreq/policy*
if [ -e "$1" ]; then fleet_cf='/sys/devices/system/cpu/cpufreq/policy*'; else fleet_cf='/sys/devices/system/cpu/cpu[0-9]*/cpufreq'; fi
fleet_s() {
	fleet_m S "$1"
	if [ "$1" = a ]; then fleet_m T; times; fleet_r /proc/stat; fi
	fleet_v /proc/loadavg /sys/devices/system/cpu/offline $fleet_cf/related_cpus $fleet_cf/scaling_driver \
		$fleet_cf/scaling_governor $fleet_cf/scaling_min_freq $fleet_cf/scaling_max_freq $fleet_cf/cpuinfo_max_freq \
		$fleet_cf/scaling_cur_freq /sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp \
		/sys/class/thermal/thermal_zone*/trip_point_*_type /sys/class/thermal/thermal_zone*/trip_point_*_temp \
		/sys/class/hwmon/hwmon*/name /sys/class/hwmon/hwmon*/temp*_input /sys/class/hwmon/hwmon*/temp*_max \
		/sys/class/hwmon/hwmon*/temp*_crit
	fleet_r /proc/vmstat /proc/interrupts $fleet_cf/stats/time_in_state
	if [ "$1" = b ]; then fleet_r /proc/stat; fleet_m T; times; fi
	fleet_m Z
}
fleet_k() {
	fleet_kall= fleet_kgen=$1
	kill -STOP $1
	while [ -n "$fleet_kgen" ]; do
		fleet_kall="$fleet_kall $fleet_kgen" fleet_knext=
		for fleet_kst in /proc/[0-9]*/stat; do
			read -r fleet_kl <"$fleet_kst" || continue
			set -- ${fleet_kl##*") "}
			for fleet_kp in $fleet_kgen; do
				[ "$2" = "$fleet_kp" ] || continue
				fleet_kp=${fleet_kst#/proc/}; fleet_kp=${fleet_kp%%/stat}
				kill -STOP $fleet_kp && fleet_knext="$fleet_knext $fleet_kp"
			done
		done 2>/dev/null
		fleet_kgen=$fleet_knext
	done
	kill -9 $fleet_kall
}
fleet_w() {
	fleet_pid=$!
	( trap '[ "$!" = "$fleet_pid" ] || kill -9 $! 2>/dev/null; exit 0' USR1
	  fleet_t=$1
	  while [ "$fleet_t" -gt 0 ]; do
	    sleep 1 &
	    wait $! || exit 0
	    ( printf '\000' >&3 ) 2>/dev/null || break
	    fleet_t=$((fleet_t - 1))
	  done
	  fleet_k $fleet_pid ) </dev/null >/dev/null 3>&2 2>/dev/null &
	fleet_wd=$!
	wait $fleet_pid
	fleet_rc=$?
	fleet_m X "$fleet_rc"
	[ "$2" = s ] && fleet_s a
	kill -USR1 $fleet_wd 2>/dev/null
	wait $fleet_wd
	fleet_m E
	cat "$fleet_d/err" 2>/dev/null
}
fleet_x() { sh -c '[ "$PPID" = "$1" ]' fleet_x "$$" && rm -rf "$fleet_d"; }
trap fleet_x EXIT
trap 'fleet_x; exit 129' HUP
trap 'fleet_x; exit 130' INT
trap 'fleet_x; exit 143' TERM
trap 'fleet_x; exit 141' PIPE
for fleet_q in /tmp/fleet-sh.*.*; do
	fleet_p=${fleet_q#/tmp/fleet-sh.}; fleet_p=${fleet_p%%%%.*}
	case $fleet_p in ''|*[!0-9]*) continue;; esac
	[ -d "$fleet_q" ] && [ ! -L "$fleet_q" ] && [ "$fleet_p" != "$$" ] || continue
	if [ -d /proc/self ]; then [ -d "/proc/$fleet_p" ] && continue; else kill -0 "$fleet_p" 2>/dev/null && continue; fi
	rm -rf "$fleet_q" 2>/dev/null
done
if ! mkdir -m 700 "$fleet_d" 2>/dev/null; then fleet_m V error; printf 'cannot make %%s' "$fleet_d"; fleet_m Q; exit 1; fi
fleet_m V dir
printf '%%s' "$fleet_d"
fleet_m Q
`

// preludeScript is the session's prelude with its nonce.
func preludeScript(nonce string) string {
	return fmt.Sprintf(shellPrelude, nonce, nonce[:8])
}

// probeFiles are the files the agent's probe reads, mirrored from the board for agent.RemoteFacts.
var probeFiles = []string{"/proc/cpuinfo", "/proc/crypto", "/proc/interrupts", "/proc/meminfo", "/etc/os-release", "/usr/lib/os-release"}

// probeValues are the one-line files of the probe.
var probeValues = []string{"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_cur_freq",
	"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"}

// unameOptions are the uname calls of the probe, in RemoteProbe's order.
var unameOptions = []string{"-s", "-n", "-r", "-v", "-m"}

// probeScript is the probe request: a sample, uname, the probe's files, /dev/crypto, where openssl is, then
// openssl version -a, engine -t NAME for each engine and the lists of ciphers and digests (lists: argvs of "$fleet_o"),
// then a sample after it.
func probeScript(openssl string, env []string, engines []string, lists [][]string, timeoutS int) string {
	var b strings.Builder
	b.WriteString("fleet_s b\n")
	for _, o := range unameOptions {
		fmt.Fprintf(&b, "fleet_m V uname:%s; uname %s 2>/dev/null\n", o, o)
	}
	b.WriteString("fleet_f " + quoteWords(probeFiles) + "\n")
	b.WriteString("fleet_v " + quoteWords(probeValues) + "\n")
	b.WriteString("[ -e /dev/crypto ] && fleet_m D\n")
	fmt.Fprintf(&b, "if fleet_o=$(command -v %s); then fleet_m P +; printf '%%s' \"$fleet_o\"; else fleet_m P -; fi\n", shellQuote(openssl))
	b.WriteString("if [ -n \"$fleet_o\" ]; then\n")
	b.WriteString(runLine(env, []string{"$fleet_o", "version", "-a"}, timeoutS, false))
	for _, e := range engines {
		b.WriteString(runLine(env, []string{"$fleet_o", "engine", "-t", e}, timeoutS, false))
	}
	for _, argv := range lists {
		b.WriteString(runLine(env, argv, timeoutS, false))
	}
	b.WriteString("fi\nfleet_s a\nfleet_m Q\n")
	return b.String()
}

// pointScript is the request of one command measured: a sample, the command in the background under a watchdog
// of timeoutS seconds, its exit, the sample after it and its stderr.
func pointScript(env, argv []string, timeoutS int) string {
	return "fleet_s b\n" + runLine(env, argv, timeoutS, true) + "fleet_m Q\n"
}

// runLine starts argv with env as prefix assignments, every word quoted ("$fleet_o", the openssl the board's
// shell found, is the one word left to the shell), and waits for it with fleet_w.
func runLine(env, argv []string, timeoutS int, sample bool) string {
	return runLineFrom(env, argv, "/dev/null", `"$fleet_d/err"`, timeoutS, sample)
}

// runLineFrom is runLine with stdin from the file stdin ("$fleet_d/…" is left to the shell) and stderr to
// stderr (a file, or &1: into the command's stdout).
func runLineFrom(env, argv []string, stdin, stderr string, timeoutS int, sample bool) string {
	var b strings.Builder
	b.WriteString("fleet_m R\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString(k + "=" + shellQuote(v) + " ")
	}
	for i, a := range argv {
		if i > 0 {
			b.WriteString(" ")
		}
		if a == "$fleet_o" {
			b.WriteString(`"$fleet_o"`)
		} else {
			b.WriteString(shellQuote(a))
		}
	}
	if strings.HasPrefix(stdin, "$fleet_d/") {
		b.WriteString(` <"` + stdin + `"`)
	} else {
		b.WriteString(" <" + shellQuote(stdin))
	}
	b.WriteString(" 2>" + stderr + " &\n")
	s := ""
	if sample {
		s = " s"
	}
	fmt.Fprintf(&b, "fleet_w %d%s\n", max(timeoutS, 1), s)
	return b.String()
}

func quoteWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// watchdogSeconds is the board-side bound of a command: what is left of the controller's deadline, less a margin
// so that the board's kill and its output arrive before the controller gives up on the session.
func watchdogSeconds(left float64) int {
	if left <= 0 || math.IsInf(left, 1) {
		return 3600
	}
	return max(int(left)-10, 5)
}

// base64End ends the here-document of a file's base64: '_' is in no base64 alphabet, so no line of it is this.
const base64End = "FLEET_B64_END"

// writeFileLines writes data to path on the board: its base64 in a here-document, decoded by the board's openssl,
// as a command of its own (R, X, E records). Its stderr comes in its stdout (R), not through the err file: the
// write that fills the disk would lose the "No space left on device" that says so. OpenSSL's base64 -d does not
// say it ("error writing output file", 3.0), so a failed write adds the space left where it writes (POSIX df,
// after dfMarker; diskFull reads it).
func writeFileLines(path string, data []byte) string {
	var b strings.Builder
	b.WriteString("fleet_m R\n")
	if strings.HasPrefix(path, "$fleet_d/") {
		path = `"` + path + `"`
	} else {
		path = shellQuote(path)
	}
	fmt.Fprintf(&b, "\"$fleet_o\" base64 -d -out %s 2>&1 <<'%s'\n", path, base64End)
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 64 {
		b.WriteString(enc[:64] + "\n")
		enc = enc[64:]
	}
	if enc != "" {
		b.WriteString(enc + "\n")
	}
	b.WriteString(base64End + "\nfleet_wx=$?\n[ $fleet_wx -eq 0 ] || { printf '\\n%s\\n' " + dfMarker +
		"; df -P -k \"$fleet_d\" 2>&1; }\nfleet_m X $fleet_wx\nfleet_m E\n")
	return b.String()
}

// writeFileScript is the request that writes one file.
func writeFileScript(path string, data []byte) string {
	return writeFileLines(path, data) + "fleet_m Q\n"
}

// execScript is the request of one verification command: the removals, its stdin written, the command under the
// watchdog, then each file to read back as a B record of its base64 (a V b64 record names one that could not
// be encoded). The command's stderr comes in its stdout, as a write's does (writeFileLines): its -out file may
// fill the disk the err file is on; the err file is emptied, so that fleet_w's E record is empty.
func execScript(e agent.RemoteExec, timeoutS int) string {
	var b strings.Builder
	if len(e.Remove) > 0 {
		b.WriteString("rm -f " + quoteWords(e.Remove) + "\n")
	}
	if len(e.Argv) > 0 {
		stdin := "/dev/null"
		if e.Stdin != nil {
			stdin = "$fleet_d/stdin"
			b.WriteString(writeFileLines(stdin, e.Stdin))
		}
		b.WriteString(": >\"$fleet_d/err\" 2>/dev/null\n")
		b.WriteString(runLineFrom(e.Env, e.Argv, stdin, "&1", timeoutS, false))
	}
	for _, p := range e.Read {
		q := shellQuote(p)
		fmt.Fprintf(&b, "if [ -f %s ]; then fleet_m B %s; \"$fleet_o\" base64 -in %s 2>/dev/null || { fleet_m V b64; printf '%%s' %s; }; fi\n", q, q, q, q)
	}
	b.WriteString("fleet_m Q\n")
	return b.String()
}
