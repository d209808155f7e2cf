package collectivestest

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// MustLookup returns the registered collective name, failing t if there is none.
func MustLookup(t testing.TB, name string) collectives.Collective {
	t.Helper()
	c, err := collectives.Lookup(name)
	if err != nil {
		t.Fatalf("Lookup(%s): %v", name, err)
	}
	return c
}

// MustType returns the element type name, failing t if there is none.
func MustType(t testing.TB, name string) collectives.Datatype {
	t.Helper()
	dt, err := collectives.LookupDatatype(name)
	if err != nil {
		t.Fatalf("LookupDatatype(%s): %v", name, err)
	}
	return dt
}
