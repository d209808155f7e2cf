package channels

import (
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Semaphores (device halves: kernels/include/mscclpp/semaphore_device.cuh). Every rank
// keeps one array of inbound tokens, [peer][semaphore id] uint64, that peers signal, and
// a local array of expected counts of the same layout. A semaphore id is allocated in
// lockstep on every rank, so rank a's slot [b][id] pairs with rank b's slot [a][id].

// setupSemaphores allocates the token arrays and shares the inbound one: CUDA IPC peers
// map it, network peers address it through its registration.
func (m *Mesh) setupSemaphores() error {
	tokenBytes := uint64(m.NRanks*m.Opts.MaxSemaphores) * 8
	var err error
	if m.tokens, err = m.Alloc(tokenBytes); err != nil {
		return err
	}
	if m.expected, err = m.Alloc(tokenBytes); err != nil {
		return err
	}
	tok, err := m.Share(m.tokens, tokenBytes)
	if err != nil {
		return fmt.Errorf("mesh: share semaphore tokens: %w", err)
	}
	m.peerTokens, m.tokenMems = tok.Ptrs, tok.Mems
	return nil
}

func (m *Mesh) nextSemaphore() (int, error) {
	if m.nextSem >= m.Opts.MaxSemaphores {
		return 0, fmt.Errorf("mesh: all %d semaphore ids are in use", m.Opts.MaxSemaphores)
	}
	m.nextSem++
	return m.nextSem - 1, nil
}

// tokenOffset is the byte offset of rank from's slot id in a token array.
func (m *Mesh) tokenOffset(from, id int) uint64 {
	return uint64(from*m.Opts.MaxSemaphores+id) * 8
}

// token returns rank `from`'s slot id in the token array at base.
func (m *Mesh) token(base device.Ptr, from, id int) device.Ptr {
	return base.Add(m.tokenOffset(from, id))
}
