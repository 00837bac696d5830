package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeOpenSSL is a shell stand-in for openssl that answers `version -a`, `engine -t NAME` and `speed` in -mr
// form, fast, so sweep logic can be tested without waiting on real measurements:
//   - engine "fake" and "fakeok" are available, "envok" only with FAKE_ENGINE_OK=1, "devcrypto" only with
//     FAKE_DEVCRYPTO=1 (Debian's OpenSSL has no devcrypto engine), "slow" hangs, others do not exist; with
//     FAKE_DEVCRYPTO_DEFAULT=N devcrypto's help (engine -vvv) names USE_SOFTDRIVERS's default N;
//   - speed with -engine fake prints "Invalid engine" and runs anyway (the fallback OpenSSL does);
//   - speed with -engine fakeok (or envok, devcrypto) confirms the engine;
//   - speed of algorithm "broken-alg" exits 1;
//   - speed spends system CPU with $FAKE_SYS MiB read from /dev/zero when set (as an engine handing the work to
//     the kernel does);
//   - speed sleeps $FAKE_SLEEP seconds when set, before its first size (its start); without -bytes it measures
//     OpenSSL's default sizes in one run (16 and 64 bytes when $FAKE_VERSION is 1.0.x);
//   - between a size's +DT and +R lines it sleeps $FAKE_SIZE_SLEEP seconds, and $FAKE_SLOW_SLEEP more when the
//     size is $FAKE_SLOW_SIZE, and spends system CPU ($FAKE_SYS_MIB MiB from /dev/zero) when it is $FAKE_SYS_SIZE;
//   - it sleeps $FAKE_EXIT_SLEEP seconds after its last size (its exit);
//   - `version` prints $FAKE_VERSION when set (e.g. 1.0.2k: no -seconds, no -bytes);
//   - every speed run appends its mode markers to $FAKE_LOG so tests can check the order of runs.
const fakeOpenSSL = `#!/bin/sh
case "$1" in
version)
	echo "OpenSSL ${FAKE_VERSION:-3.0.99} 1 Jan 2026 (fake)"
	echo "built on: today"
	exit 0 ;;
engine)
	case "$3" in
	fake|fakeok) printf '(%s) fake engine\n     [ available ]\n' "$3"; exit 0 ;;
	devcrypto) [ "$FAKE_DEVCRYPTO" = 1 ] && { printf '(devcrypto) /dev/crypto engine\n'
			[ -n "$FAKE_DEVCRYPTO_DEFAULT" ] && printf '     USE_SOFTDRIVERS: specifies whether to use software (not accelerated) drivers (0=use only accelerated drivers, 1=allow all drivers, 2=use if acceleration can'"'"'t be determined) [default=%s]\n          (input flags): NUMERIC\n' "$FAKE_DEVCRYPTO_DEFAULT"
			printf '     [ available ]\n'; exit 0; }
		echo "40A7B1B3727F0000:error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=$3" >&2; exit 1 ;;
	envok) [ "$FAKE_ENGINE_OK" = 1 ] && { printf '(envok) needs its env\n     [ available ]\n'; exit 0; } ;;
	slow) sleep 30; exit 0 ;;
	*) echo "40A7B1B3727F0000:error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=$3" >&2; exit 1 ;;
	esac ;;
speed) ;;
*) echo "fake openssl: $1" >&2; exit 1 ;;
esac
shift
bytes="16 64 256 1024 8192 16384"; alg=""; engine=""; mode="cpu"
case "$FAKE_VERSION" in 1.0*) bytes="16 64" ;; esac
while [ $# -gt 0 ]; do
	case "$1" in
	-bytes) bytes=$2; shift ;;
	-seconds|-multi|-provider) shift ;;
	-engine) engine=$2; mode="engine:$2"; shift ;;
	-evp) alg=$2; shift ;;
	-*) ;;
	*) alg=$1 ;;
	esac
	shift
done
[ -n "$OPENSSL_armcap$OPENSSL_ia32cap" ] && mode=soft
[ -n "$FAKE_LOG" ] && echo "$mode $alg $bytes" >> "$FAKE_LOG"
[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"
[ -n "$FAKE_SYS" ] && dd if=/dev/zero of=/dev/null bs=1M count="$FAKE_SYS" 2>/dev/null
[ "$alg" = "broken-alg" ] && { echo "speed: Unknown algorithm broken-alg" >&2; exit 1; }
case "$engine" in
"") ;;
fakeok|envok|devcrypto) echo "Engine \"$engine\" set." >&2 ;;
*) echo "Invalid engine \"$engine\"" >&2 ;;
esac
U=$(echo "$alg" | tr a-z A-Z)
h="+H"; f="+F:25:$U"
for b in $bytes; do
	echo "+DT:$U:1:$b" >&2
	[ -n "$FAKE_SIZE_SLEEP" ] && sleep "$FAKE_SIZE_SLEEP"
	[ "$b" = "$FAKE_SLOW_SIZE" ] && sleep "$FAKE_SLOW_SLEEP"
	[ "$b" = "$FAKE_SYS_SIZE" ] && dd if=/dev/zero of=/dev/null bs=1M count="$FAKE_SYS_MIB" 2>/dev/null
	echo "+R:1000:$U:1.000000" >&2
	h="$h:$b"; f="$f:$((b * 1000)).00"
done
[ -n "$FAKE_EXIT_SLEEP" ] && sleep "$FAKE_EXIT_SLEEP"
echo "$h"
echo "$f"
`

// writeFakeOpenSSL installs fakeOpenSSL in a temporary directory and returns its path.
func writeFakeOpenSSL(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openssl")
	if err := os.WriteFile(p, []byte(fakeOpenSSL), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
