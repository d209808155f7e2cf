package ethernet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
)

// The Ethernet loopback harness: BenchmarkEthernetLoopback measures the Ethernet transport
// between two processes over loopback TCP, on stand-in GPUs whose copies run at once on
// the calling goroutine (prompt), so the figures are the transport's own costs (threads,
// wake-ups, sockets, copies through staging) without a GPU's copy latency. Rank 0 is the
// benchmark, rank 1 this test binary re-executed (TestEthernetBenchPeer) for each run.
//
//	go test ./channels/ethernet -run '^$' -bench EthernetLoopback
//
// CHANNELS_BENCH_SOCKETS sets the data sockets (default 4); CHANNELS_BENCH_SPIN (a Go
// duration, e.g. 200us) sets Options.Spin, as the GPU worker's default does; with
// CHANNELS_BENCH_BUSY=1 the proxy keeps its CPU while idle, as on a machine with CPUs to
// spare (by default it yields: this build machine may have fewer cores than the two ranks'
// spinning threads). With CHANNELS_BENCH_HOST=1 both ends of every put and the tokens are
// in host-resident memory (Mesh.ShareHost, HostTokens), as the host-resident algorithms'
// puts are: put/524288 is then the delivery of one rank's 512 KiB segment of a 1 MiB
// `hostput` launch with one rank a host, and bidir/524288 that of both ranks' segments at
// once, as the launch exchanges them. CHANNELS_BENCH_INLINE sets Options.Inline in
// bytes (both ranks share a host name here, so the default is MaxInline: such a put goes
// on the control socket; 262144 sends it in pieces over the data sockets, as the GPU
// worker does with one rank a host). BenchmarkTCPPingPong is the floor under the signal mode: 8-byte
// messages back and forth on one loopback socket, read as the control receiver reads.
//
// Modes (the sub-benchmark's name is mode/size):
//
//	signal  a signal and its answer; us/oneway is half the round trip
//	put     putWithSignal of size bytes and the same answer back; us/oneway likewise
//	stream  putWithSignal rounds one way, the receiver waiting for each; MB/s
//	bidir   both ranks stream at once; MB/s per direction
//
// Set-up, a warm-up round and the final check of the received bytes are outside the time.
func BenchmarkEthernetLoopback(b *testing.B) {
	cases := []struct {
		mode string
		size uint64
	}{
		{"signal", 0}, {"put", 8}, {"put", 4 << 10}, {"put", 64 << 10}, {"put", 256 << 10}, {"put", 512 << 10},
		{"put", 2 << 20}, {"stream", 1 << 20}, {"stream", 64 << 20}, {"bidir", 512 << 10}, {"bidir", 1 << 20},
		{"bidir", 64 << 20},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/%d", c.mode, c.size), func(b *testing.B) { benchLoopback(b, c.mode, c.size) })
	}
}

// benchPeerEnv carries rank 1's job: "mode size n root sockets".
const benchPeerEnv = "CHANNELS_TEST_ETH_BENCH_PEER"

// benchProcs is the worker's minimum of Go Ps (cmd/mscclpp-bench-gpu's minProcs): both
// ranks of the harness run with it.
const benchProcs = 4

func benchLoopback(b *testing.B, mode string, size uint64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(benchProcs, runtime.GOMAXPROCS(0))))
	sockets := 4
	if v := os.Getenv("CHANNELS_BENCH_SOCKETS"); v != "" {
		sockets, _ = strconv.Atoi(v)
	}
	root := fmt.Sprintf("127.0.0.1:%d", freePort(b, "127.0.0.1"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	peer := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestEthernetBenchPeer$", "-test.count=1")
	peer.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %s %d", benchPeerEnv, mode, size, b.N, root, sockets))
	var out strings.Builder
	peer.Stdout, peer.Stderr = &out, &out
	if err := peer.Start(); err != nil {
		b.Fatal(err)
	}
	lb, err := newLoopbackRank(0, root, size, sockets)
	if err == nil {
		err = lb.run(mode, size, 1) // warm-up: first touches of the buffers
	}
	if err != nil {
		peer.Wait()
		b.Fatalf("rank 0: %v\nrank 1:\n%s", err, out.String())
	}
	b.ResetTimer()
	err = lb.run(mode, size, b.N)
	b.StopTimer()
	if err == nil {
		err = lb.finish(mode, size)
	}
	if werr := peer.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("rank 1: %v", werr)
	}
	if err != nil {
		b.Fatalf("%v\nrank 1:\n%s", err, out.String())
	}
	switch mode {
	case "signal", "put":
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/2, "us/oneway")
	default:
		b.SetBytes(int64(size))
	}
}

