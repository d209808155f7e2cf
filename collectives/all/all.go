package all

// Every collective, registered by its package's init. A new collective's folder is added
// here, and nowhere else.
import (
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/alltoall"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/alltoallv"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/gather"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/hypercube"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/reduce"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/reducescatter"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/scatter"
	_ "github.com/mscclpp-bench/mscclpp-bench/collectives/sendrecv"
)
