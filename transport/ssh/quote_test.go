package ssh

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/sshtest"
	"github.com/fleetlab/fleet/transport"
)

var hostileArgs = []string{
	"", " ", "plain", "a b", "semi;colon", "$(touch /tmp/pwned)", "`id`", "$HOME", "${HOME}", "'", "''", `"`,
	`it's "quoted"`, "back\\slash", "new\nline", "tab\there", "*", "~", "-n", "--", "&&", "|", ">x", "#comment",
	"!bang", "\x01\x7f", "ünïcødé", "'\\''",
}

// runLocalSh runs script with the system's /bin/sh (dash on Debian, like many boards' shells).
func runLocalSh(t *testing.T, script string, stdin io.Reader, stderr io.Writer) error {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdin, cmd.Stderr = stdin, stderr
	return cmd.Run()
}

func TestSSHShellQuoteRoundTrip(t *testing.T) {
	line, err := commandLine(append([]string{"printf", `%s\0`}, hostileArgs...), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/bin/sh", "-c", line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !reflect.DeepEqual(got, hostileArgs) {
		t.Errorf("round trip through /bin/sh:\n got %q\nwant %q", got, hostileArgs)
	}
}

func TestSSHShellQuoteOverSSH(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	tr := dialTest(t, testBoard(t, srv), testSSHOptions(t))
	var out bytes.Buffer
	env := map[string]string{"HOSTILE": "$(id); 'x' \"y\"\n`z`"}
	args := append([]string{"sh", "-c", `printf '%s\0' "$HOSTILE" "$@"`, "sh"}, hostileArgs...)
	if err := tr.Run(context.Background(), transport.Command{Args: args, Env: env, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00")
	want := append([]string{env["HOSTILE"]}, hostileArgs...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("over SSH:\n got %q\nwant %q", got, want)
	}
}

func TestSSHCommandLine(t *testing.T) {
	tests := []struct {
		args    []string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{args: []string{"openssl", "speed", "-evp", "aes-128-cbc"}, want: `'openssl' 'speed' '-evp' 'aes-128-cbc'`},
		{args: []string{"echo", "it's"}, want: `'echo' 'it'\''s'`},
		{args: []string{"a"}, env: map[string]string{"B": "2", "A_1": "x y"}, want: `env A_1='x y' B='2' 'a'`},
		{args: nil, wantErr: true},
		{args: []string{"a"}, env: map[string]string{"1A": "x"}, wantErr: true},
		{args: []string{"a"}, env: map[string]string{"A-B": "x"}, wantErr: true},
		{args: []string{"a"}, env: map[string]string{"A;rm": "x"}, wantErr: true},
		{args: []string{"a"}, env: map[string]string{"": "x"}, wantErr: true},
		{args: []string{"a\x00b"}, wantErr: true},
	}
	for _, tc := range tests {
		got, err := commandLine(tc.args, tc.env)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("commandLine(%q, %v) = %q, %v; want %q, error %v", tc.args, tc.env, got, err, tc.want, tc.wantErr)
		}
	}
}
