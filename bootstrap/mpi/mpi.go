//go:build cgo

package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	mpi "github.com/sbromberger/gompi"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// The MPI thread: a goroutine locked to one OS thread that runs every MPI
// call (see the package doc).
var (
	startOnce sync.Once
	calls     chan func()
)

// do runs f on the MPI thread and waits for it. A panic in f (gompi panics
// in a few places) comes back as an error.
func do(f func()) (err error) {
	startOnce.Do(func() {
		calls = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: this thread stays MPI's
			for f := range calls {
				f()
			}
		}()
	})
	done := make(chan struct{})
	calls <- func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("mpi: %v", r)
			}
		}()
		f()
	}
	<-done
	return err
}

// MPI state, guarded by mu. mu is held across MPI calls so that Finalize
// cannot overlap another call.
var (
	mu          sync.Mutex
	initialized bool
	finalized   bool
	world       *mpi.Communicator
	worldRank   int
	worldSize   int
)

// Init initialises MPI (MPI_Init, single-threaded) and returns this
// process's rank and the number of processes. Calling it again returns the
// same values. If MPI_Init itself fails, MPI aborts the process.
func Init() (rank, nranks int, err error) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case finalized:
		return 0, 0, errors.New("mpi: Init after Finalize")
	case initialized:
		return worldRank, worldSize, nil
	}
	err = do(func() {
		if !mpi.IsOn() {
			mpi.Start(false)
		}
		world = mpi.NewCommunicator(nil)
		worldRank, worldSize = world.Rank(), world.Size()
	})
	if err != nil {
		return 0, 0, fmt.Errorf("mpi: init: %w", err)
	}
	if worldSize < 1 || worldRank < 0 || worldRank >= worldSize {
		return 0, 0, fmt.Errorf("mpi: init: bad world rank %d of size %d", worldRank, worldSize)
	}
	initialized = true
	return worldRank, worldSize, nil
}

// Finalize shuts MPI down (MPI_Finalize). It does nothing if MPI was not
// initialised by Init or is already finalised.
func Finalize() {
	mu.Lock()
	defer mu.Unlock()
	if !initialized || finalized {
		return
	}
	finalized = true
	do(mpi.Stop)
}

// Abort ends every process of the job with code (MPI_Abort on the world
// communicator). Without MPI it just exits. It does not return.
func Abort(code int) {
	// Do not wait on mu or on a busy MPI thread: Abort is for when
	// something is stuck. If the MPI thread does not take the call within a
	// second, call MPI_Abort from this thread; MPI then ends the job.
	mu.Lock()
	w := world
	live := initialized && !finalized
	mu.Unlock()
	if live && w != nil {
		done := make(chan struct{})
		abort := func() { w.Abort(code); close(done) }
		select {
		case calls <- abort:
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		case <-time.After(time.Second):
			runtime.LockOSThread()
			w.Abort(code)
		}
	}
	os.Exit(code)
}

// worldInfo returns the rank and size, or an error if Init has not run.
func worldInfo() (rank, nranks int, err error) {
	mu.Lock()
	defer mu.Unlock()
	if !initialized || finalized {
		return 0, 0, errors.New("mpi: not initialized (call Init first)")
	}
	return worldRank, worldSize, nil
}

// BcastUniqueID broadcasts rank 0's *id to every rank (MPI_Bcast on the
// world communicator). Every rank must call it.
func BcastUniqueID(id *bootstrap.UniqueID) error {
	if id == nil {
		return errors.New("mpi: BcastUniqueID: nil id")
	}
	mu.Lock()
	defer mu.Unlock()
	if !initialized || finalized {
		return errors.New("mpi: BcastUniqueID: not initialized (call Init first)")
	}
	// Not world.BcastBytes: in gompi v0.2.0 it passes len(x) elements of
	// MPI_INT32_T, i.e. 4*len(x) bytes, so it would read and write past the
	// end of the 128-byte buffer. Broadcast the ID as 16 uint64 words
	// instead; the byte order is fixed (little-endian) on both sides, so
	// the bytes arrive unchanged.
	var words [bootstrap.UniqueIDSize / 8]uint64
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(id[8*i:])
	}
	if err := do(func() { world.BcastUint64s(words[:], 0) }); err != nil {
		return fmt.Errorf("mpi: BcastUniqueID: %w", err)
	}
	for i := range words {
		binary.LittleEndian.PutUint64(id[8*i:], words[i])
	}
	return nil
}
