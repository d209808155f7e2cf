package portstaged

import (
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Stage is a hostput or railput of one mode that launches on buffers its caller names,
// for an algorithm that chains two collectives (allreduce's hostrsag and railrsag: a
// reduce-scatter, then an all-gather of its result).
type Stage struct{ a *hostStaged }

// NewHostStage sets mode's hostput up on env as a Stage (env's layout:
// collectives.SomeNetwork) whose launches carry rank-pair segments of at most segBytes:
// its host-resident slots are that large (a launch with a larger segment fails); 0 sizes
// them for mode's messages to algo.HostStagedMax, as NewHostStaged does.
func NewHostStage(env *collectives.Env, mode PortStagedMode, segBytes uint64) (*Stage, error) {
	return newStage(newHostStaged(env, mode, false, segBytes))
}

// NewRailStage sets mode's railput up on env as a Stage (env's layout: collectives.Rails).
func NewRailStage(env *collectives.Env, mode PortStagedMode) (*Stage, error) {
	return newStage(newHostRail(env, mode))
}

// newStage wraps a, closing what was set up of it when err is not nil.
func newStage(a *hostStaged, err error) (*Stage, error) {
	if err != nil {
		if a != nil {
			a.Close()
		}
		return nil, err
	}
	return &Stage{a: a}, nil
}

// LaunchOn enqueues the collective l describes with my input at in and my output at out.
func (s *Stage) LaunchOn(l *collectives.LaunchArgs, in, out device.Ptr, st device.Stream) error {
	return s.a.launchOn(l, in, out, st)
}

// Close releases the stage's buffers and channels.
func (s *Stage) Close() error { return s.a.Close() }
