package fleet

import (
	"context"
	"testing"
)

func TestTargetForArch(t *testing.T) {
	tests := []struct {
		arch string
		want Target
		name string
	}{
		{"armv5", Target{GOOS: "linux", GOARCH: "arm", GOARM: "5"}, "linux/arm/v5"},
		{"armv5tejl", Target{GOOS: "linux", GOARCH: "arm", GOARM: "5"}, "linux/arm/v5"},
		{"armv5tel", Target{GOOS: "linux", GOARCH: "arm", GOARM: "5"}, "linux/arm/v5"},
		{"armv6l", Target{GOOS: "linux", GOARCH: "arm", GOARM: "6"}, "linux/arm/v6"},
		{"armv7", Target{GOOS: "linux", GOARCH: "arm", GOARM: "7"}, "linux/arm/v7"},
		{"armv7l\n", Target{GOOS: "linux", GOARCH: "arm", GOARM: "7"}, "linux/arm/v7"},
		{"armv8l", Target{GOOS: "linux", GOARCH: "arm", GOARM: "7"}, "linux/arm/v7"},
		{"armv7hl", Target{GOOS: "linux", GOARCH: "arm", GOARM: "7"}, "linux/arm/v7"},
		{" aarch64\r\n", Target{GOOS: "linux", GOARCH: "arm64"}, "linux/arm64"},
		{"aarch64", Target{GOOS: "linux", GOARCH: "arm64"}, "linux/arm64"},
		{"ARM64", Target{GOOS: "linux", GOARCH: "arm64"}, "linux/arm64"},
		{"x86_64", Target{GOOS: "linux", GOARCH: "amd64"}, "linux/amd64"},
		{"amd64", Target{GOOS: "linux", GOARCH: "amd64"}, "linux/amd64"},
		{"i686", Target{GOOS: "linux", GOARCH: "386"}, "linux/386"},
		{"386", Target{GOOS: "linux", GOARCH: "386"}, "linux/386"},
		{"riscv64", Target{GOOS: "linux", GOARCH: "riscv64"}, "linux/riscv64"},
		{"mipsel", Target{GOOS: "linux", GOARCH: "mipsle"}, "linux/mipsle"},
		{"mipsle-softfloat", Target{GOOS: "linux", GOARCH: "mipsle", GOMIPS: "softfloat"}, "linux/mipsle/softfloat"},
		{"mips-softfloat", Target{GOOS: "linux", GOARCH: "mips", GOMIPS: "softfloat"}, "linux/mips/softfloat"},
		{"mips64el", Target{GOOS: "linux", GOARCH: "mips64le"}, "linux/mips64le"},
		{"ppc64le", Target{GOOS: "linux", GOARCH: "ppc64le"}, "linux/ppc64le"},
		{"loongarch64", Target{GOOS: "linux", GOARCH: "loong64"}, "linux/loong64"},
	}
	for _, tt := range tests {
		got, err := TargetForArch(tt.arch)
		if err != nil {
			t.Errorf("TargetForArch(%q): %v", tt.arch, err)
			continue
		}
		if got != tt.want {
			t.Errorf("TargetForArch(%q) = %+v, want %+v", tt.arch, got, tt.want)
		}
		if got.String() != tt.name {
			t.Errorf("TargetForArch(%q).String() = %q, want %q", tt.arch, got.String(), tt.name)
		}
	}
	for _, bad := range []string{"", "arm", "armv5teb", "ppc", "sh4", "armv4"} {
		if got, err := TargetForArch(bad); err == nil {
			t.Errorf("TargetForArch(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestDetectArch(t *testing.T) {
	ctx := context.Background()
	got, err := DetectArch(ctx, &hostTransport{home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TargetForArch(got); err != nil {
		t.Errorf("DetectArch on the host = %q, not a known arch: %v", got, err)
	}
	fake := &cannedTransport{stdout: "armv5tejl\n"}
	if got, err := DetectArch(ctx, fake); err != nil || got != "armv5" {
		t.Errorf("DetectArch(armv5tejl board) = %q, %v; want armv5", got, err)
	}
	fake = &cannedTransport{stdout: "sh4\n"}
	if got, err := DetectArch(ctx, fake); err == nil {
		t.Errorf("DetectArch(sh4 board) = %q, want an error", got)
	}
}
