package collectives

import "fmt"

// CheckSweep says, before any GPU work, whether -k k of collective can run every size of
// sizes in every type of dtypes, from the limits the algorithms registered (sizes, types,
// rank counts). nranks 0 means the rank count is not known yet (the front end, before
// the job starts): rank limits are then left to the check with the count.
//
// A named algorithm must support every size and type. "auto" needs, for every size and
// type, an algorithm it may fall back to. "all" runs, at each size and type, whichever
// algorithms support it, so it is not refused.
func CheckSweep(collective, k string, sizes []int64, dtypes []string, nranks int) error {
	if len(sizes) == 0 || len(dtypes) == 0 || k == "all" {
		return nil
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	if k != "auto" {
		a, err := Find(collective, k)
		if err != nil {
			return err
		}
		for _, dt := range dtypes {
			if err := a.supportsType(dt); err != nil {
				return err
			}
		}
		for _, size := range []int64{lo, hi} {
			if err := a.supportsSize(size, nranks); err != nil {
				return err
			}
		}
		if nranks > 0 {
			return a.supportsRanks(nranks)
		}
		return nil
	}
	for _, dt := range dtypes {
		for _, size := range sizes {
			if !anySupports(collective, size, nranks, dt) {
				where := ""
				if nranks > 0 {
					where = fmt.Sprintf(" on %d ranks", nranks)
				}
				return fmt.Errorf("no %s algorithm supports %d bytes of %s%s", collective, size, dt, where)
			}
		}
	}
	return nil
}

// anySupports reports whether some algorithm of collective runs size bytes of dtype on
// nranks ranks (any rank count when nranks is 0).
func anySupports(collective string, size int64, nranks int, dtype string) bool {
	for _, a := range registry[collective] {
		if a.supportsSize(size, nranks) == nil && a.supportsType(dtype) == nil && (nranks == 0 || a.supportsRanks(nranks) == nil) {
			return true
		}
	}
	return false
}
