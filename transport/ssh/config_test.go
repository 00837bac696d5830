package ssh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/sshtest"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/transport"
)

const testSSHConfigText = `
Host board1
  HostName 192.0.2.11
  Port 2222
  User admin
  IdentityFile ~/.ssh/lab_key

Host behind
  HostName 10.0.0.5
  ProxyJump gw

Host gw
  HostName 192.0.2.1
  User jump
  ProxyJump outer

Host outer
  HostName 198.51.100.1
  Port 2200

Host *.lab
  User labuser
`

func TestSSHConfigHops(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config")
	if err := os.WriteFile(path, []byte(testSSHConfigText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadSSHConfig(path, home)
	if err != nil {
		t.Fatal(err)
	}
	me := localUser()
	tests := []struct {
		name  string
		board inventory.Board
		want  []string // user@host:port identities...
	}{
		{name: "alias", board: inventory.Board{Host: "board1"},
			want: []string{"admin@192.0.2.11:2222 " + home + "/.ssh/lab_key"}},
		{name: "board fields win", board: inventory.Board{Host: "board1", Port: 22, User: "root", IdentityFile: "~/k"},
			want: []string{"root@192.0.2.11:22 " + home + "/k"}},
		{name: "not in config", board: inventory.Board{Host: "192.0.2.99"},
			want: []string{me + "@192.0.2.99:22"}},
		{name: "wildcard", board: inventory.Board{Host: "am64x.lab"},
			want: []string{"labuser@am64x.lab:22"}},
		{name: "ProxyJump from config, chained", board: inventory.Board{Host: "behind", User: "root"},
			want: []string{me + "@198.51.100.1:2200", "jump@192.0.2.1:22", "root@10.0.0.5:22"}},
		{name: "board ProxyJump list", board: inventory.Board{Host: "192.0.2.64", ProxyJump: "u@host1:2022,board1", IdentityFile: "/k"},
			want: []string{"u@host1:2022 /k", "admin@192.0.2.11:2222 " + home + "/.ssh/lab_key", me + "@192.0.2.64:22 /k"}},
		{name: "ProxyJump none", board: inventory.Board{Host: "behind", ProxyJump: "none"},
			want: []string{me + "@10.0.0.5:22"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hops, err := cfg.hops(tc.board)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hops {
				got = append(got, strings.Join(append([]string{h.String()}, h.identities...), " "))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("hops = %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSSHConfigKnownHostsFiles(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config")
	text := "Host custom\n  UserKnownHostsFile ~/kh1 /dev/null ~/kh2\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadSSHConfig(path, home)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		board inventory.Board
		want  []string
	}{
		{inventory.Board{Host: "custom"}, []string{home + "/kh1", home + "/kh2"}},
		{inventory.Board{Host: "custom", KnownHosts: "/etc/kh"}, []string{"/etc/kh"}},
		{inventory.Board{Host: "other"}, []string{home + "/.ssh/known_hosts"}},
	}
	for _, tc := range tests {
		if got := cfg.knownHostsFiles(tc.board); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("knownHostsFiles(%+v) = %q, want %q", tc.board, got, tc.want)
		}
	}
}

func TestSSHConfigParseJump(t *testing.T) {
	tests := []struct {
		in         string
		user, host string
		port       int
		bad        bool
	}{
		{in: "gw", host: "gw"},
		{in: "me@gw:2222", user: "me", host: "gw", port: 2222},
		{in: "ssh://me@gw", user: "me", host: "gw"},
		{in: "[2001:db8::1]:22", host: "2001:db8::1", port: 22},
		{in: "gw:0", bad: true},
		{in: "me@", bad: true},
	}
	for _, tc := range tests {
		user, host, port, err := parseJump(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("parseJump(%q) succeeded, want an error", tc.in)
			}
			continue
		}
		if err != nil || user != tc.user || host != tc.host || port != tc.port {
			t.Errorf("parseJump(%q) = %q, %q, %d, %v; want %q, %q, %d", tc.in, user, host, port, err, tc.user, tc.host, tc.port)
		}
	}
}

// TestSSHConfigAlias connects to a board named by an ssh config alias that supplies HostName, Port, User and
// IdentityFile.
func TestSSHConfigAlias(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	opts := testSSHOptions(t)
	key := filepath.Join(opts.Home, ".ssh", "board_key")
	sshtest.WriteIdentity(t, key, srv.ClientKey(), "")
	opts.SSHConfigPath = filepath.Join(opts.Home, ".ssh", "config")
	text := "Host myboard\n  HostName 127.0.0.1\n  Port " + strconv.Itoa(srv.Port()) + "\n  User tester\n  IdentityFile ~/.ssh/board_key\n"
	if err := os.WriteFile(opts.SSHConfigPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := dialTest(t, inventory.Board{Name: "b", Host: "myboard", KnownHosts: srv.KnownHosts(t)}, opts)
	var out strings.Builder
	if err := tr.Run(context.Background(), transport.Command{Args: []string{"echo", "ok"}, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok\n" {
		t.Errorf("stdout = %q", out.String())
	}
}

// TestSSHProxyJump reaches a board through a jump host (direct-tcpip), each hop checked against known_hosts.
func TestSSHProxyJump(t *testing.T) {
	board := sshtest.Start(t, sshtest.Options{})
	// The jump host has no identity of its own in the config: it gets the board's key, which it accepts.
	jump := sshtest.Start(t, sshtest.Options{AuthorizedKeys: clientPublicKey(t, board)})
	b := testBoard(t, board)
	sshtest.AppendKnownHosts(t, b.KnownHosts, jump.Addr(), jump.HostKeys()...)
	b.ProxyJump = "gwuser@" + jump.Addr()
	tr := dialTest(t, b, testSSHOptions(t))
	var out strings.Builder
	if err := tr.Run(context.Background(), transport.Command{Args: []string{"echo", "through"}, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "through\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if got := jump.Forwards(); len(got) != 1 || got[0] != board.Addr() {
		t.Errorf("jump host forwarded to %q, want [%s]", got, board.Addr())
	}
	tr.Close()
	waitFor(t, "jump host connection closed", func() bool { return jump.Open() == 0 && board.Open() == 0 })

	t.Run("jump host key checked", func(t *testing.T) {
		b := testBoard(t, board) // known_hosts without the jump host
		b.ProxyJump = "gwuser@" + jump.Addr()
		_, err := Dial(context.Background(), b, testSSHOptions(t))
		if err == nil || !strings.Contains(err.Error(), "jump host") {
			t.Fatalf("Dial = %v, want an unknown jump host", err)
		}
		if !errors.Is(err, transport.ErrUnknownHost) {
			t.Errorf("Dial = %v, want transport.ErrUnknownHost", err)
		}
	})
}

func TestSSHConfigAcceptNew(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	opts := testSSHOptions(t)
	opts.SSHConfigPath = filepath.Join(opts.Home, "config")
	if err := os.WriteFile(opts.SSHConfigPath, []byte("Host 127.0.0.1\n  StrictHostKeyChecking accept-new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := testBoard(t, srv)
	b.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
	dialTest(t, b, opts)
	if data, err := os.ReadFile(b.KnownHosts); err != nil || !strings.Contains(string(data), "ssh-ed25519") {
		t.Errorf("known_hosts = %q, %v; want the new key", data, err)
	}
}

func TestSSHConfigUnreadableIgnored(t *testing.T) {
	srv := sshtest.Start(t, sshtest.Options{})
	opts := testSSHOptions(t)
	opts.SSHConfigPath = filepath.Join(opts.Home, "config")
	if err := os.WriteFile(opts.SSHConfigPath, []byte("Match exec \"true\"\n  User x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	opts.Logf = func(format string, args ...any) { logged.WriteString(format) }
	dialTest(t, testBoard(t, srv), opts)
	if !strings.Contains(logged.String(), "ignoring the ssh config") {
		t.Errorf("log = %q, want a warning about the ssh config", logged.String())
	}
}

// TestSSHProxyJumpChain goes through two jump hosts named in the ssh config, then cuts the first one: the
// keepalives to the board, which travel through it, notice.
func TestSSHProxyJumpChain(t *testing.T) {
	board := sshtest.Start(t, sshtest.Options{})
	keys := clientPublicKey(t, board)
	gw2 := sshtest.Start(t, sshtest.Options{AuthorizedKeys: keys})
	gw1 := sshtest.Start(t, sshtest.Options{AuthorizedKeys: keys})
	b := testBoard(t, board)
	sshtest.AppendKnownHosts(t, b.KnownHosts, gw1.Addr(), gw1.HostKeys()...)
	sshtest.AppendKnownHosts(t, b.KnownHosts, gw2.Addr(), gw2.HostKeys()...)
	opts := testSSHOptions(t)
	opts.KeepaliveInterval, opts.KeepaliveTimeout = 100*time.Millisecond, 300*time.Millisecond
	opts.SSHConfigPath = filepath.Join(opts.Home, "config")
	text := "Host gw1\n  HostName 127.0.0.1\n  Port " + strconv.Itoa(gw1.Port()) + "\n" +
		"Host gw2\n  HostName 127.0.0.1\n  Port " + strconv.Itoa(gw2.Port()) + "\n  ProxyJump gw1\n"
	if err := os.WriteFile(opts.SSHConfigPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	b.ProxyJump = "gw2"
	tr := dialTest(t, b, opts)
	if err := tr.Run(context.Background(), transport.Command{Args: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	if got := gw1.Forwards(); len(got) != 1 || got[0] != gw2.Addr() {
		t.Errorf("gw1 forwarded to %q, want [%s]", got, gw2.Addr())
	}
	if got := gw2.Forwards(); len(got) != 1 || got[0] != board.Addr() {
		t.Errorf("gw2 forwarded to %q, want [%s]", got, board.Addr())
	}
	gw1.Cut()
	start := time.Now()
	err := tr.Run(context.Background(), transport.Command{Args: []string{"sleep", "100"}})
	if !errors.Is(err, transport.ErrConnectionLost) {
		t.Errorf("Run through a cut jump host = %v, want transport.ErrConnectionLost", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("noticed after %v", d)
	}
}
