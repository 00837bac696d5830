package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/internal/textfit"
	"github.com/fleetlab/fleet/report"
)

// helpWidth is the widest line --help prints: the width of every other text fleet prints.
const helpWidth = report.TextWidth

// foldHelpOnce installs foldHelp in urfave/cli's help printer and its flag stringer. urfave/cli reads both
// from package variables, the only hooks it has: they are set once, to the same functions, before any app runs.
var foldHelpOnce sync.Once

// fitHelp makes the app's help fit helpWidth and say one default per flag: a switch's "(default: false)" is
// noise (off is what leaving it out means), so bool flags show none.
func fitHelp(app *cli.App) {
	foldHelpOnce.Do(func() {
		original := cli.HelpPrinterCustom
		cli.HelpPrinter = func(w io.Writer, templ string, data any) {
			var b bytes.Buffer
			original(&b, templ, data, nil)
			io.WriteString(w, foldHelp(b.String()))
		}
		// A list flag's names said twice ("--boards NAME, -b NAME [ --boards NAME, -b NAME ]") make the names
		// column 60 wide; once is enough, its usage says the list is comma-separated.
		stringer := cli.FlagStringer
		cli.FlagStringer = func(f cli.Flag) string {
			s := stringer(f)
			if names, usage, ok := strings.Cut(s, "\t"); ok {
				if i := strings.Index(names, " [ "); i > 0 && strings.HasSuffix(names, " ]") {
					s = names[:i] + "\t" + usage
				}
			}
			return s
		}
	})
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			if bf, ok := f.(*cli.BoolFlag); ok {
				bf.DisableDefaultText = true
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
}

// helpColumn finds the second column of a help line: a flag's or command's usage after its names, an
// example's comment after its command, which urfave/cli's tabwriter or the text sets apart by two spaces or more.
var helpColumn = regexp.MustCompile(`^( +\S+(?: \S+)*? {2,})\S`)

// foldHelp fits help text to helpWidth. A paragraph of prose with a line too wide is reflowed under its own
// indentation (descriptions are written at about 110 columns); a two-column line (a flag and its usage, an
// example and its comment) keeps its first column as it is and folds the second under itself, or, when the
// first leaves it less than 30 columns, on lines of its own under the first.
func foldHelp(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		lead := len(line) - len(strings.TrimLeft(line, " "))
		if m := helpColumn.FindStringSubmatch(line); m != nil {
			out = append(out, foldColumns(line, m[1], lead)...)
			continue
		}
		if lead > 3 { // an example's command line: folded alone, its continuation further in
			out = append(out, textfit.Fold(line, helpWidth, strings.Repeat(" ", lead+4))...)
			continue
		}
		// a prose paragraph: the lines of the same indentation that follow, up to a blank or two-column line
		j := i + 1
		for j < len(lines) && lines[j] != "" && !helpColumn.MatchString(lines[j]) &&
			len(lines[j])-len(strings.TrimLeft(lines[j], " ")) == lead {
			j++
		}
		para := lines[i:j]
		wide := false
		for _, l := range para {
			wide = wide || textfit.Width(l) > helpWidth
		}
		if !wide {
			out = append(out, para...)
		} else {
			indent := strings.Repeat(" ", lead)
			out = append(out, textfit.Fold(indent+strings.Join(strings.Fields(strings.Join(para, " ")), " "), helpWidth, indent)...)
		}
		i = j - 1
	}
	return strings.Join(out, "\n")
}

// foldColumns folds a two-column line whose first column (with its padding) is first.
func foldColumns(line, first string, lead int) []string {
	if textfit.Width(line) <= helpWidth {
		return []string{line}
	}
	rest := strings.TrimPrefix(line, first)
	hang := textfit.Width(first)
	if helpWidth-hang < 30 {
		hang = lead + 4
		pad := strings.Repeat(" ", hang)
		return append([]string{strings.TrimRight(first, " ")}, textfit.Fold(pad+rest, helpWidth, pad)...)
	}
	pieces := textfit.Fold(rest, helpWidth-hang, "")
	out := []string{first + pieces[0]}
	for _, p := range pieces[1:] {
		out = append(out, strings.Repeat(" ", hang)+p)
	}
	return out
}
