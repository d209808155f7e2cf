package allreduce

import (
	"errors"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// stagedRSAG is the instance of hostrsag and railrsag: the port-staged family's
// reduce-scatter into my chunk of the output, then its all-gather of that chunk, two
// launches on the stream. A count that does not split into equal chunks runs the family's
// one shot (whole) to algo.HostStagedMax; above it (hostrsag's larger messages) the two
// launches take the count's largest multiple of the rank count and the one shot the
// elements left, fewer than the rank count.
type stagedRSAG struct {
	env           *collectives.Env
	rs, ag, whole *portstaged.Stage
}

// newStagedRSAG sets the two stages up with stage (hostrsag's hostStage, railrsag's
// portstaged.NewRailStage) and the one shot with whole, for messages to
// algo.HostStagedMax.
func newStagedRSAG(env *collectives.Env, stage, whole func(*collectives.Env, portstaged.PortStagedMode) (*portstaged.Stage, error)) (collectives.Instance, error) {
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
// every rank's chunk into my output (in place: my chunk is its input); elements left over
// by the chunks go through the one shot.
func (a *stagedRSAG) Launch(l *collectives.LaunchArgs, s device.Stream) error {
	e := a.env
	n := int64(e.NRanks)
	in, out := e.InPtr(l, e.Rank), e.OutPtr(l, e.Rank)
	left := l.Count % n
	if left != 0 && l.SendBytes <= algo.HostStagedMax {
		return a.whole.LaunchOn(l, in, out, s)
	}
	bytes := l.SendBytes
	if left != 0 {
		bytes -= uint64(left) * (l.SendBytes / uint64(l.Count))
	}
	chunk := bytes / uint64(n)
	mine := out.Add(uint64(e.Rank) * chunk)
	rs := *l
	rs.Count, rs.SendBytes, rs.RecvBytes = l.Count-left, bytes, chunk
	if err := a.rs.LaunchOn(&rs, in, mine, s); err != nil {
		return err
	}
	ag := rs
	ag.SendBytes, ag.RecvBytes = chunk, bytes
	if err := a.ag.LaunchOn(&ag, mine, out, s); err != nil || left == 0 {
		return err
	}
	tail := *l
	tail.Count, tail.SendBytes, tail.RecvBytes = left, l.SendBytes-bytes, l.SendBytes-bytes
	return a.whole.LaunchOn(&tail, in.Add(bytes), out.Add(bytes), s)
}

func (a *stagedRSAG) Close() error {
	return errors.Join(a.rs.Close(), a.ag.Close(), a.whole.Close())
}
