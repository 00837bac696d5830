package ssh

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/inventory"
	"github.com/kevinburke/ssh_config"
)

// sshHop is one SSH connection to make: a ProxyJump host or the board itself.
type sshHop struct {
	alias      string   // the name as written: board host or jump spec element
	host       string   // HostName after ssh config
	port       int      // after ssh config, default 22
	user       string   // after ssh config, default the local user
	identities []string // explicit identity files (board or ssh config); empty: the default ones
	acceptNew  bool     // StrictHostKeyChecking accept-new in the ssh config
}

func (h sshHop) addr() string { return net.JoinHostPort(h.host, strconv.Itoa(h.port)) }

func (h sshHop) String() string { return h.user + "@" + h.addr() }

// sshConfig is the user's ~/.ssh/config. A missing file is an empty config, as for ssh.
type sshConfig struct {
	cfg  *ssh_config.Config
	home string
}

func loadSSHConfig(path, home string) (*sshConfig, error) {
	c := &sshConfig{home: home}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ssh config: %w", err)
	}
	defer f.Close()
	if c.cfg, err = ssh_config.Decode(f); err != nil {
		return nil, fmt.Errorf("parse ssh config %s: %w", path, err)
	}
	return c, nil
}

func (c *sshConfig) get(alias, key string) string {
	if c.cfg == nil {
		return ""
	}
	v, err := c.cfg.Get(alias, key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(v)
}

func (c *sshConfig) getAll(alias, key string) []string {
	if c.cfg == nil {
		return nil
	}
	v, err := c.cfg.GetAll(alias, key)
	if err != nil {
		return nil
	}
	return v
}

// expand resolves "~/", "%d" (home) and "%h" (host) the way ssh does for paths in its config.
func (c *sshConfig) expand(path, host string) string {
	path = strings.Trim(path, `"`)
	if path == "~" {
		return c.home
	}
	if strings.HasPrefix(path, "~/") {
		path = filepath.Join(c.home, path[2:])
	}
	return strings.NewReplacer("%d", c.home, "%h", host, "%%", "%").Replace(path)
}

// hop resolves one destination the way ssh does: explicit values (from the board or a jump spec) win over the
// ssh config for that alias, which wins over the defaults.
func (c *sshConfig) hop(alias, user string, port int, identity string) (sshHop, error) {
	h := sshHop{alias: alias, host: alias, port: port, user: user}
	if v := c.get(alias, "HostName"); v != "" {
		h.host = strings.ReplaceAll(v, "%h", alias)
	}
	if h.port == 0 {
		if v := c.get(alias, "Port"); v != "" {
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 || p > 65535 {
				return h, fmt.Errorf("ssh config: host %s: bad port %q", alias, v)
			}
			h.port = p
		}
	}
	if h.port == 0 {
		h.port = 22
	}
	if h.user == "" {
		h.user = c.get(alias, "User")
	}
	if h.user == "" {
		h.user = localUser()
	}
	// Only accept-new is honoured: "no" would also accept a changed key, which fleet never does.
	h.acceptNew = strings.EqualFold(c.get(alias, "StrictHostKeyChecking"), "accept-new")
	if identity != "" {
		h.identities = []string{c.expand(identity, h.host)}
	} else {
		for _, v := range c.getAll(alias, "IdentityFile") {
			h.identities = append(h.identities, c.expand(v, h.host))
		}
	}
	return h, nil
}

// hops returns the connections to make for board b, first jump host first and the board last.
func (c *sshConfig) hops(b inventory.Board) ([]sshHop, error) {
	if b.Host == "" {
		return nil, errors.New("board has no host")
	}
	target, err := c.hop(b.Host, b.User, b.Port, b.IdentityFile)
	if err != nil {
		return nil, err
	}
	jump := b.ProxyJump
	if jump == "" {
		jump = c.get(b.Host, "ProxyJump")
	}
	var hops []sshHop
	if err := c.expandJumps(&hops, jump, b.IdentityFile, 0); err != nil {
		return nil, err
	}
	return append(hops, target), nil
}

// expandJumps appends the hops of a ProxyJump spec ("gw1,user@gw2:2222"), each resolved through the ssh config.
// A jump host's own ProxyJump in the config is honoured, as ssh does when it runs "ssh -W" for it. A jump host
// with no identity of its own tries the board's identity before the defaults: labs share keys.
func (c *sshConfig) expandJumps(hops *[]sshHop, spec, boardIdentity string, depth int) error {
	if spec == "" || strings.EqualFold(spec, "none") {
		return nil
	}
	if depth > 8 {
		return fmt.Errorf("proxy jump %q: chain too deep", spec)
	}
	for _, el := range strings.Split(spec, ",") {
		user, host, port, err := parseJump(strings.TrimSpace(el))
		if err != nil {
			return err
		}
		if err := c.expandJumps(hops, c.get(host, "ProxyJump"), boardIdentity, depth+1); err != nil {
			return err
		}
		h, err := c.hop(host, user, port, "")
		if err != nil {
			return err
		}
		if len(h.identities) == 0 && boardIdentity != "" {
			h.identities = []string{c.expand(boardIdentity, h.host)}
		}
		*hops = append(*hops, h)
	}
	return nil
}

// parseJump splits one ProxyJump element: [user@]host[:port], ssh://[user@]host[:port], IPv6 in brackets.
func parseJump(s string) (user, host string, port int, err error) {
	s = strings.TrimPrefix(s, "ssh://")
	if i := strings.LastIndex(s, "@"); i >= 0 {
		user, s = s[:i], s[i+1:]
	}
	host = s
	if h, p, e := net.SplitHostPort(s); e == nil {
		host = h
		if port, err = strconv.Atoi(p); err != nil || port <= 0 || port > 65535 {
			return "", "", 0, fmt.Errorf("proxy jump %q: bad port", s)
		}
	}
	if host == "" {
		return "", "", 0, fmt.Errorf("proxy jump %q: no host", s)
	}
	return user, host, port, nil
}

// knownHostsFiles is where host keys are looked up; the first one is where AcceptNew appends.
func (c *sshConfig) knownHostsFiles(b inventory.Board) []string {
	if b.KnownHosts != "" {
		return []string{c.expand(b.KnownHosts, b.Host)}
	}
	var files []string
	for _, v := range c.getAll(b.Host, "UserKnownHostsFile") {
		for _, f := range strings.Fields(v) {
			if f != "/dev/null" {
				files = append(files, c.expand(f, b.Host))
			}
		}
	}
	if len(files) == 0 {
		files = []string{filepath.Join(c.home, ".ssh", "known_hosts")}
	}
	return files
}

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}
