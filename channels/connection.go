package channels

import (
	"fmt"
	"unsafe"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Connection carries the port-channel work of this rank towards one peer, over one
// transport (a package beside this one, registered with RegisterTransport).
//
// MSCCL++'s BaseConnection has three operations, and every implementation here has
// them: write (copy bytes from local GPU memory into the peer's), signal (MSCCL++'s
// updateAndSync: set the peer's semaphore token once every earlier write has landed) and
// flush (wait until every earlier write has finished reading its local source). The proxy
// reaches them through one call per trigger, Handle, which runs those the trigger asks for,
// in that order: one interface call per trigger is all the seam adds to the proxy's loop.
type Connection interface {
	// Transport names the connection's transport.
	Transport() Transport
	// Handle carries out trigger t of channel ch: if t has TriggerData and a size,
	// write t.Size() bytes from ch.Src at t.SrcOffset() to ch.Dst at t.DstOffset(); if
	// TriggerFlag, set ch.Token to ch.Outbound() once those bytes (and every earlier
	// write) have landed; if TriggerSync, return only when every write so far has
	// finished reading its source. The proxy has checked the offsets against the
	// regions' sizes and counted the signal. It runs on the proxy goroutine only.
	Handle(ch *ProxyChannel, t Trigger) error
	// Close releases what the connection holds; the proxy must have stopped.
	Close() error
}

// Drainer is a Connection that may still be sending a signal after Handle returns: Drain
// waits until the signals and small writes handed to it so far have been sent
// (Mesh.StopProxy), once the proxy has stopped.
type Drainer interface {
	Drain() error
}

// Region is a span of registered memory as a connection addresses it.
type Region struct {
	// Base is the registration's start as the transport addresses it: mapped into this
	// process (a transport that maps), local memory's own address, what a
	// MemoryRegistrar's RemoteRegion says of a peer's, 0 otherwise.
	Base device.Ptr
	Off  uint64 // where the span starts in the registration
	Size uint64 // the span's length
	ID   uint32 // the owner's registration number (a transport's messages can name memory by it)
	Key  uint32 // a MemoryRegistrar's key: its Registration's for local memory, RemoteRegion's for a peer's
	// Host is the span mapped into this process when it is (host tokens of a peer on this
	// host), else nil.
	Host unsafe.Pointer
}

// Ptr returns the span's start as the transport addresses it.
func (r *Region) Ptr() device.Ptr { return r.Base.Add(r.Off) }

// Steps decodes what a trigger asks a connection to do: write (data of a non-zero size),
// signal (a flag), flush (a sync).
func (t Trigger) Steps() (write, signal, flush bool) {
	typ := t.Type()
	return typ&TriggerData != 0 && t.Size() > 0, typ&TriggerFlag != 0, typ&TriggerSync != 0
}

// Stepper is a connection's three operations on one channel, for RunSteps.
type Stepper interface {
	// Write copies t.Size() bytes from ch.Src at t.SrcOffset() to ch.Dst at t.DstOffset().
	Write(ch *ProxyChannel, t Trigger) error
	// Signal sets ch.Token to ch.Outbound() once every earlier write has landed.
	Signal(ch *ProxyChannel) error
	// Flush returns once every earlier write has finished reading its source.
	Flush() error
}

// RunSteps carries out what trigger t asks of a connection, in order: a transport's Handle
// can be just this. (A transport on a hot path may spell the same out itself, to keep it
// free of further interface calls.)
func RunSteps(s Stepper, ch *ProxyChannel, t Trigger) error {
	write, signal, flush := t.Steps()
	if write {
		if err := s.Write(ch, t); err != nil {
			return err
		}
	}
	if signal {
		if err := s.Signal(ch); err != nil {
			return fmt.Errorf("signal: %w", err)
		}
	}
	if flush {
		if err := s.Flush(); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
	}
	return nil
}
