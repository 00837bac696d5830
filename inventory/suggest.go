package inventory

import (
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
)

// suggest returns the known names close to a mistyped one: at most two edits away, or a prefix of it (or it of
// them), closest first, at most three.
func suggest(name string, known []string) []string {
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	for _, k := range known {
		d := opensslspeed.EditDistance(name, k)
		prefix := name != "" && (strings.HasPrefix(k, name) || strings.HasPrefix(name, k))
		if d <= 2 || prefix {
			cs = append(cs, cand{k, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// quoteOr renders names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func quoteOr(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// DidYouMean is ": did you mean "x"?" when some of known is close to name (at most two edits away, or a prefix),
// else "". The command line uses it for names outside boards.toml too, such as stored algorithms.
func DidYouMean(name string, known []string) string { return didYouMean(name, known) }
