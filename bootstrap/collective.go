package bootstrap

import (
	"fmt"
	"os"
)

// nextSeq returns the sequence number of a new collective. All ranks call
// collectives in the same order, so they agree on it.
func (b *TCPBootstrap) nextSeq() uint64 { return b.seq.Add(1) }

// collStep sends one step of a collective to `to` and receives the matching
// step from `from`, checking that it belongs to the same collective.
func (b *TCPBootstrap) collStep(kind collKind, seq uint64, step, to int, sendStep int, data []byte, from, wantStep int) ([]byte, error) {
	if err := b.send(to, frameColl, int64(seq), encodeColl(kind, sendStep, data)); err != nil {
		return nil, b.errorf("%s #%d step %d: send to rank %d (%s): %w", kind, seq, step, to, b.peers[to].addrString(), err)
	}
	payload, err := b.recv(from, msgKey{frameColl, int64(seq)})
	if err != nil {
		return nil, b.errorf("%s #%d step %d: recv from rank %d (%s): %w", kind, seq, step, from, b.peers[from].addrString(), err)
	}
	gotKind, gotStep, got, err := decodeColl(payload)
	if err == nil && (gotKind != kind || gotStep != wantStep) {
		err = fmt.Errorf("got %s step %d, want %s step %d (do all ranks call the same collectives in the same order?)", gotKind, gotStep, kind, wantStep)
	}
	if err != nil {
		return nil, b.errorf("%s #%d step %d: from rank %d: protocol error: %w", kind, seq, step, from, err)
	}
	return got, nil
}

// AllGather collects one byte slice from every rank: the result's slot i
// holds rank i's data (slot Rank() is a copy of mine). Contributions may
// differ in length. It is a ring: nranks-1 steps, each bounded by the
// timeout.
func (b *TCPBootstrap) AllGather(mine []byte) ([][]byte, error) {
	if err := b.checkReady("allgather"); err != nil {
		return nil, err
	}
	if len(mine) > MaxMessageSize {
		return nil, b.errorf("allgather: %d bytes exceeds MaxMessageSize (%d)", len(mine), MaxMessageSize)
	}
	seq := b.nextSeq()
	n, r := b.nranks, b.rank
	out := make([][]byte, n)
	out[r] = append([]byte{}, mine...)
	next, prev := (r+1)%n, (r-1+n)%n
	for step := 0; step < n-1; step++ {
		slot := (r - step + n) % n
		want := (r - step - 1 + n) % n
		got, err := b.collStep(collAllGather, seq, step, next, slot, out[slot], prev, want)
		if err != nil {
			return nil, err
		}
		out[want] = got
	}
	return out, nil
}

// Barrier returns once every rank has entered it. It is a dissemination
// barrier: ceil(log2 nranks) rounds, each bounded by the timeout.
func (b *TCPBootstrap) Barrier() error {
	if err := b.checkReady("barrier"); err != nil {
		return err
	}
	seq := b.nextSeq()
	n, r := b.nranks, b.rank
	for round, d := 0, 1; d < n; round, d = round+1, 2*d {
		if _, err := b.collStep(collBarrier, seq, round, (r+d)%n, round, nil, (r-d+n)%n, round); err != nil {
			return err
		}
	}
	return nil
}

// LocalRank finds the ranks that run on this host: it allgathers hostname
// ("" means os.Hostname()) and returns how many lower ranks share it
// (localRank) and how many ranks share it in all (localSize). Every rank
// must call it (it is a collective).
func (b *TCPBootstrap) LocalRank(hostname string) (localRank, localSize int, err error) {
	var herr error
	if hostname == "" {
		// On failure still take part, so the other ranks do not hang.
		hostname, herr = os.Hostname()
	}
	all, err := b.AllGather([]byte(hostname))
	if err != nil {
		return 0, 0, err
	}
	if herr != nil {
		return 0, 0, b.errorf("local rank: %w", herr)
	}
	for i, h := range all {
		if string(h) == hostname {
			localSize++
			if i < b.rank {
				localRank++
			}
		}
	}
	return localRank, localSize, nil
}
