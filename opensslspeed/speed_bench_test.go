package opensslspeed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParseSpeedAllFixtures parses every fixture pasted into one log, ten times over.
func BenchmarkParseSpeedAllFixtures(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(speedFixtureDir, "*.txt"))
	if len(files) == 0 {
		b.Fatalf("no captures in %s", speedFixtureDir)
	}
	var sb strings.Builder
	for i := 0; i < 10; i++ {
		for _, fn := range files {
			data, err := os.ReadFile(fn)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
			sb.WriteString("\n")
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Parse(text, Hint{}); err != nil {
			b.Fatal(err)
		}
	}
}
