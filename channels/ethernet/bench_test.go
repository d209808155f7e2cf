package ethernet

import (
	"runtime"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

// BenchmarkEthernetPut: one-way puts of 64 MiB over the Ethernet transport between two
// in-process ranks on stand-in GPUs (whose copies are memcpy), 4 sockets, 4 MiB pieces.
// On a small shared machine the figure is only a sanity check of the pipeline.
func BenchmarkEthernetPut(b *testing.B) {
	const size = 64 << 20
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // the Ethernet connections raise it
	bs := channelstest.NewBoots(b, 2)
	ranks := channelstest.NewStandins(b, channelstest.BootsOf(bs), size, false, func(r int) channels.MeshOptions {
		return meshOpts(Mode, "node", Options{Sockets: 4, Chunk: 4 << 20, Depth: 2})
	})
	send, recv := ranks[0].Ports[1], ranks[1].Ports[0]
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := send.PutWithSignal(0, 0, size); err != nil {
			b.Fatal(err)
		}
		if err := recv.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
