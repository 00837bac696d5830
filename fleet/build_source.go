package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/agent"
)

// sourceFile is one file of the agent's source module.
type sourceFile struct {
	name string // slash-separated, relative to the module root
	data []byte
}

// agentSourceFiles reads the agent's source module from src: every file but tests and testdata, in name order.
// It must hold go.mod and the agent's main package.
func agentSourceFiles(src fs.FS) ([]sourceFile, error) {
	var files []sourceFile
	err := fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		data, err := fs.ReadFile(src, name)
		if err != nil {
			return err
		}
		files = append(files, sourceFile{name: name, data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read agent source: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var hasMod, hasMain bool
	for _, f := range files {
		hasMod = hasMod || f.name == "go.mod"
		hasMain = hasMain || (path.Dir(f.name) == strings.TrimPrefix(agentPackage, "./") && strings.HasSuffix(f.name, ".go"))
	}
	if !hasMod || !hasMain {
		return nil, fmt.Errorf("agent source is incomplete: want go.mod and %s/*.go", strings.TrimPrefix(agentPackage, "./"))
	}
	return files, nil
}

// hashSources is the agent source hash: sha256 over each file's name, length and content, in name order.
func hashSources(files []sourceFile) string {
	h := sha256.New()
	// the flags are part of what is built: an agent built with others is not the one this controller would build
	h.Write([]byte(strings.Join(agent.BuildFlags, "\x00") + "\x00\x00"))
	for _, f := range files {
		h.Write([]byte(f.name + "\x00" + strconv.Itoa(len(f.data)) + "\x00"))
		h.Write(f.data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AgentSourceHash returns the hash that keys the agent cache for the source in src (nil: the embedded source).
// Tests of files are not part of it: changing a test does not rebuild the agent.
func AgentSourceHash(src fs.FS) (string, error) {
	if src == nil {
		src = defaultAgentSource()
	}
	files, err := agentSourceFiles(src)
	if err != nil {
		return "", err
	}
	return hashSources(files), nil
}

// cacheMaxAge is how long agents of another source stay in the cache unused: switching between a few versions of
// fleet does not rebuild, and the cache does not grow by one set of agents per edit of the agent for ever.
const cacheMaxAge = 14 * 24 * time.Hour

// pruneAgentCache removes, below cacheDir, the agents of other source hashes than keep not used since before, and
// module directories of builds that never finished.
func pruneAgentCache(cacheDir, keep string, before time.Time, logf func(string, ...any)) {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		isHash := len(name) == 16 && strings.Trim(name, "0123456789abcdef") == ""
		if !e.IsDir() || name == keep || !(isHash || strings.HasPrefix(name, ".src-")) {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.ModTime().Before(before) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(cacheDir, name)); err == nil {
			logf("removed unused agents %s from the cache", filepath.Join(cacheDir, name))
		}
	}
}

// extract writes files below dir.
func extract(dir string, files []sourceFile) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
