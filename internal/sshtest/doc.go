// Package sshtest is an in-process SSH server for tests: it listens on 127.0.0.1:0 with throwaway host keys,
// accepts a generated client key, runs exec requests through /bin/sh -c as real processes, forwards
// direct-tcpip channels (so it can be a ProxyJump host), and injects faults: rejected authentication, a server
// that never answers, connections dropped after N bytes of output or a delay, keepalives left unanswered, a cut
// link, and a changed host key. Everything a Server starts ends on Close, which t.Cleanup calls.
package sshtest
