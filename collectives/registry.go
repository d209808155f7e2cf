package collectives

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Algorithm is one way to run a collective. Each algorithm file registers its own in an
// init function; nothing else needs to change to add one.
type Algorithm struct {
	Collective string // a registered collective's name, e.g. "allgather"
	Name       string // unique within the collective, used by -k
	Number     int    // unique within the collective, also accepted by -k
	Doc        string // one line for help and reports

	// MinBytes..MaxBytes are the message sizes (nccl-tests' "size" column) it handles;
	// MaxBytes 0 means no upper limit.
	MinBytes, MaxBytes int64
	// MaxBytesOn, when set, is the largest message on nranks ranks where that is less
	// than MaxBytes (an algorithm whose memory grows with the rank count; Largest).
	MaxBytesOn func(nranks int) int64

	MinRanks, MaxRanks int // MaxRanks 0 means no upper limit
	// Types lists the element types it supports (nil: every type).
	Types []string
	// Needs is what it needs of the job's layout (layout.go); the zero value, OneHost,
	// is memory channels to every peer.
	Needs Needs
	// AnyOffset says its kernels handle buffers at any element offset (nccl-tests' -u);
	// without it they need buffers aligned to UnalignBytes, and -u must keep them so.
	AnyOffset bool

	// Auto is the size range where -k auto picks this algorithm (AutoMax 0: no upper
	// limit). Among candidates, the lowest AutoPriority wins. Zero range: never automatic.
	AutoMin, AutoMax int64
	// AutoSizes, when set, gives that range on layout l in place of AutoMin and AutoMax,
	// for an algorithm whose measured crossovers differ by layout (AutoRange).
	AutoSizes    func(l Layout) (min, max int64)
	AutoPriority int
	// AutoOn, when set, limits -k auto to the layouts where it returns true (e.g. the
	// hierarchical algorithms, which run on one host too, are picked only across hosts).
	AutoOn func(Layout) bool
	// AutoOutOfPlace limits -k auto to out-of-place operations: in place, auto takes the
	// best other candidate (e.g. a copy-engine algorithm whose in-place form pays one more
	// copy than an SM algorithm's).
	AutoOutOfPlace bool
	// NotWithMPSNetwork, when set, says why the algorithm is refused on a layout whose
	// ranks share a GPU under MPS while pairs talk over a network (Layout.MPSNetwork):
	// -k of it is a usage error, auto and all leave it out.
	NotWithMPSNetwork string

	// New builds the algorithm's per-run state (channels, scratch) for buffers of up to
	// Env.MaxBytes. Nil only in tests.
	New func(env *Env) (Instance, error)
}

// registry holds every collective's algorithms, by number.
var registry = map[string][]*Algorithm{}

// Register adds an algorithm. It panics on a duplicate name or number: that is a
// programming error found by the first test run, never user input.
func Register(a *Algorithm) {
	for _, b := range registry[a.Collective] {
		if b.Name == a.Name || b.Number == a.Number {
			panic(fmt.Sprintf("collectives: %s algorithm %q (#%d) clashes with %q (#%d)", a.Collective, a.Name, a.Number, b.Name, b.Number))
		}
	}
	registry[a.Collective] = append(registry[a.Collective], a)
	sort.Slice(registry[a.Collective], func(i, j int) bool {
		return registry[a.Collective][i].Number < registry[a.Collective][j].Number
	})
}

// SetAlgorithms replaces collective's algorithms with algs (none: the collective has
// none) and returns those it had. It is for tests that register an algorithm of their own
// or take one away, and put the registry back when they finish.
func SetAlgorithms(collective string, algs []*Algorithm) []*Algorithm {
	old := registry[collective]
	if len(algs) == 0 {
		delete(registry, collective)
	} else {
		registry[collective] = algs
	}
	return old
}

// Algorithms lists a collective's algorithms by number.
func Algorithms(collective string) []*Algorithm { return registry[collective] }

// Supports says whether a can run size bytes of type dtype on nranks ranks, and if not, why.
func (a *Algorithm) Supports(size int64, nranks int, dtype string) error {
	if err := a.supportsSize(size, nranks); err != nil {
		return err
	}
	if err := a.supportsRanks(nranks); err != nil {
		return err
	}
	return a.supportsType(dtype)
}

// Largest is the largest message a handles on nranks ranks (0: no limit): MaxBytes, or
// MaxBytesOn's where that is less; nranks 0 (not known yet) gives MaxBytes.
func (a *Algorithm) Largest(nranks int) int64 {
	if a.MaxBytesOn != nil && nranks > 0 {
		if m := a.MaxBytesOn(nranks); a.MaxBytes == 0 || m < a.MaxBytes {
			return m
		}
	}
	return a.MaxBytes
}

// supportsSize says whether a handles a collective of size bytes on nranks ranks (0: any
// count), and if not, why.
func (a *Algorithm) supportsSize(size int64, nranks int) error {
	largest := a.Largest(nranks)
	if size < a.MinBytes || (largest > 0 && size > largest) {
		hi, on := "no limit", ""
		if largest > 0 {
			hi = strconv.FormatInt(largest, 10)
		}
		if largest != a.MaxBytes {
			on = fmt.Sprintf(" on %d ranks", nranks)
		}
		return fmt.Errorf("%s %s handles %d to %s bytes%s, not %d", a.Collective, a.Name, a.MinBytes, hi, on, size)
	}
	return nil
}

