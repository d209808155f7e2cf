package algo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A CPU model of the credit protocol of broadcast and reduce ll16
// (kernels/include/mscclpp/ll_device.cuh). Ranks run their launches in order; each launch's
// blocks step independently in a random order (some ranks and blocks much slower than
// others), and every store to another rank's memory (packets, credits) stays in flight until
// a random later step, in order only with earlier stores of the same rank to the same place.
// The model fails a run where a packet is overwritten before its reader read it (or by an
// older one), a reader gets a packet from the wrong rank, or the ranks stop with launches
// left (deadlock). It checks the protocol's logic, not the GPU's memory ordering.

// creditProtocol is one variant of the protocol.
type creditProtocol struct {
	slots, words int  // packet slots rotated through; credit words per rank (the largest grid)
	lag          int  // a writer of launch f waits for credits of f-lag (the kernels: slots)
	spread       bool // block b credits words b, b+grid, ...; false: word b only
	checkAll     bool // a writer checks every word of a row; false: word 0 only
}

// llProtocol is the protocol the kernels implement.
var llProtocol = creditProtocol{slots: LLSlots, words: LLCreditSlots, lag: LLSlots, spread: true, checkAll: true}

// modelLaunch is one launch: the root, the packet units of each rank's buffer, and each
// rank's grid (ranks sharing a GPU may have different ones).
type modelLaunch struct {
	root, units int
	grid        []int
}

type packetAt struct{ owner, slot, buf, unit int }

type modelPacket struct {
	flag, writer int
	read         bool
}

// storeAt is where a store in flight goes; stores of one rank to one place stay in order.
type storeAt struct {
	credit      bool
	src         int
	packet      packetAt // packets
	owner, word int      // credits: credits[owner][src][word]
}

// modelBlock is one block of a rank's current launch.
type modelBlock struct {
	phase  int        // 0 wait for credits (writer) or read (reader), 1 credit, 2 done
	toRead []packetAt // reader: packets still to read
}

type creditSim struct {
	p        creditProtocol
	reduce   bool
	n        int
	launches []modelLaunch
	rng      *rand.Rand

	packets map[packetAt]modelPacket
	credits [][][]int         // credits[owner][from][word]
	queues  map[storeAt][]int // flags of the stores in flight
	keys    []storeAt         // places with stores in flight

	next   []int          // per rank: index of the launch it runs
	blocks [][]modelBlock // per rank: blocks of that launch
	speed  [][]float64    // per rank and block index: chance that a picked block steps
}

// newCreditSim sets up ranks that run launches with protocol p.
func newCreditSim(p creditProtocol, reduce bool, nranks int, launches []modelLaunch, seed uint64) *creditSim {
	s := &creditSim{p: p, reduce: reduce, n: nranks, launches: launches, rng: rand.New(rand.NewPCG(seed, 7)),
		packets: map[packetAt]modelPacket{}, queues: map[storeAt][]int{},
		next: make([]int, nranks), blocks: make([][]modelBlock, nranks), speed: make([][]float64, nranks)}
	s.credits = make([][][]int, nranks)
	for r := range s.credits {
		s.credits[r] = make([][]int, nranks)
		for q := range s.credits[r] {
			s.credits[r][q] = make([]int, p.words)
		}
		s.start(r)
	}
	return s
}

// writer says whether rank r writes packets in launch l (else it reads them).
func (s *creditSim) writer(r int, l modelLaunch) bool { return (r == l.root) != s.reduce }

// targets are the ranks that rank r writes to in launch l.
func (s *creditSim) targets(r int, l modelLaunch) []int {
	if s.reduce {
		return []int{l.root}
	}
	var t []int
	for q := range s.n {
		if q != r {
			t = append(t, q)
		}
	}
	return t
}

// start gives rank r the blocks of its next launch, if any.
func (s *creditSim) start(r int) {
	if s.next[r] == len(s.launches) {
		s.blocks[r] = nil
		return
	}
	f := s.next[r] + 1
	l := s.launches[s.next[r]]
	s.blocks[r] = make([]modelBlock, l.grid[r])
	if s.writer(r, l) {
		return
	}
	for b := range s.blocks[r] {
		for u := b; u < l.units; u += l.grid[r] {
			if !s.reduce {
				s.blocks[r][b].toRead = append(s.blocks[r][b].toRead, packetAt{r, f % s.p.slots, 0, u})
				continue
			}
			for w := range s.n {
				if w != r {
					s.blocks[r][b].toRead = append(s.blocks[r][b].toRead, packetAt{r, f % s.p.slots, w, u})
				}
			}
		}
	}
}

// creditsReady says whether rank r may write launch f to every target.
func (s *creditSim) creditsReady(r, f int, targets []int) bool {
	words := s.p.words
	if !s.p.checkAll {
		words = 1
	}
	for _, t := range targets {
		for w := range words {
			if s.credits[r][t][w] < f-s.p.lag {
				return false
			}
		}
	}
	return true
}

