package repotext

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// grepQInPipe is a pipeline ending in `grep -q`: grep exits at its first match, the command before it may
// then die of SIGPIPE writing the rest, and under `set -o pipefail` the pipeline fails though grep matched
// (`dpkg --print-foreign-architectures | grep -qx arm64` failed 26 times in 200 here, and test.sh skipped the
// emulated lab saying apt had no arm64). Such a test reads all its input: `grep … >/dev/null`.
var grepQInPipe = regexp.MustCompile(`\|\s*grep\s+-[a-zA-Z]*q`)

// TestNoGrepQInPipefailScripts: no shell script that sets pipefail pipes into `grep -q`.
func TestNoGrepQInPipefailScripts(t *testing.T) {
	root := moduleRoot(t)
	scripts, _ := filepath.Glob(filepath.Join(root, "*.sh"))
	for _, pattern := range []string{"*/*.sh", "*/*/*.sh", ".ci/*", "lab/lab"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		scripts = append(scripts, m...)
	}
	read := 0
	for _, p := range scripts {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(string(b), "#!") {
			continue
		}
		if !strings.Contains(string(b), "pipefail") {
			continue
		}
		read++
		for i, line := range strings.Split(string(b), "\n") {
			if grepQInPipe.MatchString(line) {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d pipes into grep -q under pipefail (a SIGPIPE fails the pipeline at random): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
	}
	if read < 4 {
		t.Fatalf("read %d scripts with pipefail; test.sh, .ci/run, .ci/install-deps and lab/lab should be among them", read)
	}
}
