package textfit

import (
	"strings"
	"testing"
)

func TestWidth(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"aes-128-cbc", 11},
		{"─── cpu ───", 11}, // box drawing is narrow: 3 bytes, one column
		{"µJ/B ±1% –", 10},  // so are µ, ± and the en dash
		{"板子 am64x", 10},    // CJK ideographs take two columns each
		{"ＡＢ", 4},           // fullwidth forms too
		{"ｱｲ", 2},           // halfwidth katakana do not
	} {
		if got := Width(tt.s); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, tt := range []struct {
		name, s string
		width   int
		indent  string
		want    []string
	}{
		{"fits, spacing kept", "am64x  cpu     1.0", 20, "  ", []string{"am64x  cpu     1.0"}},
		{"breaks at spaces, indented", "one two three four", 9, "  ", []string{"one two", "  three", "  four"}},
		{"first line keeps its indentation", "   one two three", 10, "     ", []string{"   one two", "     three"}},
		{"a word wider than the line breaks after punctuation", "see /a/very/long/path/file.txt now", 10, "  ",
			[]string{"see", "  /a/very/", "  long/", "  path/", "  file.txt", "  now"}},
		{"the pieces of a cut word never join", "a b:cccccccc:dd e", 9, "", []string{"a b:", "cccccccc:", "dd e"}},
		{"a word without punctuation stays whole", "see averyveryverylongword now", 10, "  ",
			[]string{"see", "  averyveryverylongword", "  now"}},
		{"no lone percent sign", "CPU use was 99 % here", 14, "", []string{"CPU use was", "99 % here"}},
		{"wide characters count two", "板子板子 板子板子", 10, "", []string{"板子板子", "板子板子"}},
		{"empty", "", 10, "", []string{""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Fold(tt.s, tt.width, tt.indent)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Fold(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
			}
			for _, l := range got {
				if Width(l) > tt.width && !strings.Contains(l, "veryvery") {
					t.Errorf("line %q is %d columns, over %d", l, Width(l), tt.width)
				}
			}
		})
	}
}

func TestFoldLines(t *testing.T) {
	got := FoldLines("short\na line that is too long\n", 13, "  ")
	if want := "short\na line that\n  is too long\n"; got != want {
		t.Errorf("FoldLines = %q, want %q", got, want)
	}
}