// readable is the index in toRead of a packet rank r's block can read in launch f, or -1.
func (s *creditSim) readable(blk *modelBlock, f int) int {
	for i, at := range blk.toRead {
		if p, ok := s.packets[at]; ok && p.flag == f {
			return i
		}
	}
	return -1
}

// runnable appends the blocks of rank r that can take a step to ready.
func (s *creditSim) runnable(r int, ready [][2]int) [][2]int {
	if s.blocks[r] == nil {
		return ready
	}
	f := s.next[r] + 1
	l := s.launches[s.next[r]]
	writer := s.writer(r, l)
	credited := writer && s.creditsReady(r, f, s.targets(r, l))
	for b := range s.blocks[r] {
		blk := &s.blocks[r][b]
		if blk.phase == 1 || blk.phase == 0 && (writer && credited || !writer && (len(blk.toRead) == 0 || s.readable(blk, f) >= 0)) {
			ready = append(ready, [2]int{r, b})
		}
	}
	return ready
}

func (s *creditSim) send(at storeAt, flag int) {
	if len(s.queues[at]) == 0 {
		s.keys = append(s.keys, at)
	}
	s.queues[at] = append(s.queues[at], flag)
}

// step runs one step of block b of rank r (runnable).
func (s *creditSim) step(r, b int) error {
	blk := &s.blocks[r][b]
	f := s.next[r] + 1
	l := s.launches[s.next[r]]
	grid := l.grid[r]
	switch {
	case blk.phase == 0 && s.writer(r, l):
		buf := 0
		if s.reduce {
			buf = r
		}
		for _, t := range s.targets(r, l) {
			for u := b; u < l.units; u += grid {
				s.send(storeAt{src: r, packet: packetAt{t, f % s.p.slots, buf, u}}, f)
			}
		}
		blk.phase = 1
	case blk.phase == 0:
		if len(blk.toRead) > 0 {
			i := s.readable(blk, f)
			at := blk.toRead[i]
			p := s.packets[at]
			if want := l.root; !s.reduce && p.writer != want || s.reduce && p.writer != at.buf {
				return fmt.Errorf("launch %d: rank %d read a packet of rank %d at %+v", f, r, p.writer, at)
			}
			p.read = true
			s.packets[at] = p
			blk.toRead = append(blk.toRead[:i], blk.toRead[i+1:]...)
		}
		if len(blk.toRead) == 0 {
			blk.phase = 1
		}
	case blk.phase == 1:
		for q := range s.n {
			if q == r {
				continue
			}
			for w := b; w < s.p.words; w += grid {
				s.send(storeAt{credit: true, src: r, owner: q, word: w}, f)
				if !s.p.spread {
					break
				}
			}
		}
		blk.phase = 2
	}
	for _, o := range s.blocks[r] {
		if o.phase != 2 {
			return nil
		}
	}
	s.next[r]++ // the launch has ended: the next one starts
	s.start(r)
	return nil
}

// deliver lands the oldest store in flight to the k-th place.
func (s *creditSim) deliver(k int) error {
	at := s.keys[k]
	flag := s.queues[at][0]
	s.queues[at] = s.queues[at][1:]
	if len(s.queues[at]) == 0 {
		s.keys[k] = s.keys[len(s.keys)-1]
		s.keys = s.keys[:len(s.keys)-1]
		delete(s.queues, at)
	}
	if at.credit {
		s.credits[at.owner][at.src][at.word] = flag
		return nil
	}
	if old, ok := s.packets[at.packet]; ok && (!old.read || old.flag > flag) {
		return fmt.Errorf("rank %d's packet of launch %d at %+v overwrote rank %d's of launch %d (read: %v)",
			at.src, flag, at.packet, old.writer, old.flag, old.read)
	}
	s.packets[at.packet] = modelPacket{flag: flag, writer: at.src}
	return nil
}

