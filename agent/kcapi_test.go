//go:build linux

package agent

import (
	"context"
	"encoding/binary"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

func TestKcapiCipherControl(t *testing.T) {
	iv := kcapiPattern(make([]byte, 12), 0xa5)
	oob := kcapiCipherControl(true, iv, true, 0)
	want := []struct {
		typ  int32
		data []byte
	}{
		{unix.ALG_SET_OP, binary.NativeEndian.AppendUint32(nil, unix.ALG_OP_DECRYPT)},
		{unix.ALG_SET_IV, append(binary.NativeEndian.AppendUint32(nil, 12), iv...)},
		{unix.ALG_SET_AEAD_ASSOCLEN, binary.NativeEndian.AppendUint32(nil, 0)},
	}
	for i, w := range want {
		if len(oob) < unix.CmsgLen(0) {
			t.Fatalf("control message %d missing", i)
		}
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		dataLen := int(h.Len) - unix.CmsgLen(0)
		if h.Level != unix.SOL_ALG || h.Type != w.typ || dataLen != len(w.data) {
			t.Fatalf("control message %d: level %d type %d len %d, want %d %d %d", i, h.Level, h.Type, dataLen, unix.SOL_ALG, w.typ, len(w.data))
		}
		if got := oob[unix.CmsgLen(0) : unix.CmsgLen(0)+dataLen]; string(got) != string(w.data) {
			t.Errorf("control message %d data %x, want %x", i, got, w.data)
		}
		oob = oob[unix.CmsgSpace(dataLen):]
	}
	if len(oob) != 0 {
		t.Errorf("%d bytes after the last control message", len(oob))
	}
}

// TestKcapiOnThisKernel runs every kcapi algorithm's verification through AF_ALG, has the controller's judge
// (package verify) check it, and measures it briefly. Kernels without AF_ALG (CONFIG_CRYPTO_USER_API_*) skip it; the QEMU boards run it.
func TestKcapiOnThisKernel(t *testing.T) {
	if err := kcapiSocketWorks(); err != nil {
		t.Skipf("AF_ALG not usable on this kernel (%v): kcapi cannot be measured here", err)
	}
	for _, a := range kcapiSpecs {
		alg, spec := a.alg, a.spec
		t.Run(alg, func(t *testing.T) {
			s := &sweepState{plan: protocol.Plan{Sizes: []int{16, 1024}, VerifyThreads: 2, VerifySeconds: 0.2}}
			rep := s.verifyKcapi(context.Background(), protocol.ModeKCAPI, alg, "")
			rep.Mode, rep.Algorithm = "kcapi", alg
			if len(rep.Cases) > 0 && rep.Cases[0].Err != "" {
				t.Skipf("kernel lacks %s: %s", spec.Name, rep.Cases[0].Err)
			}
			if res := verify.Judge(rep); res.Verdict != protocol.VerificationOK {
				t.Errorf("verification through %s: %+v", rep.Path, res)
			}
			for _, dec := range []bool{false, true} {
				if dec && spec.Kind == "hash" {
					continue
				}
				r, err := kcapiMeasure(context.Background(), spec, 1024, 0.05, dec, func() systemSample { return sampleSystem("") })
				if err != nil {
					t.Fatal(err)
				}
				if r.Ops == 0 || r.WallS <= 0 || r.UserS+r.SysS <= 0 {
					t.Errorf("%s decrypt=%v: %d ops in %.3f s, user %.3f sys %.3f", alg, dec, r.Ops, r.WallS, r.UserS, r.SysS)
				}
			}
		})
	}
}
