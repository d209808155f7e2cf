package allreduce

import (
	"errors"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// stagedRSAG is the instance of hostrsag and railrsag: the port-staged family's
// reduce-scatter into my chunk of the output, then its all-gather of that chunk, two
// launches on the stream; a count that does not split into equal chunks runs the family's
// one shot (whole).
type stagedRSAG struct {
	env    *collectives.Env
	rs, ag *portstaged.Stage
	whole  collectives.Instance
}

// newStagedRSAG sets the two stages up with stage (hostrsag's hostStage, railrsag's
// portstaged.NewRailStage) and the one shot with whole.
func newStagedRSAG(env *collectives.Env, stage func(*collectives.Env, portstaged.PortStagedMode) (*portstaged.Stage, error),
	whole func(*collectives.Env, portstaged.PortStagedMode) (collectives.Instance, error)) (collectives.Instance, error) {
	a := &stagedRSAG{env: env}
	var err error
	if a.rs, err = stage(env, portstaged.PSReduceScatter); err != nil {
		return nil, err
	}
	if a.ag, err = stage(env, portstaged.PSAllgather); err != nil {
		return nil, errors.Join(err, a.rs.Close())
	}
	if a.whole, err = whole(env, portstaged.PSAllreduce); err != nil {
		return nil, errors.Join(err, a.rs.Close(), a.ag.Close())
	}
	return a, nil
}

// Launch reduces my chunk of every rank's input into my chunk of my output, then gathers
// every rank's chunk into my output (in place: my chunk is its input).
func (a *stagedRSAG) Launch(l *collectives.LaunchArgs, s device.Stream) error {
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

func (a *stagedRSAG) Close() error {
	return errors.Join(a.rs.Close(), a.ag.Close(), a.whole.Close())
}
