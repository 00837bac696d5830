package sshtest

import (
	"bytes"
	"errors"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func dial(t *testing.T, s *Server) (*ssh.Client, error) {
	t.Helper()
	cb, err := knownhosts.New(s.KnownHosts(t))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(s.ClientKey())
	if err != nil {
		t.Fatal(err)
	}
	return ssh.Dial("tcp", s.Addr(), &ssh.ClientConfig{User: "t", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: cb, Timeout: 2 * time.Second})
}

func TestSSHServerExec(t *testing.T) {
	s := Start(t, Options{})
	c, err := dial(t, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tests := []struct {
		cmd, stdin, out, errOut string
		code                    int
	}{
		{cmd: "cat", stdin: "in", out: "in"},
		{cmd: "echo o; echo e >&2; exit 7", out: "o\n", errOut: "e\n", code: 7},
		{cmd: "kill -TERM $$", code: -1},
	}
	for _, tc := range tests {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		sess.Stdin, sess.Stdout, sess.Stderr = strings.NewReader(tc.stdin), &out, &errOut
		err = sess.Run(tc.cmd)
		code := 0
		var exit *ssh.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitStatus()
			if exit.Signal() == "TERM" {
				code = -1
			}
		} else if err != nil {
			t.Fatalf("%s: %#v", tc.cmd, err)
		}
		if out.String() != tc.out || errOut.String() != tc.errOut || code != tc.code {
			t.Errorf("%s: stdout %q stderr %q code %d; want %q %q %d", tc.cmd, out.String(), errOut.String(), code,
				tc.out, tc.errOut, tc.code)
		}
	}
	if ok, _, err := c.SendRequest("keepalive@openssh.com", true, nil); err != nil || !ok {
		t.Errorf("keepalive = %v, %v; want an answer", ok, err)
	}
}

func TestSSHServerRejectAuth(t *testing.T) {
	s := Start(t, Options{RejectAuth: true})
	if _, err := dial(t, s); err == nil {
		t.Fatal("dial succeeded, want an authentication failure")
	}
	if s.AuthAttempts() == 0 || s.Connections() != 1 {
		t.Errorf("attempts %d, connections %d", s.AuthAttempts(), s.Connections())
	}
}

func TestSSHServerChangedHostKey(t *testing.T) {
	s := Start(t, Options{})
	kh := s.KnownHosts(t)
	s.Set(func(o *Options) { o.HostKeys = []ssh.Signer{NewSigner(t, "ed25519")} })
	cb, err := knownhosts.New(kh)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := ssh.NewSignerFromKey(s.ClientKey())
	_, err = ssh.Dial("tcp", s.Addr(), &ssh.ClientConfig{User: "t", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: cb})
	var keyErr *knownhosts.KeyError
	if !errors.As(err, &keyErr) || len(keyErr.Want) == 0 {
		t.Errorf("dial = %v, want a key mismatch", err)
	}
}

func TestSSHServerDropAfter(t *testing.T) {
	// long enough for the handshake on a loaded machine (100 ms dropped it mid-handshake at load 30)
	s := Start(t, Options{DropAfter: 3 * time.Second})
	c, err := dial(t, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("connection still open a minute after DropAfter")
	}
}

func TestSSHServerDirectTCPIP(t *testing.T) {
	s := Start(t, Options{})
	c, err := dial(t, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			conn.Write([]byte("hi"))
			conn.Close()
		}
	}()
	conn, err := c.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	buf := make([]byte, 2)
	if _, err := conn.Read(buf); err != nil || string(buf) != "hi" {
		t.Errorf("read %q, %v through direct-tcpip", buf, err)
	}
	if got := s.Forwards(); len(got) != 1 || got[0] != ln.Addr().String() {
		t.Errorf("Forwards = %q", got)
	}
}

// TestCloseCleansUp: Close kills running commands and ends every goroutine, even with a client still attached.
func TestSSHServerCloseCleansUp(t *testing.T) {
	before := runtime.NumGoroutine()
	s := Start(t, Options{})
	c, err := dial(t, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := sess.StdoutPipe()
	if err := sess.Start("echo $$; exec sleep 100"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	c.Close()
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		gone := err != nil || strings.Contains(string(st), ") Z ")
		if gone && runtime.NumGoroutine() <= before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Close: process %d gone %v, goroutines %d (before %d)", pid, gone, runtime.NumGoroutine(), before)
		}
	}
}

func TestSSHServerEncryptedKey(t *testing.T) {
	key, data := EncryptedKey(t)
	_, err := ssh.ParsePrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if !errors.As(err, &missing) {
		t.Fatalf("parse = %v, want a missing passphrase", err)
	}
	pub, _ := ssh.NewPublicKey(key.Public())
	if !bytes.Equal(missing.PublicKey.Marshal(), pub.Marshal()) {
		t.Error("the encrypted file holds another key")
	}
}
