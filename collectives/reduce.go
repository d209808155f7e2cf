package collectives

// reduce is the reduce collective: the root's output receives the reduction of every
// rank's input (-r); the other ranks' outputs are not checked, as in nccl-tests.
// Algorithms: reduce_*.go.
type reduce struct{}

func init() { RegisterCollective(reduce{}) }

func (reduce) Name() string     { return "reduce" }
func (reduce) TestName() string { return "reduce_perf" }
func (reduce) Doc() string {
	return "Reduce: the root receives the reduction of all ranks' buffers (-r)"
}
func (reduce) HasOp() bool   { return true }
func (reduce) HasRoot() bool { return true }

// Counts follows nccl-tests: the same as broadcast's.
func (reduce) Counts(size int64, dt Datatype, nranks int) Counts {
	return Broadcast{}.Counts(size, dt, nranks)
}

// Bandwidth: Param elements reach the root; bus factor 1.
func (reduce) Bandwidth(c Counts, eltSize int, sec float64, nranks int) (float64, float64) {
	return ScaledBw(c, eltSize, sec, 1, 1)
}

// InitData poisons the output, then fills the input with this rank's values (in place the
// fill replaces the poison, as the input is the output).
func (reduce) InitData(v *Verifier, a *LaunchArgs, seed uint32) error {
	if err := v.Poison(v.Env.OutPtr(a, v.Env.Rank), a.RecvBytes); err != nil {
		return err
	}
	return v.FillValues(v.Env.InPtr(a, v.Env.Rank), a.Type, a.Op, a.Count, seed)
}

// Check compares the root's output with the reduction; other ranks have nothing to check.
func (reduce) Check(v *Verifier, a *LaunchArgs, seed uint32) error {
	if v.Env.Rank != a.Root {
		return nil
	}
	return v.CheckValues(v.Env.OutPtr(a, v.Env.Rank), a.Type, a.Op, int64(a.RecvBytes)/int64(a.Type.Size), 0, seed)
}
