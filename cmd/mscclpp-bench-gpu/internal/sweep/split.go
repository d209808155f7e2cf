package sweep

import (
	"fmt"
	"strconv"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// RunSplit runs the sweep as nccl-tests does under NCCL_TESTS_SPLIT_MASK or
// NCCL_TESTS_SPLIT: the job's ranks (r.Mesh's) form groups by rule, each group runs the
// collective on a mesh of its own ranks (newMesh, over a bootstrap.Group) at the same time
// as the others, and rank 0 prints its group's rows, with each rank's group in the device
// list's Group column and the times combined over every rank of the job.
func RunSplit(r Rank, rule cli.SplitRule, newMesh func(channels.Bootstrap) (*channels.Mesh, error)) error {
	world := r.Mesh.Boot
	all, err := world.AllGather([]byte(strconv.Itoa(rule.Group(world.Rank()))))
	if err != nil {
		return fmt.Errorf("%s: gather the ranks' groups: %w", rule.Env, err)
	}
	groups := make([]int, len(all))
	count := map[int]int{}
	for q, b := range all {
		if groups[q], err = strconv.Atoi(string(b)); err != nil {
			return fmt.Errorf("%s: rank %d sent group %q", rule.Env, q, b)
		}
		count[groups[q]]++
	}
	mine := groups[world.Rank()]
	var ranks []int
	for q, g := range groups {
		if g == mine {
			ranks = append(ranks, q)
		}
	}
	grp, err := bootstrap.NewGroup(world, ranks)
	if err != nil {
		return err
	}
	m, err := newMesh(grp)
	if err != nil {
		return fmt.Errorf("rank %d: mesh of its group %d (ranks %v): %w", world.Rank(), mine, ranks, err)
	}
	defer m.Close()
	header := r.Header
	r.Header = func(testName string) results.Header {
		h := header(testName)
		h.Devices = append([]results.Device(nil), h.Devices...)
		for i, d := range h.Devices {
			if d.Rank >= 0 && d.Rank < len(groups) {
				h.Devices[i].Group = groups[d.Rank]
			}
		}
		h.Notes = append(h.Notes, fmt.Sprintf("%s: %d groups of ranks run at once (the Group column); the rows are rank 0's group's (%d ranks), times combined over all %d ranks",
			rule.Env, len(count), count[groups[0]], len(groups)))
		return h
	}
	r.Mesh, r.Barrier, r.World = m, nil, world
	return Run(r)
}