// TestEthernetBenchPeer is not a test: it is rank 1 of BenchmarkEthernetLoopback.
func TestEthernetBenchPeer(t *testing.T) {
	spec := os.Getenv(benchPeerEnv)
	if spec == "" {
		t.Skip("rank 1 of BenchmarkEthernetLoopback")
	}
	runtime.GOMAXPROCS(max(benchProcs, runtime.GOMAXPROCS(0)))
	var mode, root string
	var size uint64
	var n, sockets int
	if _, err := fmt.Sscan(spec, &mode, &size, &n, &root, &sockets); err != nil {
		fmt.Fprintf(os.Stderr, "rank 1: bad %s %q: %v\n", benchPeerEnv, spec, err)
		os.Exit(1)
	}
	lb, err := newLoopbackRank(1, root, size, sockets)
	if err == nil {
		err = lb.run(mode, size, 1) // warm-up, as rank 0
		if err == nil {
			err = lb.run(mode, size, n)
		}
		if err == nil {
			err = lb.finish(mode, size)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank 1: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// loopbackRank is one rank of the harness.
type loopbackRank struct {
	s    *channelstest.Standin
	boot *bootstrap.TCPBootstrap
	port *channelstest.CPUPort
	rank int
}

func newLoopbackRank(rank int, root string, size uint64, sockets int) (*loopbackRank, error) {
	b, err := bootstrap.New(rank, 2, bootstrap.Options{Timeout: 20 * time.Second})
	if err != nil {
		return nil, err
	}
	if err := b.InitializeAddr(context.Background(), root, "ethernet-bench"); err != nil {
		return nil, err
	}
	s := &channelstest.Standin{G: channelstest.NewMemGPU(rank, channelstest.NewMemSpace()), Bytes: max(size, 64), Ports: map[int]*channelstest.CPUPort{}}
	s.G.Prompt = true
	host, _ := os.Hostname()
	spin, err := benchSpin()
	if err != nil {
		return nil, err
	}
	opts := channels.MeshOptions{Mode: Mode, Timeout: 20 * time.Second, Hostname: host,
		Proxy: affinity.Placement{Shared: os.Getenv("CHANNELS_BENCH_BUSY") != "1"}}
	var inline uint64
	if v := os.Getenv("CHANNELS_BENCH_INLINE"); v != "" {
		if inline, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, fmt.Errorf("CHANNELS_BENCH_INLINE: %w", err)
		}
	}
	opts.SetTransportOptions(Transport, Options{Sockets: sockets, Spin: spin, Inline: inline})
	if s.M, err = channels.NewMesh(s.G, b, opts); err != nil {
		b.Close()
		return nil, err
	}
	if os.Getenv("CHANNELS_BENCH_HOST") == "1" {
		err = setUpHost(s, rank)
	} else {
		err = s.SetUp(false)
	}
	if err != nil {
		s.M.Close()
		b.Close()
		return nil, err
	}
	port := s.Ports[1-rank]
	port.Spin = true
	src := s.G.Space.Bytes(s.Src, s.Bytes)
	for i := range src {
		src[i] = channelstest.Pattern(rank, 1-rank, 0, size, uint64(i))
	}
	return &loopbackRank{s: s, boot: b, port: port, rank: rank}, b.Barrier()
}

// benchSpin is CHANNELS_BENCH_SPIN, 0 when unset.
func benchSpin() (time.Duration, error) {
	v := os.Getenv("CHANNELS_BENCH_SPIN")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("CHANNELS_BENCH_SPIN: %w", err)
	}
	return d, nil
}

// BenchmarkTCPPingPong bounces 8 bytes between two ends in this process over loopback
// TCP, each read as the control socket's receiver reads (polling for CHANNELS_BENCH_SPIN,
// default 200us, then blocking); us/oneway is half a round trip. direct: one thread an
// end reads and answers on one connection. relay: as the transport does it, a receiver
// thread an end hands each message to a sender thread, which answers, on one connection
// used both ways (shared) or on one connection a direction (split).
func BenchmarkTCPPingPong(b *testing.B) {
	// Four threads spin in relay: each needs a P of its own.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(8, runtime.GOMAXPROCS(0))))
	spin, err := benchSpin()
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("CHANNELS_BENCH_SPIN") == "" {
		spin = 200 * time.Microsecond
	}
	pair := func(b *testing.B) (*ethSock, *ethSock) {
		x, y := sockPair(b)
		x.spin, y.spin = spin, spin
		return x, y
	}
	b.Run("direct", func(b *testing.B) {
		x, y := pair(b)
		pingPong(b, func(n int) error { return bounce(x, x, nil, true, n) }, func(n int) error { return bounce(y, y, nil, false, n) })
	})
	b.Run("relay-shared", func(b *testing.B) {
		x, y := pair(b)
		pingPong(b, func(n int) error { return relay(x, x, true, n) }, func(n int) error { return relay(y, y, false, n) })
	})
	b.Run("relay-split", func(b *testing.B) {
		x, y := pair(b) // x writes, y reads: end 0 to end 1
		u, v := pair(b) // u writes, v reads: end 1 to end 0
		pingPong(b, func(n int) error { return relay(v, x, true, n) }, func(n int) error { return relay(y, u, false, n) })
	})
}

// pingPong times end0 and end1 running b.N rounds side by side.
func pingPong(b *testing.B, end0, end1 func(n int) error) {
	done := make(chan error, 1)
	b.ResetTimer()
	go func() { done <- end1(b.N) }()
	err := end0(b.N)
	if perr := <-done; err == nil {
		err = perr
	}
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N)/2, "us/oneway")
}

