package inventory

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func seedInventory(t *testing.T) *Inventory {
	t.Helper()
	data, err := os.ReadFile("testdata/seed-boards.toml")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := parse("seed-boards.toml", data, func() (string, error) { return fakeHome, nil })
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestSelect(t *testing.T) {
	const known = "(known boards: am18x, am335x, am37x, am64x, imx6q, local)"
	tests := []struct {
		name    string
		names   []string
		tags    []string
		all     bool
		want    string // board names, comma-separated
		wantErr string
		is      error
	}{
		{name: "names in order", names: []string{"imx6q", "am18x"}, want: "imx6q,am18x"},
		{name: "duplicates dropped", names: []string{"am64x", "am18x", "am64x"}, want: "am64x,am18x"},
		{name: "comma-separated element", names: []string{"am64x,imx6q", " local "}, want: "am64x,imx6q,local"},
		{name: "one tag", tags: []string{"nightly"}, want: "am335x,am64x,imx6q"},
		{name: "tags are a union", tags: []string{"nxp", "armv5"}, want: "am18x,imx6q"},
		{name: "names then tags", names: []string{"local"}, tags: []string{"nightly", "local"}, want: "local,am335x,am64x,imx6q"},
		{name: "all", all: true, want: "am18x,am335x,am37x,am64x,imx6q,local"},
		{name: "all after names", names: []string{"imx6q"}, all: true, want: "imx6q,am18x,am335x,am37x,am64x,local"},
		{name: "typo", names: []string{"am64"},
			wantErr: `unknown board "am64": did you mean "am64x"? ` + known, is: ErrUnknownBoard},
		{name: "swapped letters", names: []string{"imx6g"},
			wantErr: `unknown board "imx6g": did you mean "imx6q"? ` + known, is: ErrUnknownBoard},
		{name: "prefix", names: []string{"am3"},
			wantErr: `unknown board "am3": did you mean "am37x" or "am335x"? ` + known, is: ErrUnknownBoard},
		{name: "nothing close", names: []string{"raspberrypi"},
			wantErr: `unknown board "raspberrypi" ` + known, is: ErrUnknownBoard},
		{name: "shell syntax in a name", names: []string{"$(reboot)"},
			wantErr: `unknown board "$(reboot)" ` + known, is: ErrUnknownBoard},
		{name: "every unknown name reported", names: []string{"am64", "local", "imx"},
			wantErr: `unknown board "am64": did you mean "am64x"? ` + known + "\n" +
				`unknown board "imx": did you mean "imx6q"? ` + known, is: ErrUnknownBoard},
		{name: "unknown tag", tags: []string{"nighty"},
			wantErr: `unknown tag "nighty": no board carries it: did you mean "nightly"? (tags in use: armv5, local, nightly, nxp, ti)`, is: ErrUnknownTag},
		{name: "nothing asked", wantErr: "no boards selected: name boards with --boards, a tag with --tag, or use --all " + known, is: ErrNoBoards},
		{name: "empty names", names: []string{"", " , "}, wantErr: "no boards selected: name boards with --boards, a tag with --tag, or use --all " + known, is: ErrNoBoards},
	}
	inv := seedInventory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			boards, err := inv.Select(tt.names, tt.tags, tt.all)
			if got := errString(err); tt.wantErr != "" && got != tt.wantErr || tt.wantErr == "" && err != nil {
				t.Fatalf("error\n%s\nwant\n%s", got, tt.wantErr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			var names []string
			for _, b := range boards {
				names = append(names, b.Name)
			}
			if got := strings.Join(names, ","); got != tt.want {
				t.Errorf("selected %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSelectLocal(t *testing.T) {
	inv := mustParse(t, "[boards.b]\nhost = \"h\"\ntags = [\"t\"]\n")
	// --all takes only what the file lists: the built-in local board is not in this file.
	boards, err := inv.Select(nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(boards) != 1 || boards[0].Name != "b" {
		t.Errorf("--all selected %+v, want only b", boards)
	}
	boards, err = inv.Select([]string{"local"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(boards) != 1 || !boards[0].Local {
		t.Errorf("--boards local selected %+v, want the local board", boards)
	}

	_, err = Default().Select(nil, nil, true)
	if got, want := errString(err), "no boards selected: --all selects the boards the inventory (no boards.toml) lists, and it lists none"; got != want {
		t.Errorf("--all on the default inventory: error %q, want %q", got, want)
	}
	_, err = mustParse(t, "").Select(nil, nil, true)
	if got, want := errString(err), "no boards selected: --all selects the boards boards.toml lists, and it lists none"; got != want {
		t.Errorf("--all on an empty file: error %q, want %q", got, want)
	}
	_, err = Default().Select(nil, []string{"nightly"}, false)
	if got, want := errString(err), `unknown tag "nightly": no board carries it (tags in use: none)`; got != want {
		t.Errorf("--tag on the default inventory: error %q, want %q", got, want)
	}
}

func TestSelectReturnsCopies(t *testing.T) {
	inv := seedInventory(t)
	boards, err := inv.Select([]string{"am64x"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	boards[0].Tags[0] = "changed"
	boards[0].Env["OPENSSL_CONF"] = "changed"
	again, _ := inv.Select([]string{"am64x"}, nil, false)
	if again[0].Tags[0] != "ti" || again[0].Env["OPENSSL_CONF"] != "/etc/ssl/openssl-dev.cnf" {
		t.Errorf("a caller's change reached the inventory: %+v", again[0])
	}
}
