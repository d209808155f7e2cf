package devicetest

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

func TestMemoryIPCAndKernels(t *testing.T) {
	// "add" adds args[2] to the 8-byte word at args[0] and stores it at args[1].
	s := NewSpace(map[string]Kernel{"add": func(g *GPU, args []uint64) error {
		in, err := g.Space().Bytes(device.Ptr(args[0]), 8)
		if err != nil {
			return err
		}
		out, err := g.Space().Bytes(device.Ptr(args[1]), 8)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(out, binary.LittleEndian.Uint64(in)+args[2])
		return nil
	}})
	g0, g1 := s.NewGPU(0), s.NewGPU(1)
	a, _ := g0.Alloc(8)
	b, _ := g1.Alloc(8)
	if err := g0.CopyToDevice(a, []byte{5, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	h, _ := g0.IPCGetHandle(a)
	peer, _ := g1.IPCOpen(h)
	k, err := g1.Kernel("add")
	if err != nil {
		t.Fatal(err)
	}
	// rank 1 reads rank 0's buffer through the handle, as over CUDA IPC
	if err := g1.Launch(k, device.Dim{}, 1, uint64(peer), uint64(b), 2); err != nil {
		t.Fatal(err)
	}
	var got [8]byte
	if err := g1.CopyFromDevice(got[:], b); err != nil || got[0] != 7 {
		t.Errorf("kernel result %v, %v; want 7", got, err)
	}
	// A captured launch runs only when the graph is launched, and every time.
	if err := g1.BeginCapture(1); err != nil {
		t.Fatal(err)
	}
	if err := g1.Launch(k, device.Dim{}, 1, uint64(b), uint64(b), 1); err != nil {
		t.Fatal(err)
	}
	gr, err := g1.EndCapture(1)
	if err != nil {
		t.Fatal(err)
	}
	g1.CopyFromDevice(got[:], b)
	if got[0] != 7 {
		t.Errorf("a captured launch ran at capture: %d", got[0])
	}
	for i := 0; i < 3; i++ {
		if err := g1.LaunchGraph(gr, 1); err != nil {
			t.Fatal(err)
		}
	}
	g1.CopyFromDevice(got[:], b)
	if got[0] != 10 {
		t.Errorf("after 3 graph launches: %d, want 10", got[0])
	}
	// Out of bounds and unknown names fail.
	if err := g0.Memset(a, 0, 9); err == nil || !strings.Contains(err.Error(), "not allocated") {
		t.Errorf("Memset past the end: %v", err)
	}
	if _, err := g0.Kernel("nope"); err == nil {
		t.Error("unknown kernel found")
	}
	if err := g0.Free(a); err != nil || g0.Free(a) == nil {
		t.Error("Free twice did not fail the second time")
	}
}

func TestBarrier(t *testing.T) {
	s := NewSpace(nil)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for r := range errs {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < 100 && errs[r] == nil; i++ {
				errs[r] = s.Barrier(3)
			}
		}(r)
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	s.Timeout = 50 * time.Millisecond
	if err := s.Barrier(2); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("a barrier nobody joins: %v", err)
	}
}
