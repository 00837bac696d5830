package fleet

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/protocol"
)

// probeTimeoutS bounds each openssl command of the probe on the board, as the agent's probe bounds its own.
const probeTimeoutS = 10

// probe runs the probe request and returns what agent.RemoteFacts makes the facts of. reason is why the agent
// does not run on the board.
func (s *shellSession) probe(ctx context.Context, plan protocol.Plan, reason string) (agent.RemoteProbe, error) {
	openssl := plan.OpenSSL
	if openssl == "" {
		openssl = "openssl"
	}
	engines := agent.ProbeEngines(plan)
	var lists [][]string // the commands that list openssl's ciphers and digests, to check the plan's names
	if len(agent.CheckedAlgorithms(plan)) > 0 {
		lists = agent.ListAlgorithmsArgv("$fleet_o")
	}
	recs, err := s.request(ctx, probeScript(openssl, envPairs(plan.Env), engines, lists, probeTimeoutS))
	if err != nil {
		return agent.RemoteProbe{}, err
	}
	p := agent.RemoteProbe{Agent: "shell", AgentReason: reason, Engines: map[string]agent.RemoteRun{}}
	s.seq++
	p.Root = filepath.Join(s.mirror, "probe")
	uname := map[string]string{}
	var runs [][]shellRecord // each openssl command's records, from its R to its E
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		switch {
		case r.kind == recSample:
			j := i + 1
			for j < len(recs) && recs[j].kind != recSampled {
				j++
			}
			rs, _ := s.sample(recs[i+1 : j])
			if r.arg == "b" {
				p.Before = rs
			} else {
				p.After = rs
			}
			i = j
		case r.kind == recValue && strings.HasPrefix(r.arg, "uname:"):
			uname[strings.TrimPrefix(r.arg, "uname:")] = strings.TrimSpace(string(r.content))
		case r.kind == recFile || r.kind == recValue:
			writeMirror(p.Root, r.arg, r.content)
		case r.kind == recDevice:
			p.DevCrypto = true
		case r.kind == recPath && r.arg == "+":
			p.OpenSSLPath = strings.TrimSpace(string(r.content))
		case r.kind == recPath:
			p.OpenSSLMissing = "not found in $PATH"
			if strings.Contains(openssl, "/") {
				p.OpenSSLMissing = "not found"
			}
		case r.kind == recRun:
			j := i + 1
			for j < len(recs) && recs[j].kind != recStderr {
				j++
			}
			if j == len(recs) {
				return p, fmt.Errorf("probe %s: an openssl command's output ends early", s.board)
			}
			runs = append(runs, recs[i:j+1])
			i = j
		}
	}
	p.Sysname, p.Hostname, p.Release, p.Version, p.Machine = uname["-s"], uname["-n"], uname["-r"], uname["-v"], uname["-m"]
	if p.Machine == "" {
		return p, fmt.Errorf("probe %s: uname -m printed nothing", s.board)
	}
	if p.OpenSSLPath != "" {
		// version -a first, then engine -t for each engine and the lists, as probeScript ran them
		if want := 1 + len(engines) + len(lists); len(runs) != want {
			return p, fmt.Errorf("probe %s: %d openssl commands in the output, want %d", s.board, len(runs), want)
		}
		p.OpenSSLVersion = s.run(runs[0])
		for i, e := range engines {
			p.Engines[e] = s.run(runs[1+i])
		}
		for _, r := range runs[1+len(engines):] {
			p.AlgorithmLists = append(p.AlgorithmLists, s.run(r))
		}
	}
	return p, nil
}

// envPairs renders a plan's environment as KEY=VALUE in a stable order.
func envPairs(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