// supportsRanks says whether a runs on nranks ranks, and if not, why.
func (a *Algorithm) supportsRanks(nranks int) error {
	if nranks < a.MinRanks || (a.MaxRanks > 0 && nranks > a.MaxRanks) {
		hi := "any number of"
		if a.MaxRanks > 0 {
			hi = strconv.Itoa(a.MaxRanks)
		}
		return fmt.Errorf("%s %s does not run on %d ranks (it runs on %d to %s ranks)", a.Collective, a.Name, nranks, a.MinRanks, hi)
	}
	return nil
}

// supportsType says whether a supports element type dtype, and if not, why.
func (a *Algorithm) supportsType(dtype string) error {
	if a.Types != nil && !slices.Contains(a.Types, dtype) {
		return fmt.Errorf("%s %s does not support type %s (supports %s)", a.Collective, a.Name, dtype, strings.Join(a.Types, ", "))
	}
	return nil
}

// Find resolves a -k value that names one algorithm (a name or a number).
func Find(collective, k string) (*Algorithm, error) {
	algs := registry[collective]
	if len(algs) == 0 {
		return nil, fmt.Errorf("no algorithms are registered for %s", collective)
	}
	n, numErr := strconv.Atoi(k)
	for _, a := range algs {
		if a.Name == k || (numErr == nil && a.Number == n) {
			return a, nil
		}
	}
	var names []string
	for _, a := range algs {
		names = append(names, fmt.Sprintf("%s (%d)", a.Name, a.Number))
	}
	return nil, fmt.Errorf("unknown %s algorithm %q: want auto, all, or one of %s", collective, k, strings.Join(names, ", "))
}

// ValidKernel checks a -k value: auto, all, or one algorithm.
func ValidKernel(collective, k string) error {
	if k == "auto" || k == "all" {
		if len(registry[collective]) == 0 {
			return fmt.Errorf("no algorithms are registered for %s", collective)
		}
		return nil
	}
	_, err := Find(collective, k)
	return err
}

// Select is SelectIn for nranks ranks on one host.
func Select(collective, k string, size int64, nranks int, dtype string) ([]*Algorithm, error) {
	return SelectIn(collective, k, size, OneHostLayout(nranks), dtype)
}

// SelectIn returns the algorithms to run at one size on layout l, out of place: for "auto"
// the best candidate, for "all" every algorithm that supports the size and fits the layout,
// else the one named (an error if it does not support the size or fit the layout).
func SelectIn(collective, k string, size int64, l Layout, dtype string) ([]*Algorithm, error) {
	return SelectPlaced(collective, k, size, l, dtype, false)
}

// AutoRange is the size range where -k auto may pick a on layout l: AutoSizes(l) where
// set, else AutoMin and AutoMax (both 0: never automatic; max 0 otherwise: no upper limit).
func (a *Algorithm) AutoRange(l Layout) (min, max int64) {
	if a.AutoSizes != nil {
		return a.AutoSizes(l)
	}
	return a.AutoMin, a.AutoMax
}

// SelectPlaced is SelectIn for one placement: only "auto" depends on it (AutoOutOfPlace).
func SelectPlaced(collective, k string, size int64, l Layout, dtype string, inPlace bool) ([]*Algorithm, error) {
	return SelectAt(collective, k, size, l, dtype, inPlace, 0)
}

// SelectAt is SelectPlaced for buffers offBytes past their aligned start (-u): auto and
// all keep to the algorithms that handle the offset, and a named one that does not is an
// error saying so.
func SelectAt(collective, k string, size int64, l Layout, dtype string, inPlace bool, offBytes int64) ([]*Algorithm, error) {
	nranks := l.NRanks()
	switch k {
	case "auto":
		var best *Algorithm
		for _, a := range registry[collective] {
			lo, hi := a.AutoRange(l)
			if lo == 0 && hi == 0 || inPlace && a.AutoOutOfPlace {
				continue
			}
			if size < lo || (hi > 0 && size > hi) || (a.AutoOn != nil && !a.AutoOn(l)) || a.SupportsAt(size, l, dtype, offBytes) != nil {
				continue
			}
			if best == nil || a.AutoPriority < best.AutoPriority {
				best = a
			}
		}
		if best == nil {
			// fall back to anything that supports the size
			for _, a := range registry[collective] {
				if a.SupportsAt(size, l, dtype, offBytes) == nil {
					return []*Algorithm{a}, nil
				}
			}
			at := ""
			if offBytes%UnalignBytes != 0 {
				at = fmt.Sprintf(" at a %d-byte offset", offBytes)
			}
			return nil, fmt.Errorf("no %s algorithm supports %d bytes of %s%s on %d ranks (%v)", collective, size, dtype, at, nranks, l)
		}
		return []*Algorithm{best}, nil
	case "all":
		var out []*Algorithm
		for _, a := range registry[collective] {
			if a.SupportsAt(size, l, dtype, offBytes) == nil {
				out = append(out, a)
			}
		}
		return out, nil
	}
	a, err := Find(collective, k)
	if err != nil {
		return nil, err
	}
	if err := a.SupportsAt(size, l, dtype, offBytes); err != nil {
		return nil, err
	}
	return []*Algorithm{a}, nil
}
