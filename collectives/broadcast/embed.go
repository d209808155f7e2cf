package broadcast

import (
	"embed"

	"github.com/mscclpp-bench/mscclpp-bench/kernels"
)

// fatbins are the compiled kernels of this folder's .cu files (built by `make` into
// fatbin/), handed to the kernel loader.
//
//go:embed fatbin
var fatbins embed.FS

func init() { kernels.Register("collectives/broadcast", fatbins) }