// run steps the ranks to the end, or to the first error.
func (s *creditSim) run() error {
	deliverP := 0.1 + 0.8*s.rng.Float64()
	var ready [][2]int
	for steps := 0; ; steps++ {
		if steps%150 == 0 { // some ranks and blocks much slower than others, one nearly stopped
			for r := range s.speed {
				rank := 0.05 + s.rng.Float64()
				s.speed[r] = make([]float64, s.p.words)
				for b := range s.speed[r] {
					s.speed[r][b] = rank * (0.05 + s.rng.Float64())
				}
			}
			s.speed[s.rng.IntN(s.n)][s.rng.IntN(s.p.words)] = 1e-4
		}
		ready = ready[:0]
		for r := range s.n {
			ready = s.runnable(r, ready)
		}
		if len(ready) == 0 && len(s.keys) == 0 {
			for r := range s.n {
				if s.next[r] < len(s.launches) {
					return fmt.Errorf("deadlock: rank %d stops in launch %d of %d", r, s.next[r]+1, len(s.launches))
				}
			}
			for at, p := range s.packets {
				if !p.read {
					return fmt.Errorf("packet at %+v (launch %d) never read", at, p.flag)
				}
			}
			return nil
		}
		if len(ready) == 0 || len(s.keys) > 0 && s.rng.Float64() < deliverP {
			if err := s.deliver(s.rng.IntN(len(s.keys))); err != nil {
				return err
			}
			continue
		}
		c := ready[s.rng.IntN(len(ready))]
		for try := 0; try < 64 && s.rng.Float64() > s.speed[c[0]][c[1]]; try++ {
			c = ready[s.rng.IntN(len(ready))]
		}
		if err := s.step(c[0], c[1]); err != nil {
			return err
		}
	}
}

// modelLaunches makes n launches on nranks ranks: the root stays, changes every launch or
// is drawn every launch (by rootMode 0, 1, 2); the buffer (0 to 11 packet units) and every
// rank's grid (1 to maxGrid blocks) change at random.
func modelLaunches(rng *rand.Rand, n, nranks, maxGrid, rootMode int) []modelLaunch {
	ls := make([]modelLaunch, n)
	root := rng.IntN(nranks)
	for i := range ls {
		switch rootMode {
		case 1:
			root = (root + 1 + rng.IntN(nranks-1)) % nranks
		case 2:
			root = rng.IntN(nranks)
		}
		ls[i] = modelLaunch{root: root, units: rng.IntN(12), grid: make([]int, nranks)}
		for r := range ls[i].grid {
			ls[i].grid[r] = 1 + rng.IntN(maxGrid)
			if rng.IntN(4) == 0 {
				ls[i].grid[r] = maxGrid
			}
		}
	}
	return ls
}

// runCreditModel runs the protocol over `seeds` random schedules and launch sequences
// (seeds 0, 1, 2, ...) and returns the first error.
func runCreditModel(p creditProtocol, reduce bool, nranks, launches, seeds int) error {
	for seed := range uint64(seeds) {
		if err := runCreditModelFrom(p, reduce, nranks, launches, seed); err != nil {
			return err
		}
	}
	return nil
}

// runCreditModelFrom runs the protocol once, from one seed (which also picks how the root
// changes).
func runCreditModelFrom(p creditProtocol, reduce bool, nranks, launches int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	ls := modelLaunches(rng, launches, nranks, p.words, int(seed%3))
	if err := newCreditSim(p, reduce, nranks, ls, seed).run(); err != nil {
		return fmt.Errorf("seed %d: %w", seed, err)
	}
	return nil
}

// TestLLCreditProtocol: with the kernels' protocol, no packet is overwritten unread and no
// run stops, on 2, 3 and 8 ranks, broadcast and reduce, with the root fixed, changing every
// launch or drawn at random, and sizes and grids (different on each rank) changing between
// launches; with the kernels' constants, with few credit words so that grids often fill
// them, and with two slots.
func TestLLCreditProtocol(t *testing.T) {
	small := llProtocol
	small.words = 4
	two := small
	two.slots, two.lag = 2, 2
	for _, tt := range []struct {
		p                       creditProtocol
		nranks, launches, seeds int
	}{
		{small, 2, 40, 30},
		{small, 3, 40, 30},
		{small, 8, 30, 6},
		{two, 3, 40, 30},
		{llProtocol, 2, 12, 3},
		{llProtocol, 3, 10, 3},
	} {
		for _, reduce := range []bool{false, true} {
			if err := runCreditModel(tt.p, reduce, tt.nranks, tt.launches, tt.seeds); err != nil {
				t.Errorf("%+v, %d ranks, reduce %v: %v", tt.p, tt.nranks, reduce, err)
			}
		}
	}
}

// TestLLCreditModelCatches: the model finds the faults of broken variants: a writer that
// waits one launch too few, one that checks only the first credit word of a row (it misses
// a slow block), and blocks that credit only their own word (words left behind when the
// grid shrinks are never updated, so a writer waits forever).
func TestLLCreditModelCatches(t *testing.T) {
	base := llProtocol
	base.words = 4
	lax, first, own := base, base, base
	lax.lag = base.slots + 1
	first.checkAll = false
	own.spread = false
	for _, tt := range []struct {
		name string
		p    creditProtocol
		want string
	}{
		{"lag slots+1", lax, "overwrote"},
		{"word 0 only", first, "overwrote"},
		{"own word only", own, "deadlock"},
	} {
		for _, reduce := range []bool{false, true} {
			err := runCreditModel(tt.p, reduce, 3, 40, 30)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s, reduce %v: model error %v, want one with %q", tt.name, reduce, err, tt.want)
			}
		}
	}
}
