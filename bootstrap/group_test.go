package bootstrap_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// TestGroup: two groups of a 4-rank job ({0,2} and {1,3}, as two hosts) gather, barrier
// and exchange messages at once without seeing each other's messages.
func TestGroup(t *testing.T) {
	boots := bootstraptest.Loopback(t, 4, 10*time.Second)
	groups := [][]int{{0, 2}, {1, 3}}
	errs := bounded.Ranks(t, 4, 30*time.Second, func(r int) error {
		members := groups[r%2]
		g, err := bootstrap.NewGroup(boots[r], members)
		if err != nil {
			return err
		}
		if g.NRanks() != 2 || g.Parent(g.Rank()) != r {
			return fmt.Errorf("group rank %d of %d, parent %d", g.Rank(), g.NRanks(), g.Parent(g.Rank()))
		}
		for round := 0; round < 3; round++ {
			all, err := g.AllGather([]byte(fmt.Sprintf("r%d-%d", r, round)))
			if err != nil {
				return err
			}
			for i, b := range all {
				if want := fmt.Sprintf("r%d-%d", members[i], round); string(b) != want {
					return fmt.Errorf("round %d: slot %d = %q, want %q", round, i, b, want)
				}
			}
		}
		other := 1 - g.Rank()
		if err := g.Send(other, 7, []byte{byte(r)}); err != nil {
			return err
		}
		got, err := g.Recv(other, 7)
		if err != nil {
			return err
		}
		if len(got) != 1 || int(got[0]) != members[other] {
			return fmt.Errorf("got %v from group rank %d, want [%d]", got, other, members[other])
		}
		if err := g.Barrier(); err != nil {
			return err
		}
		// the parent still works on its own tags
		_, err = boots[r].AllGather([]byte{byte(r)})
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestNewGroupRefuses(t *testing.T) {
	boots := bootstraptest.Loopback(t, 3, 10*time.Second)
	for _, tt := range []struct {
		ranks []int
		want  string
	}{
		{[]int{1, 2}, "not a member"},
		{[]int{0, 0}, "ascending"},
		{[]int{0, 3}, "ascending"},
		{[]int{2, 0}, "ascending"},
	} {
		if _, err := bootstrap.NewGroup(boots[0], tt.ranks); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewGroup(%v) = %v, want an error saying %q", tt.ranks, err, tt.want)
		}
	}
	g, err := bootstrap.NewGroup(boots[0], []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Send(2, 0, nil); err == nil {
		t.Error("Send to a rank outside the group succeeded")
	}
}