// bounce is one end of a ping-pong on one thread: read from in, answer on out (the
// first end writes first). With got set, it waits for got to count each message instead
// of reading (relay's sender).
func bounce(in, out *ethSock, got *atomic.Int64, first bool, n int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var msg [8]byte
	recv := func(i int) error {
		if got == nil {
			return in.readFull(msg[:])
		}
		for got.Load() < int64(i+1) {
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if first {
			if err := out.writev(msg[:]); err != nil {
				return err
			}
		}
		if err := recv(i); err != nil {
			return err
		}
		if !first {
			if err := out.writev(msg[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// relay is one end of a ping-pong on two threads: a receiver reads from in and counts,
// a sender answers on out.
func relay(in, out *ethSock, first bool, n int) error {
	var got atomic.Int64
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var msg [8]byte
		for i := 0; i < n; i++ {
			if err := in.readFull(msg[:]); err != nil {
				got.Store(int64(n)) // let the sender finish
				done <- err
				return
			}
			got.Add(1)
		}
		done <- nil
	}()
	err := bounce(nil, out, &got, first, n)
	if rerr := <-done; err == nil {
		err = rerr
	}
	return err
}

// setUpHost is Standin.SetUp with both buffers host-resident and host tokens
// (CHANNELS_BENCH_HOST, and the control sender's tests).
func setUpHost(s *channelstest.Standin, rank int) error {
	dst, err := s.M.ShareHost(s.Bytes)
	if err != nil {
		return err
	}
	s.DstAll, s.Dst = dst, dst.Ptrs[rank]
	src, err := s.M.ShareHost(s.Bytes)
	if err != nil {
		return err
	}
	s.Src = src.Ptrs[rank]
	return s.ConnectPorts(channels.HostTokens)
}

// run does n rounds of mode.
func (l *loopbackRank) run(mode string, size uint64, n int) error {
	p := l.port
	send := func() error {
		if mode == "signal" {
			_, err := p.Push(channels.TriggerFlag, 0, 0, 0)
			return err
		}
		return p.PutWithSignal(0, 0, size)
	}
	switch mode {
	case "signal", "put":
		for i := 0; i < n; i++ {
			if l.rank == 0 {
				if err := send(); err != nil {
					return err
				}
			}
			if err := p.Wait(); err != nil {
				return err
			}
			if l.rank == 1 {
				if err := send(); err != nil {
					return err
				}
			}
		}
		return nil
	case "stream", "bidir":
		sends, recvs := l.rank == 0 || mode == "bidir", l.rank == 1 || mode == "bidir"
		for i := 0; i < n; i++ {
			if sends {
				if err := send(); err != nil {
					return err
				}
			}
			if recvs {
				if err := p.Wait(); err != nil {
					return err
				}
			}
		}
		// The time covers delivery: a last signal each way.
		if _, err := p.Push(channels.TriggerFlag, 0, 0, 0); err != nil {
			return err
		}
		return p.Wait()
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// finish checks the bytes this rank received (when it received any), flushes and closes.
func (l *loopbackRank) finish(mode string, size uint64) error {
	err := l.port.Flush()
	received := mode == "put" || mode == "bidir" || mode == "stream" && l.rank == 1
	if err == nil && received {
		dst := l.s.G.Space.Bytes(l.s.Dst, size)
		for i := range dst {
			if want := channelstest.Pattern(1-l.rank, l.rank, 0, size, uint64(i)); dst[i] != want {
				err = fmt.Errorf("byte %d is %#x, want %#x", i, dst[i], want)
				break
			}
		}
	}
	if berr := l.boot.Barrier(); berr != nil && err == nil {
		err = berr
	}
	if cerr := l.s.M.Close(); cerr != nil && err == nil {
		err = cerr
	}
	l.boot.Close()
	return err
}
