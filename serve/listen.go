package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ErrAuthRequired means the address is not loopback and neither a password file nor NoAuth was given.
var ErrAuthRequired = errors.New("refusing to serve on a non-loopback address without --password-file or --no-auth")

// Options say where and how ListenAndServe listens.
type Options struct {
	Listen       string            // host:port; "" is 127.0.0.1:8080
	PasswordFile string            // users and bcrypt hashes; required off loopback unless NoAuth
	NoAuth       bool              // serve without authentication on any address, explicitly
	Ready        func(addr string) // called with the bound address once listening (tests use port 0)
}

// DefaultListen is loopback: nobody else on the network sees the dashboard unless asked to.
const DefaultListen = "127.0.0.1:8080"

// CheckListen applies the auth rule: a loopback address needs nothing; any other address (":8080" is every
// interface) needs a password file or NoAuth; both at once is a contradiction. It returns the address to use.
func CheckListen(o Options) (string, error) {
	addr := o.Listen
	if addr == "" {
		addr = DefaultListen
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--listen %q: want host:port, e.g. %s: %w", addr, DefaultListen, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return "", fmt.Errorf("--listen %q: port %q: want 0 to 65535", addr, port)
	}
	if o.NoAuth && o.PasswordFile != "" {
		return "", errors.New("--no-auth and --password-file exclude each other")
	}
	if !loopback(host) && !o.NoAuth && o.PasswordFile == "" {
		return "", fmt.Errorf("--listen %s: %w", addr, ErrAuthRequired)
	}
	return addr, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListenAndServe serves s on the address of o until ctx ends, then shuts down gracefully: it stops accepting,
// lets requests in flight finish for up to 5 s, and returns nil. Slow clients time out.
func ListenAndServe(ctx context.Context, s *Server, o Options) error {
	addr, err := CheckListen(o)
	if err != nil {
		return err
	}
	if o.PasswordFile != "" {
		if s.Auth, err = LoadCredentials(o.PasswordFile); err != nil {
			return err
		}
	}
	h, err := s.Handler()
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
		return fmt.Errorf("shut down server on %s: %w", addr, err)
	}
	<-done // Serve has returned http.ErrServerClosed
	return nil
}
