package collectives

import (
	"fmt"
	"strings"
)

// UnalignBytes is the alignment the vector loads of an algorithm without AnyOffset need:
// with such an algorithm, -u may only move buffers by multiples of it.
const UnalignBytes = 16

// MaxTypeSize is the largest element size, the most bytes -u moves a buffer per element.
var MaxTypeSize = func() uint64 {
	n := 0
	for _, d := range Datatypes {
		n = max(n, d.Size)
	}
	return uint64(n)
}()

// UnalignOffset is how many bytes -u moves buffers of type dtype: unalign elements.
func UnalignOffset(unalign int, dt Datatype) int64 { return int64(unalign) * int64(dt.Size) }

// SupportsOffset says whether a handles buffers offBytes past their aligned start, and if
// not, why.
func (a *Algorithm) SupportsOffset(offBytes int64) error {
	if a.AnyOffset || offBytes%UnalignBytes == 0 {
		return nil
	}
	others := "none"
	if names := anyOffsetNames(a.Collective); len(names) > 0 {
		others = strings.Join(names, ", ")
	}
	return fmt.Errorf("%s %s needs buffers aligned to %d bytes, and -u puts them %d bytes off (algorithms that take any offset: %s)",
		a.Collective, a.Name, UnalignBytes, offBytes, others)
}

// anyOffsetNames lists the collective's algorithms that handle any offset.
func anyOffsetNames(collective string) []string {
	var names []string
	for _, a := range Algorithms(collective) {
		if a.AnyOffset {
			names = append(names, a.Name)
		}
	}
	return names
}

// CheckUnalign says, before any GPU work, whether -k k of collective handles buffers
// moved by -u unalign elements of each of datatypes: a named algorithm must; auto and all
// pick among those that do, so one of the collective's algorithms must.
func CheckUnalign(collective, k string, unalign int, datatypes []string) error {
	for _, name := range datatypes {
		dt, err := LookupDatatype(name)
		if err != nil {
			return err
		}
		off := UnalignOffset(unalign, dt)
		if k == "auto" || k == "all" {
			if off%UnalignBytes != 0 && len(anyOffsetNames(collective)) == 0 {
				return fmt.Errorf("no %s algorithm handles buffers %d bytes off %d-byte alignment (-u %d, %s)", collective, off, UnalignBytes, unalign, name)
			}
			continue
		}
		a, err := Find(collective, k)
		if err != nil {
			return err
		}
		if err := a.SupportsOffset(off); err != nil {
			return fmt.Errorf("-u %d with %s: %w", unalign, name, err)
		}
	}
	return nil
}
