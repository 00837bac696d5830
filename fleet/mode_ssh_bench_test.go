package fleet

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/fleetlab/fleet/protocol"
)

// BenchmarkSSHCipherCeiling is the controller's own ceiling per cipher in mode ssh: x/crypto/ssh at both ends of
// a loopback TCP connection, in this process, one channel moving 4 MiB per iteration each way. The client side is
// what the controller does in mode ssh; the server side here is x/crypto too, so on a machine with two cores or
// more the figure is the slower of the two, and the controller alone is at least this fast.
//
//	go test ./fleet -run '^$' -bench SSHCipherCeiling -benchtime 20x -count 3
func BenchmarkSSHCipherCeiling(b *testing.B) {
	for _, cipher := range protocol.DefaultSSHCiphers {
		for _, op := range []string{protocol.OpUpload, protocol.OpDownload} {
			b.Run(cipher+"/"+op, func(b *testing.B) { benchCipher(b, cipher, op) })
		}
	}
}

func benchCipher(b *testing.B, cipher, op string) {
	const chunk = 4 << 20
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		cfg := &ssh.ServerConfig{NoClientAuth: true}
		cfg.AddHostKey(signer)
		_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
		if err != nil {
			return
		}
		go ssh.DiscardRequests(reqs)
		for nc := range chans {
			ch, creqs, err := nc.Accept()
			if err != nil {
				return
			}
			go ssh.DiscardRequests(creqs)
			if op == protocol.OpUpload {
				go func() { io.Copy(io.Discard, ch); ch.Close() }()
			} else {
				go func() { io.Copy(ch, io.LimitReader(zeroReader{}, int64(b.N)*chunk)); ch.CloseWrite() }()
			}
		}
	}()
	client, err := ssh.Dial("tcp", ln.Addr().String(), &ssh.ClientConfig{User: "bench",
		HostKeyCallback: ssh.FixedHostKey(signer.PublicKey()), Config: ssh.Config{Ciphers: []string{cipher}}})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	ch, reqs, err := client.OpenChannel("session", nil)
	if err != nil {
		b.Fatal(err)
	}
	go ssh.DiscardRequests(reqs)
	buf := make([]byte, writeChunk)
	b.SetBytes(chunk)
	b.ResetTimer()
	for range b.N {
		if op == protocol.OpUpload {
			for sent := 0; sent < chunk; sent += len(buf) {
				if _, err := ch.Write(buf); err != nil {
					b.Fatal(err)
				}
			}
		} else if _, err := io.CopyBuffer(io.Discard, io.LimitReader(ch, chunk), buf); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ch.Close()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }
