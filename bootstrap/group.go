package bootstrap

import (
	"fmt"
	"slices"
)

// PointToPoint is what a Group needs of its parent bootstrap (TCPBootstrap has it).
type PointToPoint interface {
	Rank() int
	NRanks() int
	Send(peer, tag int, data []byte) error
	Recv(peer, tag int) ([]byte, error)
}

// groupTagBase keeps a Group's messages apart from the parent's own tags.
const groupTagBase = 0x47520000 << 16

// Tags of a Group's collectives, above groupTagBase.
const (
	groupTagAllGather = iota
	groupTagUser      = 16 // Send and Recv's tags start here
)

// Group is some of a parent bootstrap's ranks acting as a job of their own (e.g. the ranks
// of one host, for a mesh of that host only): group rank i is the parent's Ranks[i]. It
// has the point-to-point calls, AllGather and Barrier, carried over the parent's Send and
// Recv with tags of its own, each bounded by the parent's timeout. Every member must make
// the same calls in the same order; nothing else may use the parent's Send and Recv on
// the Group's tags, which start at groupTagBase (above 2^46), far from the small tags
// the mesh and the benchmarks use.
type Group struct {
	parent PointToPoint
	ranks  []int // parent ranks, by group rank
	rank   int   // my group rank
}

// NewGroup makes the group of the parent's ranks (ascending, the parent's own among them).
func NewGroup(parent PointToPoint, ranks []int) (*Group, error) {
	me := slices.Index(ranks, parent.Rank())
	if me < 0 {
		return nil, fmt.Errorf("bootstrap group %v: rank %d is not a member", ranks, parent.Rank())
	}
	for i, r := range ranks {
		if r < 0 || r >= parent.NRanks() || (i > 0 && r <= ranks[i-1]) {
			return nil, fmt.Errorf("bootstrap group %v: want ascending ranks of the job's %d", ranks, parent.NRanks())
		}
	}
	return &Group{parent: parent, ranks: slices.Clone(ranks), rank: me}, nil
}

// Rank returns my rank in the group.
func (g *Group) Rank() int { return g.rank }

// NRanks returns the group's size.
func (g *Group) NRanks() int { return len(g.ranks) }

// Parent returns the parent rank of group rank r.
func (g *Group) Parent(r int) int { return g.ranks[r] }

func (g *Group) check(peer int) error {
	if peer < 0 || peer >= len(g.ranks) {
		return fmt.Errorf("bootstrap group: rank %d is not in the group of %d", peer, len(g.ranks))
	}
	return nil
}

// Send sends data to group rank peer with tag (at least 0).
func (g *Group) Send(peer, tag int, data []byte) error {
	if err := g.check(peer); err != nil {
		return err
	}
	return g.parent.Send(g.ranks[peer], groupTagBase+groupTagUser+tag, data)
}

// Recv returns the next message from group rank peer with tag.
func (g *Group) Recv(peer, tag int) ([]byte, error) {
	if err := g.check(peer); err != nil {
		return nil, err
	}
	return g.parent.Recv(g.ranks[peer], groupTagBase+groupTagUser+tag)
}

// AllGather collects one byte slice from every member, by group rank.
func (g *Group) AllGather(mine []byte) ([][]byte, error) {
	out := make([][]byte, len(g.ranks))
	out[g.rank] = slices.Clone(mine)
	for i, r := range g.ranks {
		if i != g.rank {
			if err := g.parent.Send(r, groupTagBase+groupTagAllGather, mine); err != nil {
				return nil, fmt.Errorf("bootstrap group allgather: %w", err)
			}
		}
	}
	for i, r := range g.ranks {
		if i == g.rank {
			continue
		}
		data, err := g.parent.Recv(r, groupTagBase+groupTagAllGather)
		if err != nil {
			return nil, fmt.Errorf("bootstrap group allgather: %w", err)
		}
		out[i] = data
	}
	return out, nil
}

// Barrier returns once every member has called it.
func (g *Group) Barrier() error {
	_, err := g.AllGather(nil)
	return err
}
