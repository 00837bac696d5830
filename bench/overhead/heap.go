package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// profileRun runs what `fleet run --tag sim` runs (fleet.Run into the store, without progress or report) in this
// process, and writes the heap profile taken when the heap in use peaked, with the goroutines' stacks at that peak
// beside it (they are not in a heap profile). The simulated boards are in the board simulator's process: the
// profile is the controller's alone.
func profileRun(work, invPath, agentBin string, n int, out string) {
	ctx := context.Background()
	inv, err := inventory.Load(invPath)
	if err != nil {
		fatalf("%v", err)
	}
	boards, err := inv.Select(nil, []string{"sim"}, false)
	if err != nil {
		fatalf("%v", err)
	}
	sweep, err := inv.Profile("quick")
	if err != nil {
		fatalf("%v", err)
	}
	db, err := store.Open(ctx, filepath.Join(work, "profile.db"))
	if err != nil {
		fatalf("%v", err)
	}
	defer db.Close()
	w, err := db.BeginRun(ctx, store.RunInfo{})
	if err != nil {
		fatalf("%v", err)
	}
	var (
		mu       sync.Mutex
		peak     uint64
		peakMS   runtime.MemStats // at the peak: the goroutines' stacks and the runtime's own memory beside the heap
		peakG    int
		peakProf bytes.Buffer
		peakGs   bytes.Buffer // the goroutine profile at the peak: what each board's goroutines are
		done     = make(chan struct{})
		stopped  = make(chan struct{})
	)
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				mu.Lock()
				peak, peakMS, peakG = ms.HeapInuse, ms, runtime.NumGoroutine()
				peakProf.Reset()
				pprof.Lookup("heap").WriteTo(&peakProf, 0)
				peakGs.Reset()
				pprof.Lookup("goroutine").WriteTo(&peakGs, 1)
				mu.Unlock()
			}
		}
	}()
	agents := &fleet.Agents{Path: agentBin}
	home := filepath.Join(work, "home")
	start := time.Now()
	outs, err := fleet.Run(ctx, fleet.RunOptions{Boards: boards, Sweep: sweep, Concurrency: n, Agent: agents.For,
		Dial: func(ctx context.Context, b inventory.Board) (fleet.Transport, error) {
			return sshtransport.Dial(ctx, b, sshtransport.Options{Home: home, AgentSocket: "none", ConnectTimeout: 10 * time.Second})
		}}, w)
	close(done)
	<-stopped
	if err != nil {
		fatalf("in-process run: %v (%+v)", err, outs[0])
	}
	w.Finish(ctx, protocol.StatusOK)
	if err := os.WriteFile(out, peakProf.Bytes(), 0o644); err != nil {
		fatalf("%v", err)
	}
	if err := os.WriteFile(out+".goroutines", peakGs.Bytes(), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Printf("in-process run over %d boards: %.2f s, peak heap in use %.1f MiB; heap profile at that peak: %s\n",
		n, time.Since(start).Seconds(), float64(peak)/(1<<20), out)
	fmt.Printf("at that peak: %d goroutines, their stacks %.1f MiB; heap allocated %.1f MiB, next GC at %.1f MiB; "+
		"runtime's total %.1f MiB; goroutines: %s.goroutines\n", peakG, float64(peakMS.StackInuse)/(1<<20), float64(peakMS.HeapAlloc)/(1<<20),
		float64(peakMS.NextGC)/(1<<20), float64(peakMS.Sys)/(1<<20), out)
}
