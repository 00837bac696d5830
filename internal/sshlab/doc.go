// Package sshlab starts real OpenSSH sshd (and Dropbear) "boards" on this machine for tests: the second tier of the test lab in
// design.md, between the in-process SSH server and QEMU boards.
//
//	lab := sshlab.Start(t, sshlab.Options{})
//	b := lab.Board("board2")                    // Addr, Port, User, IdentityFile, KnownHosts, NetNS, PID()
//	os.WriteFile(inv, []byte(lab.BoardsTOML()), 0o644)
//	b.CutLink(); b.RestoreLink(); b.KillSSHD(); b.StartSSHD(); b.ChangeHostKey()
//	out, err := b.Exec("ps", "-e", "-o", "pid=,args=") // inside the board's namespaces
//
// The lab has four boards, each its own sshd with its own host keys:
//
//   - board1: root, offers both ed25519 and ECDSA host keys while known_hosts pins only its ed25519 key, so a
//     client must choose its host key algorithms from known_hosts;
//   - board2: a non-root user, fleetlab;
//   - board3: root;
//   - board4: root, reached only through board1 (proxy_jump): in namespace mode its sshd listens on 127.0.0.1
//     inside board1's network namespace, so nothing but a jump through board1 reaches it.
//
// As root each board gets a network namespace (fleet<pid>x<n>-b<k>) with its own address 10.200.X.1k on a bridge
// (flbr<pid>x<n>, 10.200.X.1/24; X is chosen free under a lock file, so test binaries can run in parallel), and its
// sshd runs under `unshare --mount --pid` with private bind-mounted /etc/passwd, /etc/shadow and /etc/group whose
// users have home directories in the lab's directory and /bin/sh as login shell (so no rc file of the host runs),
// a private tmpfs on /tmp, and its own PID namespace: when sshd dies, everything started through it dies too, and
// Exec("ps", …) lists exactly the board's processes. Without root (or with Options.Loopback) the boards are sshd
// processes on 127.0.0.1 ports; without root every board logs in as the current user with that user's home.
//
// Options.Dropbear adds board5, root on a Dropbear SSH server (dropbear-bin), as many embedded boards run.
// Options.HomeSize puts the boards' home directories on a small tmpfs inside their mount namespaces, so a test can
// fill the disk.
//
// Everything (processes, namespaces, bridge, veths, files) is removed by t.Cleanup, also when the test fails; a
// lab left over by a test binary that was killed (its pid is dead) is removed by the next Start.
//
// Needs: openssh-server (/usr/sbin/sshd) and openssh-client (ssh-keygen; ssh for tests using the system client);
// as root also iproute2 (ip), util-linux (unshare, nsenter) and mount; dropbear-bin for Options.Dropbear. A test
// calling Start is skipped, with a message naming what is missing, when these are absent. In loopback mode as root
// the boards still get their private mounts and PID namespaces, only not their own network.
package sshlab
