package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// seedAgents gives every board the agent the controller deployed on the first board, as if the controller had
// deployed it to each: a hard link of the agent in each board's agent directory and, beside it, the checksum
// record the deploy check writes after sha256sum verified the agent ("SHA256 SIZE INODE MTIME CTIME", the
// stat line fleet/deploycheck.go compares). It returns how many boards have it.
//
// -cold=false uses it so that the warm run of 2,000 boards measures warm boards: deploying to all of them
// first pushes 6 GB into the one simulator and hashes it there, a burst of CPU that on this 2-core machine left
// boards silent past the controller's keepalive timeout, and each board whose deployment failed would then be
// deployed by the "warm" run. The record is written after the last link (a link changes the file's ctime),
// with the stat line taken as the deploy check takes it; were the script's format to change, its comparison
// would fail and each board would run sha256sum, which the benchmark's boards' CPU would show.
func seedAgents(boards []*fakeBoard) (int, error) {
	first := boards[0].agentDir()
	agents, err := filepath.Glob(filepath.Join(first, "agent-*"))
	if err != nil || len(agents) != 1 {
		return 0, fmt.Errorf("want one agent deployed in %s, found %d (%v)", first, len(agents), err)
	}
	agent := agents[0]
	name := filepath.Base(agent)
	record, err := os.ReadFile(filepath.Join(first, "."+name+".sha256"))
	if err != nil {
		return 0, fmt.Errorf("the checksum record the deploy check wrote on %s: %w", boards[0].name, err)
	}
	sum, _, _ := strings.Cut(strings.TrimSpace(string(record)), " ")
	for _, b := range boards[1:] {
		if err := os.MkdirAll(b.agentDir(), 0o700); err != nil {
			return 0, err
		}
		if err := os.Link(agent, filepath.Join(b.agentDir(), name)); err != nil && !os.IsExist(err) {
			return 0, err
		}
	}
	st, err := exec.Command("stat", "-c", "%s %i %y %z", agent).Output()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", agent, err)
	}
	line := []byte(sum + " " + strings.TrimSpace(string(st)) + "\n")
	for _, b := range boards {
		if err := os.WriteFile(filepath.Join(b.agentDir(), "."+name+".sha256"), line, 0o600); err != nil {
			return 0, err
		}
	}
	return len(boards), nil
}
