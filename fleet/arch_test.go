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
		{"armv5", Target{"linux", "arm", "5"}, "linux/arm/v5"},
		{"armv5tejl", Target{"linux", "arm", "5"}, "linux/arm/v5"},
		{"armv5tel", Target{"linux", "arm", "5"}, "linux/arm/v5"},
		{"armv6l", Target{"linux", "arm", "6"}, "linux/arm/v6"},
		{"armv7", Target{"linux", "arm", "7"}, "linux/arm/v7"},
		{"armv7l\n", Target{"linux", "arm", "7"}, "linux/arm/v7"},
		{"armv8l", Target{"linux", "arm", "7"}, "linux/arm/v7"},
		{"armv7hl", Target{"linux", "arm", "7"}, "linux/arm/v7"},
		{" aarch64\r\n", Target{"linux", "arm64", ""}, "linux/arm64"},
		{"aarch64", Target{"linux", "arm64", ""}, "linux/arm64"},
		{"ARM64", Target{"linux", "arm64", ""}, "linux/arm64"},
		{"x86_64", Target{"linux", "amd64", ""}, "linux/amd64"},
		{"amd64", Target{"linux", "amd64", ""}, "linux/amd64"},
		{"i686", Target{"linux", "386", ""}, "linux/386"},
		{"386", Target{"linux", "386", ""}, "linux/386"},
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
	for _, bad := range []string{"", "arm", "mips", "riscv64", "armv4"} {
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
	fake = &cannedTransport{stdout: "mips\n"}
	if got, err := DetectArch(ctx, fake); err == nil {
		t.Errorf("DetectArch(mips board) = %q, want an error", got)
	}
}
