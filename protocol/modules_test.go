package protocol

import (
	"slices"
	"testing"
)

func TestCryptoModules(t *testing.T) {
	mods := []string{"usb_f_ncm", "sa2ul", "aes_ce_blk", "designware_i2c", "af_alg", "sha2_ce", "fuse", "cryptodev",
		"my_accel", "des_generic", "m_can"}
	algs := []CryptoAlg{{Name: "cbc(aes)", Driver: "cbc-aes-myaccel", Module: "my_accel"}, {Name: "aes", Module: "kernel"}}
	want := []string{"aes_ce_blk", "af_alg", "cryptodev", "des_generic", "my_accel", "sa2ul", "sha2_ce"}
	if got := CryptoModules(mods, algs); !slices.Equal(got, want) {
		t.Errorf("CryptoModules = %q, want %q", got, want)
	}
	if got := CryptoModules(nil, algs); got != nil {
		t.Errorf("no /proc/modules: %q, want nil", got)
	}
	if got := CryptoModules([]string{"fuse"}, nil); got == nil || len(got) != 0 {
		t.Errorf("no crypto module: %q, want empty, not nil", got)
	}
}
