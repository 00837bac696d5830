package serve

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// Credentials are the users of a password file and their bcrypt hashes, for HTTP basic auth.
type Credentials struct {
	hashes map[string][]byte
	// dummy is checked against when the user is unknown, at the file's highest cost, so that the answer takes
	// as long as for a known user and a user name cannot be probed by timing.
	dummy []byte

	mu   sync.Mutex
	good map[[32]byte]bool // sha256 of user, NUL, password already verified: bcrypt costs ~50 ms a check
}

// maxCachedLogins bounds the cache of verified logins; past it the cache starts over.
const maxCachedLogins = 64

// MaxCost is the highest bcrypt cost a password file may use: each login check runs 2^cost rounds, about
// 1.5 s at 14 on a server core and doubling per step (bcrypt accepts 31, days a check: a denial of service).
const MaxCost = 14

// LoadCredentials reads a password file: one "user:bcrypt-hash" a line (as `htpasswd -B` writes), blank lines
// and lines starting with # ignored. Errors name the file and line.
func LoadCredentials(path string) (*Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read password file: %w", err)
	}
	defer f.Close()
	return parseCredentials(path, f)
}

func parseCredentials(path string, r io.Reader) (*Credentials, error) {
	c := &Credentials{hashes: map[string][]byte{}, good: map[[32]byte]bool{}}
	maxCost := 0
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, hash, ok := strings.Cut(line, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("%s:%d: want user:bcrypt-hash", path, n)
		}
		cost, err := bcrypt.Cost([]byte(hash))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: user %s: not a bcrypt hash ($2a$, $2b$ or $2y$; make one with htpasswd -nB USER): %w",
				path, n, user, err)
		}
		if cost < bcrypt.MinCost || cost > MaxCost {
			return nil, fmt.Errorf("%s:%d: user %s: bcrypt cost %d is out of range (expected %d to %d; make one with htpasswd -nB -C 10 USER)",
				path, n, user, cost, bcrypt.MinCost, MaxCost)
		}
		maxCost = max(maxCost, cost)
		if _, dup := c.hashes[user]; dup {
			return nil, fmt.Errorf("%s:%d: user %s listed twice", path, n, user)
		}
		c.hashes[user] = []byte(hash)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read password file %s: %w", path, err)
	}
	if len(c.hashes) == 0 {
		return nil, fmt.Errorf("%s: no users (want lines user:bcrypt-hash)", path)
	}
	var err error
	if c.dummy, err = bcrypt.GenerateFromPassword([]byte("fleet serve: no such user"), maxCost); err != nil {
		return nil, fmt.Errorf("%s: make the hash unknown users are checked against: %w", path, err)
	}
	return c, nil
}

// check verifies a login against its bcrypt hash, remembering logins that passed.
func (c *Credentials) check(user, pass string) bool {
	key := sha256.Sum256([]byte(user + "\x00" + pass))
	c.mu.Lock()
	ok := c.good[key]
	c.mu.Unlock()
	if ok {
		return true
	}
	hash, known := c.hashes[user]
	if !known {
		hash = c.dummy
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(pass)) != nil || !known {
		return false
	}
	c.mu.Lock()
	if len(c.good) >= maxCachedLogins {
		c.good = map[[32]byte]bool{}
	}
	c.good[key] = true
	c.mu.Unlock()
	return true
}

func (c *Credentials) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || !c.check(user, pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="fleet", charset="UTF-8"`)
			http.Error(w, "401 unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
