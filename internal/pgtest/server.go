// Package pgtest starts a real PostgreSQL server for tests, from the distribution's binaries (Debian's
// postgresql package: /usr/lib/postgresql/N/bin), in a temporary directory, as an unprivileged user when the
// tests run as root (initdb and postgres refuse root). One server serves a whole test binary (Shared); each test
// gets a fresh database of its own (NewDatabase), so tests stay independent and creating one costs a
// CREATE DATABASE, not an initdb.
//
// Tests skip with a message naming what is missing when the binaries are absent, unless FLEET_REQUIRE_POSTGRES
// is set (test.sh and CI set it): then the absence fails them.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// User and Password are the superuser initdb creates; TCP connections must give the password (scram-sha-256),
// so tests can check what a wrong one does.
const (
	User     = "fleet"
	Password = "fleet-test-secret"
)

// ErrNoBinaries means PostgreSQL's server binaries were not found.
var ErrNoBinaries = errors.New("postgresql server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin or PATH: install Debian's postgresql package (.ci/install-deps postgresql)")

// Server is a running PostgreSQL test server listening on 127.0.0.1:Port and on a Unix socket in Dir.
type Server struct {
	Dir  string // data directory and socket directory's parent
	Port int

	bin  string // directory with initdb and postgres
	cmd  *exec.Cmd
	done chan error // postgres' exit
	cred *syscall.Credential
}

// FindBinaries returns the directory holding initdb and postgres, newest version first.
func FindBinaries() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Start runs initdb in a new temporary directory and starts postgres on a free port. Stop it with Stop.
func Start(ctx context.Context) (*Server, error) {
	bin, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	// /tmp, not a test's own temporary directory: the unprivileged user must be able to reach it, and a Unix
	// socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("/tmp", "fleet-pg-")
	if err != nil {
		return nil, fmt.Errorf("start postgresql: %w", err)
	}
	s := &Server{Dir: dir, bin: bin, cred: cred}
	if err := s.initdb(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		port, perr := freePort()
		if perr != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgresql: %w", perr)
		}
		err = s.start(ctx, port)
		if err == nil {
			return s, nil
		}
		// Another process may have taken the free port between the probe and postgres' bind: try another.
		if attempt == 3 || ctx.Err() != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// serverUser is the user postgres runs as: the current one, or when that is root (which initdb refuses) the
// postgres system user, else nobody.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("start postgresql: running as root and neither the postgres nor the nobody user exists to run the server")
}

// command prepares a server binary to run as the server user.
func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + s.Dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

func (s *Server) chown(path string) error {
	if s.cred == nil {
		return nil
	}
	return os.Chown(path, int(s.cred.Uid), int(s.cred.Gid))
}

// initdb creates the cluster with a password-protected superuser.
func (s *Server) initdb(ctx context.Context) error {
	if err := s.chown(s.Dir); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(Password+"\n"), 0o600); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	if err := s.chown(pwfile); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	defer os.Remove(pwfile)
	cmd := s.command(ctx, "initdb", "-D", filepath.Join(s.Dir, "data"), "-U", User, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
		"--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb in %s: %w\n%s", s.Dir, err, out)
	}
	return nil
}

// start runs postgres on a free port and waits until it accepts connections. postgres is a child of the test
// process, told to shut down fast (SIGINT) if the test process dies before Stop.
func (s *Server) start(ctx context.Context, port int) error {
	s.Port = port
	logf, err := os.Create(filepath.Join(s.Dir, "postgres.log"))
	if err != nil {
		return fmt.Errorf("start postgresql: %w", err)
	}
	defer logf.Close()
	cmd := s.command(context.Background(), "postgres", "-D", filepath.Join(s.Dir, "data"),
		"-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.Dir,
		// A test server: nothing need survive a power cut (no fsync), but a commit must survive the server's
		// crash (synchronous_commit stays on: the WAL reaches the OS before COMMIT returns), for fault tests.
		"-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr.Pdeathsig = syscall.SIGINT
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgresql: %w", err)
	}
	s.cmd = cmd
	s.done = make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := pgx.Connect(ctx, s.adminDSN())
		if err == nil {
			c.Close(ctx)
			return nil
		}
		select {
		case werr := <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "postgres.log"))
			return fmt.Errorf("start postgresql on port %d: exited: %v\n%s", port, werr, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.Stop()
			return fmt.Errorf("start postgresql on port %d: not ready after 30 s: %w", port, err)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// adminDSN reaches the postgres maintenance database over the Unix socket (trust: no password).
func (s *Server) adminDSN() string {
	return "postgres:///postgres?host=" + s.Dir + "&port=" + strconv.Itoa(s.Port) + "&user=" + User +
		"&sslmode=disable"
}

// DSN is the URL of database name over TCP, with the superuser's password in it.
func (s *Server) DSN(name string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", User, Password, s.Port, name)
}

// CreateDatabase creates an empty database and returns its URL (DSN).
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	c, err := pgx.Connect(ctx, s.adminDSN())
	if err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Exec runs statements in database name as the superuser, for tests that set up another application's tables.
func (s *Server) Exec(ctx context.Context, name, sql string) error {
	dsn := strings.Replace(s.adminDSN(), "/postgres?", "/"+name+"?", 1)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", name, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		return fmt.Errorf("exec in %s: %w", name, err)
	}
	return nil
}

// Stop shuts the server down (fast shutdown: clients are disconnected) and removes its directory.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return os.RemoveAll(s.Dir)
	}
	s.Thaw() // a frozen server could not shut down
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
	return os.RemoveAll(s.Dir)
}

// Kill stops the server at once, as a crash or a pulled plug would (SIGKILL of the postmaster), keeping its
// directory, for fault tests. Stop still cleans up.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	s.Thaw()
	s.cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown: backends exit, clients see their connection drop
	<-s.done
	s.cmd = nil
}

// Restart starts a server stopped by Kill again, on the same data directory and port, as an administrator
// bringing a crashed database back would.
func (s *Server) Restart(ctx context.Context) error {
	if s.cmd != nil {
		return fmt.Errorf("restart postgresql on port %d: still running", s.Port)
	}
	return s.start(ctx, s.Port)
}

// Version is the server's version, as its binaries' directory names it (Debian: /usr/lib/postgresql/15/bin).
func (s *Server) Version() string {
	return filepath.Base(filepath.Dir(s.bin))
}
