package collectives

// Tuning holds algorithms' knobs, for experiments; zero fields keep each algorithm's
// default. The GPU worker fills it from the environment (collectives reads none).
type Tuning struct {
	BlockputPer uint64 // allgather blockput: gathered bytes per block (MSCCLPP_BENCH_BLOCKPUT_PER)
	BlockputMax int    // allgather blockput: most blocks (MSCCLPP_BENCH_BLOCKPUT_MAX)
}
