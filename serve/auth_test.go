package serve

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func TestCheckListenAuthRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want error // nil: accepted
		msg  string
	}{
		{"default is loopback", Options{}, nil, ""},
		{"ipv4 loopback", Options{Listen: "127.0.0.1:9000"}, nil, ""},
		{"ipv6 loopback", Options{Listen: "[::1]:9000"}, nil, ""},
		{"localhost", Options{Listen: "localhost:0"}, nil, ""},
		{"all interfaces refused", Options{Listen: ":8080"}, ErrAuthRequired, "--password-file"},
		{"lan address refused", Options{Listen: "192.0.2.10:8080"}, ErrAuthRequired, "--no-auth"},
		{"lan with password file", Options{Listen: "0.0.0.0:8080", PasswordFile: "pw"}, nil, ""},
		{"lan with explicit no-auth", Options{Listen: "0.0.0.0:8080", NoAuth: true}, nil, ""},
		{"both", Options{Listen: "0.0.0.0:8080", NoAuth: true, PasswordFile: "pw"}, errAny, "exclude each other"},
		{"no port", Options{Listen: "127.0.0.1"}, errAny, "host:port"},
		{"bad port", Options{Listen: "127.0.0.1:99999"}, errAny, "0 to 65535"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckListen(tc.o)
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("CheckListen(%+v) = %v, want nil", tc.o, err)
			case tc.want != nil && err == nil:
				t.Errorf("CheckListen(%+v) = nil, want an error", tc.o)
			case tc.want == ErrAuthRequired && !errors.Is(err, ErrAuthRequired):
				t.Errorf("CheckListen(%+v) = %v, want ErrAuthRequired", tc.o, err)
			case err != nil && !strings.Contains(err.Error(), tc.msg):
				t.Errorf("CheckListen(%+v) = %v, want it to say %q", tc.o, err, tc.msg)
			}
		})
	}
}

var errAny = errors.New("any error")

func writePasswordFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "htpasswd")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadCredentialsRefusesBadLines(t *testing.T) {
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cost31 := strings.Replace(string(h), "$04$", "$31$", 1)
	for _, tc := range []struct{ name, line, msg string }{
		{"no colon", "alice", ":1: want user:bcrypt-hash"},
		{"plain password", "alice:secret", "not a bcrypt hash"},
		{"empty", "# only a comment", "no users"},
		{"cost 31", "alice:" + cost31, ":1: user alice: bcrypt cost 31 is out of range (expected 4 to 14"},
		{"cost 15", "# admins\nbob:" + strings.Replace(cost31, "$31$", "$15$", 1), ":2: user bob: bcrypt cost 15 is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCredentials(writePasswordFile(t, tc.line))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("LoadCredentials(%q) = %v, want an error saying %q", tc.line, err, tc.msg)
			}
		})
	}
}

// TestBasicAuthOffLoopback serves with a password file: no or wrong credentials get 401, the right ones the page.
func TestBasicAuthOffLoopback(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	pw := writePasswordFile(t, "# lab users", "alice:"+string(hash))
	addr, stop := serveInBackground(t, Options{Listen: "127.0.0.1:0", PasswordFile: pw})
	defer stop()
	for _, tc := range []struct {
		user, pass string
		status     int
	}{{"", "", 401}, {"alice", "wrong", 401}, {"mallory", "s3cret", 401}, {"alice", "s3cret", 200}, {"alice", "s3cret", 200}} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/runs", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s:%s → %d, want %d", tc.user, tc.pass, resp.StatusCode, tc.status)
		}
		if tc.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("401 without WWW-Authenticate: Basic")
		}
	}
}

// serveInBackground runs ListenAndServe over the fixture until stop, which checks that it returned nil.
func serveInBackground(t *testing.T, o Options) (addr string, stop func()) {
	t.Helper()
	srv := &Server{DB: openFixture(t), Logf: t.Logf}
	ready := make(chan string, 1)
	o.Ready = func(a string) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ListenAndServe(ctx, srv, o) }()
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("ListenAndServe = %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return addr, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ListenAndServe after cancel = %v, want nil (graceful shutdown)", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not shut down within 10 s of its context ending")
		}
	}
}

// TestGracefulShutdown: when the context ends (Ctrl-C), the listener closes and ListenAndServe returns nil.
func TestGracefulShutdown(t *testing.T) {
	addr, stop := serveInBackground(t, Options{Listen: "127.0.0.1:0"})
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop()
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// TestUnknownUserCheckedAtTheFilesCost: an unknown user's password is checked against a hash of the file's
// highest cost, so that the 401 takes as long as a known user's wrong password (a cheaper hash answered 30×
// faster and told which user names exist).
func TestUnknownUserCheckedAtTheFilesCost(t *testing.T) {
	var lines []string
	for user, cost := range map[string]int{"alice": bcrypt.MinCost, "bob": 8} {
		h, err := bcrypt.GenerateFromPassword([]byte("pw"), cost)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, user+":"+string(h))
	}
	c, err := LoadCredentials(writePasswordFile(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bcrypt.Cost(c.dummy); err != nil || got != 8 {
		t.Errorf("unknown users are checked at cost %d (%v), want the file's highest, 8", got, err)
	}
	if c.check("mallory", "pw") || c.check("bob", "wrong") || !c.check("bob", "pw") {
		t.Error("check: an unknown user or a wrong password passed, or the right one failed")
	}
}
