package inventory

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

var printErrors = flag.Bool("print-errors", false, "print the messages of TestParseErrors instead of comparing them")

// TestParseErrors holds one case per validation rule, each with the exact message a user reads.
func TestParseErrors(t *testing.T) {
	const board = "[boards.b]\nhost = \"h\"\n" // a valid board that cases extend; its keys start on line 3
	tests := []struct {
		name, doc, want string
	}{
		// Syntax and types, reported by go-toml and reworded.
		{"unterminated string", "[boards.b]\nhost = 'h\nport = 2\n",
			`boards.toml:2:10: board "b": literal strings cannot have new lines`},
		{"invalid UTF-8", "[boards.b]\nhost = \"h\xff\"\n",
			`boards.toml:2:10: board "b": invalid UTF-8 character in basic string`},
		{"duplicate key", board + "host = \"i\"\n",
			`boards.toml:3:1: board "b": duplicate key "host" (a key may be set only once in a table)`},
		{"table defined twice", board + "[boards.b]\nport = 22\n",
			`boards.toml:3:2: board "b": table b already exists`},
		{"date for a port", board + "port = 1979-05-27\n",
			`boards.toml:3:8: board "b": port: expected an integer, got a local date`},
		{"nested array for tags", board + "tags = [[\"x\"]]\n",
			`boards.toml:3:8: board "b": tags: expected an array of strings, got an array`},
		{"integer tag", board + "tags = [\"a\", 1]\n",
			`boards.toml:3:14: board "b": tags[1]: expected a string, got an integer`},
		{"env array table", board + "[[boards.b.env]]\nA = \"1\"\n",
			`boards.toml:3:3: board "b": env: expected a table of strings, such as env = { OPENSSL_CONF = "/etc/ssl/openssl.cnf" }, got an array table`},
		{"dotted keys at the root", "boards.b.host = \"h\"\nboards.b.port = 0\n",
			`boards.toml:2:17: board "b": port 0 is out of range (expected 1-65535)`},
		{"port is a string", board + "port = \"22\"\n",
			`boards.toml:3:8: board "b": port: expected an integer, got a string`},
		{"port is a float", board + "port = 22.5\n",
			`boards.toml:3:8: board "b": port: expected an integer, got a float`},
		{"modes is a string", board + "modes = \"soft\"\n",
			`boards.toml:3:9: board "b": modes: expected an array of strings, got a string`},
		{"env value is an integer", board + "env = { A = 1 }\n",
			`boards.toml:3:13: board "b": env.A: expected a string, got an integer`},
		{"env is a string", board + "env = \"A=1\"\n",
			`boards.toml:3:7: board "b": env: expected a table of strings, such as env = { OPENSSL_CONF = "/etc/ssl/openssl.cnf" }, got a string`},
		{"board is not a table", "[boards]\nb = 1\n",
			`boards.toml:2:5: board "b": expected a table, got an integer`},
		{"boards is an array of tables", "[[boards]]\nhost = \"h\"\n",
			`boards.toml:1:3: boards: expected a table, got an array table`},
		{"size is a string", "[profiles.p]\nalgorithms = [\"sha256\"]\nsizes = [16, \"64\"]\n",
			`boards.toml:3:14: profile "p": sizes[1]: expected an integer, got a string`},
		{"seconds is a string", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = \"1\"\n",
			`boards.toml:3:11: profile "p": seconds: expected a number, got a string`},
		{"quoted key with a newline", "[boards.b]\nhost = \"h\"\n\"a\\nb\" = 1\n\"a\\nb\" = 2\n",
			`boards.toml:4:1: board "b": duplicate key "a\nb" (a key may be set only once in a table)`},

		// Unknown keys: a typo is never ignored.
		{"unknown board key", board + "hots = \"x\"\n",
			`boards.toml:3:1: board "b": unknown key "hots", did you mean "host"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)`},
		{"unknown board key without suggestion", board + "colour = \"red\"\n",
			`boards.toml:3:1: board "b": unknown key "colour" (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)`},
		{"unknown dotted key", board + "ssh.port = 22\n",
			`boards.toml:3:1: board "b": unknown key "ssh", did you mean "soc"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)`},
		{"unknown sub-table", board + "[boards.b.options]\nx = 1\n",
			`boards.toml:3:2: board "b": unknown key "options" (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)`},
		{"host in defaults", "[defaults]\nhost = \"h\"\n",
			`boards.toml:2:1: defaults: unknown key "host", did you mean "port"? (expected one of user, port, identity_file, known_hosts, proxy_jump, tags, modes, env, openssl, agent)`},
		{"unknown profile key", "[profiles.p]\nalgorithms = [\"sha256\"]\nsecond = 1\n",
			`boards.toml:3:1: profile "p": unknown key "second", did you mean "seconds"? (expected one of algorithms, modes, sizes, seconds, threads, repeats, precision, max_repeat, budget, agent, validity, reconnect_wait, cpus, cluster_threads)`},
		{"unknown table", "[board.b]\nhost = \"h\"\n",
			`boards.toml:1:2: unknown key "board", did you mean "boards"? (expected one of defaults, boards, profiles)`},

		// Board names and hosts: nothing a shell could read as syntax.
		{"board name with a semicolon", "[boards.\"a;b\"]\nhost = \"h\"\n",
			`boards.toml:1:1: board "a;b": invalid board name (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"board name with a command substitution", "[boards]\n\"$(x)\" = { host = \"h\" }\n",
			`boards.toml:2:1: board "$(x)": invalid board name (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"board name starting with a dash", "[boards.-rf]\nhost = \"h\"\n",
			`boards.toml:1:1: board "-rf": invalid board name (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"empty board name", "[boards.\"\"]\nhost = \"h\"\n",
			`boards.toml:1:1: board "": invalid board name (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"missing host", "[boards.b]\nport = 22\n",
			`boards.toml:1:1: board "b": missing host (expected host = "NAME-OR-ADDRESS", or an alias from ~/.ssh/config)`},
		{"empty host", "[boards.b]\nhost = \"\"\n",
			`boards.toml:2:8: board "b": host is empty (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host with a semicolon", "[boards.b]\nhost = \"h;reboot\"\n",
			`boards.toml:2:8: board "b": host "h;reboot" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host with a command substitution", "[boards.b]\nhost = \"$(reboot)\"\n",
			`boards.toml:2:8: board "b": host "$(reboot)" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host with a newline", "[boards.b]\nhost = \"h\\nreboot\"\n",
			`boards.toml:2:8: board "b": host "h\nreboot" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host with a space", "[boards.b]\nhost = \"h i\"\n",
			`boards.toml:2:8: board "b": host "h i" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host that is an option", "[boards.b]\nhost = \"-oProxyCommand=x\"\n",
			`boards.toml:2:8: board "b": host "-oProxyCommand=x" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},
		{"host in quotes", "[boards.b]\nhost = \"'h'\"\n",
			`boards.toml:2:8: board "b": host "'h'" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')`},

		// The other board keys.
		{"port zero", board + "port = 0\n",
			`boards.toml:3:8: board "b": port 0 is out of range (expected 1-65535)`},
		{"port too large", board + "port = 65536\n",
			`boards.toml:3:8: board "b": port 65536 is out of range (expected 1-65535)`},
		{"user that is an option", board + "user = \"-l\"\n",
			`boards.toml:3:8: board "b": user "-l" is invalid (expected letters, digits, '.', '_', '-' or '@', not starting with '-' or '.')`},
		{"user with a backquote", board + "user = \"`id`\"\n",
			"boards.toml:3:8: board \"b\": user \"`id`\" is invalid (expected letters, digits, '.', '_', '-' or '@', not starting with '-' or '.')"},
		{"proxy_jump with a semicolon", board + "proxy_jump = \"gw;id\"\n",
			`boards.toml:3:14: board "b": proxy_jump "gw;id": hop "gw;id" is invalid (expected [user@]host[:port], hops separated by commas, such as "gw1,admin@gw2:2222")`},
		{"proxy_jump with an empty hop", board + "proxy_jump = \"gw1,,gw2\"\n",
			`boards.toml:3:14: board "b": proxy_jump "gw1,,gw2": hop "" is invalid (expected [user@]host[:port], hops separated by commas, such as "gw1,admin@gw2:2222")`},
		{"unknown arch", board + "arch = \"sh4\"\n",
			`boards.toml:3:8: board "b": unknown arch "sh4" (expected armv5, armv6, armv7, arm64, amd64, 386, riscv64, mips, mipsle, mips-softfloat, mipsle-softfloat, mips64, mips64le, ppc64le, loong64; leave it out to detect it with uname -m)`},
		{"unknown agent", board + "agent = \"python\"\n",
			`boards.toml:3:9: board "b": unknown agent "python" (expected "go" or "shell"; leave it out to choose by the board's uname)`},
		{"soc with a control character", board + "soc = \"AM64x\\u001b[2J\"\n",
			`boards.toml:3:7: board "b": soc "AM64x\x1b[2J" contains a control character (expected one line of text, such as "AM64x")`},
		{"invalid tag", board + "tags = [\"ok\", \"not ok\"]\n",
			`boards.toml:3:15: board "b": tags[1]: invalid tag "not ok" (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"duplicate tag", board + "tags = [\"ti\", \"ti\"]\n",
			`boards.toml:3:15: board "b": tags[1]: "ti" is listed twice`},
		{"unknown mode", board + "modes = [\"soft\", \"hw\"]\n",
			`boards.toml:3:18: board "b": modes[1]: unknown mode "hw" (expected soft, cpu, devcrypto, afalg, kcapi, ssh, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)`},
		{"engine name with shell syntax", board + "modes = [\"engine:x;id\"]\n",
			`boards.toml:3:10: board "b": modes[0]: invalid engine name "x;id" (expected letters, digits, '_', '.' or '-')`},
		{"kcapi driver with shell syntax", board + "modes = [\"cpu\", \"kcapi:x;id\"]\n",
			`boards.toml:3:17: board "b": modes[1]: driver name "x;id": character ';' (expected letters, digits, '_', '-', '.', ',', '(' or ')')`},
		{"empty provider name", board + "modes = [\"provider:\"]\n",
			`boards.toml:3:10: board "b": modes[0]: invalid provider name "" (expected letters, digits, '_', '.' or '-')`},
		{"duplicate mode", board + "modes = [\"cpu\", \"soft\", \"cpu\"]\n",
			`boards.toml:3:25: board "b": modes[2]: "cpu" is listed twice`},
		{"env name with shell syntax", board + "env = { \"A;B\" = \"1\" }\n",
			`boards.toml:3:9: board "b": env: invalid variable name "A;B" (expected letters, digits and '_', not starting with a digit)`},
		{"env name starting with a digit", board + "[boards.b.env]\n1X = \"1\"\n",
			`boards.toml:4:1: board "b": env: invalid variable name "1X" (expected letters, digits and '_', not starting with a digit)`},
		{"env value with a newline", board + "env = { A = \"1\\nB=2\" }\n",
			`boards.toml:3:13: board "b": env.A: value "1\nB=2" contains a newline, carriage return or NUL (expected one line)`},
		{"env value with a NUL", board + "env = { A = \"1\\u0000\" }\n",
			`boards.toml:3:13: board "b": env.A: value "1\x00" contains a newline, carriage return or NUL (expected one line)`},
		{"ia32cap garbage", board + "env = { OPENSSL_ia32cap = \"~0x2zz\" }\n",
			`boards.toml:3:27: board "b": env.OPENSSL_ia32cap: not an OPENSSL_ia32cap value: "~0x2zz": word 1 is not a base-16 number (expected ~ or nothing, then a number such as 0x200000200000000)`},
		{"ia32cap with six words", board + "[boards.b.env]\nOPENSSL_ia32cap = \"0:0:0:0:0:0\"\n",
			`boards.toml:4:19: board "b": env.OPENSSL_ia32cap: not an OPENSSL_ia32cap value: "0:0:0:0:0:0" has 6 words (OpenSSL reads at most 5, separated by ':')`},
		{"ia32cap that is mode soft", board + "env = { OPENSSL_ia32cap = \"0x0:0x0\" }\n",
			`boards.toml:3:27: board "b": env.OPENSSL_ia32cap: "0x0:0x0" turns off all that mode soft does (AES-NI, PCLMULQDQ, SHA, VAES, VPCLMULQDQ): the board's cpu points would be software; leave it out and measure mode soft`},
		{"openssl with a newline", board + "openssl = \"/usr/bin/openssl\\nid\"\n",
			`boards.toml:3:11: board "b": openssl "/usr/bin/openssl\nid" contains a control character (expected one line of text, such as "/usr/bin/openssl")`},
		{"identity_file of another user", board + "identity_file = \"~bob/.ssh/id\"\n",
			`boards.toml:3:17: board "b": identity_file "~bob/.ssh/id": only ~ and ~/ are expanded (expected a path such as ~/.ssh/id_ed25519)`},
		{"known_hosts with a newline", board + "known_hosts = \"a\\nb\"\n",
			`boards.toml:3:15: board "b": known_hosts "a\nb" contains a control character (expected one line of text, such as ~/.ssh/known_hosts)`},
		{"defaults are checked", "[defaults]\nport = -1\nmodes = [\"gpu\"]\n",
			"boards.toml:2:8: defaults: port -1 is out of range (expected 1-65535)\n" +
				`boards.toml:3:10: defaults: modes[0]: unknown mode "gpu" (expected soft, cpu, devcrypto, afalg, kcapi, ssh, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)`},
		{"local board with a host", "[boards.local]\nhost = \"h\"\nport = 22\nmodes = [\"soft\"]\n",
			"boards.toml:2:1: board \"local\": host is not allowed on the built-in local board (it is this machine, reached without SSH)\n" +
				`boards.toml:3:1: board "local": port is not allowed on the built-in local board (it is this machine, reached without SSH)`},

		// Profiles.
		{"profile without algorithms", "[profiles.p]\nmodes = [\"soft\"]\n",
			`boards.toml:1:1: profile "p": missing algorithms (expected a list such as algorithms = ["aes-128-cbc", "sha256"])`},
		{"profile with no algorithms", "[profiles.p]\nalgorithms = []\n",
			`boards.toml:2:14: profile "p": algorithms: expected at least one algorithm, such as ["aes-128-cbc", "sha256"]`},
		{"invalid profile name", "[profiles.\"p q\"]\nalgorithms = [\"sha256\"]\n",
			`boards.toml:1:1: profile "p q": invalid profile name (expected a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters)`},
		{"invalid algorithm", "[profiles.p]\nalgorithms = [\"sha256\", \"AES;id\"]\n",
			`boards.toml:2:25: profile "p": algorithms[1]: invalid algorithm "AES;id" (expected lower-case letters, digits and '-', such as aes-128-cbc)`},
		{"profile mode", "[profiles.p]\nalgorithms = [\"sha256\"]\nmodes = [\"engine:$(id)\"]\n",
			`boards.toml:3:10: profile "p": modes[0]: invalid engine name "$(id)" (expected letters, digits, '_', '.' or '-')`},
		{"sizes", "[profiles.p]\nalgorithms = [\"sha256\"]\nsizes = [0, 16, 16, 16777217]\n",
			"boards.toml:3:10: profile \"p\": sizes[0]: size 0 is out of range (expected 1 to 16777216 bytes)\n" +
				"boards.toml:3:17: profile \"p\": sizes[2]: 16 is listed twice\n" +
				`boards.toml:3:21: profile "p": sizes[3]: size 16777217 is out of range (expected 1 to 16777216 bytes)`},
		{"no sizes", "[profiles.p]\nalgorithms = [\"sha256\"]\nsizes = []\n",
			`boards.toml:3:9: profile "p": sizes: expected at least one block size in bytes, such as [16, 1024, 16384]`},
		{"seconds zero", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = 0\n",
			`boards.toml:3:11: profile "p": seconds 0 is out of range (expected more than 0 and at most 600)`},
		{"seconds too long", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = 600.5\n",
			`boards.toml:3:11: profile "p": seconds 600.5 is out of range (expected more than 0 and at most 600)`},
		{"seconds fraction", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = 0.5\n",
			`boards.toml:3:11: profile "p": seconds 0.5 is not a whole number: openssl speed -seconds takes whole ` +
				`seconds (OpenSSL 1.1.1 and 3.x; 1.0 has no -seconds), so 0.5 s cannot be measured as asked; use 1`},
		{"seconds fraction above one", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = 2.5\n",
			`boards.toml:3:11: profile "p": seconds 2.5 is not a whole number: openssl speed -seconds takes whole ` +
				`seconds (OpenSSL 1.1.1 and 3.x; 1.0 has no -seconds), so 2.5 s cannot be measured as asked; use 2 or 3`},
		{"seconds nan", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = nan\n",
			`boards.toml:3:11: profile "p": seconds NaN is out of range (expected more than 0 and at most 600)`},
		{"seconds inf", "[profiles.p]\nalgorithms = [\"sha256\"]\nseconds = inf\n",
			`boards.toml:3:11: profile "p": seconds +Inf is out of range (expected more than 0 and at most 600)`},
		{"threads and repeats", "[profiles.p]\nalgorithms = [\"sha256\"]\nthreads = 0\nrepeats = 1001\n",
			"boards.toml:3:11: profile \"p\": threads 0 is out of range (expected 1-1024)\n" +
				`boards.toml:4:11: profile "p": repeats 1001 is out of range (expected 1-1000)`},

		// Several problems are reported together, in document order.
		{"all at once", "[boards.z]\nhost = \"z;\"\n[boards.a]\nhots = \"a\"\n[profiles.p]\nalgorithms = [\"X\"]\n",
			"boards.toml:2:8: board \"z\": host \"z;\" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')\n" +
				"boards.toml:3:1: board \"a\": missing host (expected host = \"NAME-OR-ADDRESS\", or an alias from ~/.ssh/config)\n" +
				"boards.toml:4:1: board \"a\": unknown key \"hots\", did you mean \"host\"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)\n" +
				`boards.toml:6:15: profile "p": algorithms[0]: invalid algorithm "X" (expected lower-case letters, digits and '-', such as aes-128-cbc)`},
		// A value of the wrong type stops go-toml's decoder; it must not hide the other mistakes.
		{"type errors among others", "[boards.a]\nhost = \"a\"\nprot = 22\n[boards.b]\nhost = \"b\"\nport = \"22\"\ntags = [\n  1,\n]\n[boards.c]\nhost = \"c;reboot\"\n",
			"boards.toml:3:1: board \"a\": unknown key \"prot\", did you mean \"port\"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)\n" +
				"boards.toml:6:8: board \"b\": port: expected an integer, got a string\n" +
				"boards.toml:8:3: board \"b\": tags[0]: expected a string, got an integer\n" +
				"boards.toml:11:8: board \"c\": host \"c;reboot\" is invalid (expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, err := parseTest(t, "boards.toml", tt.doc)
			if inv != nil {
				t.Errorf("an inventory came back with the error")
			}
			if *printErrors {
				fmt.Printf("%s\n%s\n\n", tt.name, errString(err))
				return
			}
			if got := errString(err); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "boards.toml" || e.Line < 1 || e.Column < 1 {
				t.Errorf("error %#v is not a positioned *Error", e)
			}
			for _, line := range strings.Split(errString(err), "\n") {
				if !strings.HasPrefix(line, "boards.toml:") {
					t.Errorf("message line %q does not start with the file name", line)
				}
			}
		})
	}
}
