package worker

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mscclpp-bench/mscclpp-bench/pingpong"
)

// putTuning fills ping-pong's put-kernel settings from MSCCLPP_BENCH_PUT_BLOCKS, _THREADS and
// _UNROLL (README), where they are set; the pingpong package reads no environment.
func putTuning(o *pingpong.Options) error {
	for _, v := range []struct {
		name string
		dst  *int
	}{
		{"MSCCLPP_BENCH_PUT_BLOCKS", &o.PutBlocks},
		{"MSCCLPP_BENCH_PUT_THREADS", &o.PutThreads},
		{"MSCCLPP_BENCH_PUT_UNROLL", &o.PutUnroll},
	} {
		s, ok := os.LookupEnv(v.name)
		if !ok || s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("%s=%q: want a positive integer", v.name, s)
		}
		*v.dst = n
	}
	return nil
}
