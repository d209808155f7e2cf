// The fatbins are linked only into cgo builds: the GPU worker, which links libcuda, is one;
// the front end, built with CGO_ENABLED=0, never loads a kernel and stays small.

//go:build cgo

package sendrecv

import (
	"embed"

	"github.com/mscclpp-bench/mscclpp-bench/kernels"
)

// fatbins are the compiled kernels of this folder's .cu files (built by `make` into
// fatbin/), handed to the kernel loader.
//
//go:embed fatbin
var fatbins embed.FS

func init() { kernels.Register("collectives/sendrecv", fatbins) }
