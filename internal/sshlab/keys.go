package sshlab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// keygen writes a new key pair of type typ (ed25519, ecdsa) without a passphrase to path and path.pub.
func keygen(path, typ string) error {
	out, err := exec.Command("ssh-keygen", "-q", "-t", typ, "-N", "", "-C", "sshlab", "-f", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh-keygen -t %s: %w: %s", typ, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// writeEtc writes a board's private passwd, shadow and group into dir: the host's, with root's home moved to
// rootHome (or, for board2, fleetlab's to its home) and /bin/sh as the login shell of the lab's users, whose
// password is "*": no password login, yet not locked ("!"), which sshd refuses without PAM.
func writeEtc(dir, home string, uid int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rootHome := home
	if uid != 0 {
		rootHome = filepath.Join(filepath.Dir(home), "root")
		if err := os.MkdirAll(rootHome, 0o700); err != nil {
			return err
		}
	}
	lab := map[string]string{
		"passwd": fmt.Sprintf("root:x:0:0:root:%s:/bin/sh\nfleetlab:x:%d:%d:fleet lab:%s:/bin/sh\n", rootHome, fleetlabUID, fleetlabUID, home),
		"shadow": "root:*:20000:0:99999:7:::\nfleetlab:*:20000:0:99999:7:::\n",
		"group":  fmt.Sprintf("root:x:0:\nfleetlab:x:%d:\n", fleetlabUID),
	}
	if uid != 0 && uid != fleetlabUID {
		return fmt.Errorf("board user uid %d: want 0 or %d", uid, fleetlabUID)
	}
	for name, entries := range lab {
		var b strings.Builder
		b.WriteString(entries)
		if f, err := os.Open(filepath.Join("/etc", name)); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "root:") || strings.HasPrefix(line, "fleetlab:") {
					continue
				}
				b.WriteString(line + "\n")
			}
			f.Close()
		}
		mode := os.FileMode(0o644)
		if name == "shadow" {
			mode = 0o640
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), mode); err != nil {
			return err
		}
	}
	return nil
}
