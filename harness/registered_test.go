package harness

// The harness's tests run the registered collectives.
import _ "github.com/mscclpp-bench/mscclpp-bench/collectives/all"
