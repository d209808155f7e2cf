package allreduce

import (
	"errors"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// allreduce railrsag: a reduce-scatter and then an all-gather of its result, both the
// port-staged family's railput (collectives/family/portstaged, host_rail.go), two launches
// on the stream. The reduce-scatter sums a host's chunks for a rank on that host first and
// puts one partial per other host along the rail; the all-gather sends each reduced chunk
// once to each other host, forwarded there over NVLink. A rank's bytes on the network are
// then twice its chunk per other host, where railput's one shot sends its whole input: with
// 2 hosts of 2 ranks, half as many. A count that does not split into equal chunks runs
// railput's one shot.
func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "railrsag", Number: RailRSAGNumber, AnyOffset: true,
		Doc:      "reduce-scatter then all-gather along rails through host-resident buffers, each host's sum of a chunk once per rail; small messages",
		MinRanks: 4, Needs: collectives.Rails, MaxBytes: algo.HostStagedMax,
		New: NewAllreduceRailRSAG,
	})
}

// RailRSAGNumber is allreduce railrsag's number.
const RailRSAGNumber = 11

// allreduceRailRSAG is one rank's railrsag instance.
type allreduceRailRSAG struct {
	env    *collectives.Env
	rs, ag *portstaged.Stage
	whole  collectives.Instance // railput's one shot, for counts that do not split evenly
}

// NewAllreduceRailRSAG sets allreduce's railrsag algorithm up on env.
func NewAllreduceRailRSAG(env *collectives.Env) (collectives.Instance, error) {
	a := &allreduceRailRSAG{env: env}
	var err error
	if a.rs, err = portstaged.NewRailStage(env, portstaged.PSReduceScatter); err != nil {
		return nil, err
	}
	if a.ag, err = portstaged.NewRailStage(env, portstaged.PSAllgather); err != nil {
		return nil, errors.Join(err, a.rs.Close())
	}
	if a.whole, err = portstaged.NewHostRail(env, portstaged.PSAllreduce); err != nil {
		return nil, errors.Join(err, a.rs.Close(), a.ag.Close())
	}
	return a, nil
}

// Launch reduces my chunk of every rank's input into my chunk of my output, then gathers
// every rank's chunk into my output (in place: my chunk is its input).
func (a *allreduceRailRSAG) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.env
	n := int64(e.NRanks)
	if l.Count%n != 0 {
		return a.whole.Launch(l, s)
	}
	chunk := l.SendBytes / uint64(n)
	out := e.OutPtr(l, e.Rank)
	mine := out.Add(uint64(e.Rank) * chunk)
	rs := *l
	rs.RecvBytes = chunk
	if err := a.rs.LaunchOn(&rs, e.InPtr(l, e.Rank), mine, s); err != nil {
		return err
	}
	ag := *l
	ag.SendBytes = chunk
	return a.ag.LaunchOn(&ag, mine, out, s)
}

func (a *allreduceRailRSAG) Close() error {
	return errors.Join(a.rs.Close(), a.ag.Close(), a.whole.Close())
}
