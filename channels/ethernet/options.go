package ethernet

import (
	"net/netip"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// Options configure the Ethernet transport; a program sets them with
// channels.MeshOptions.SetTransportOptions(ethernet.Transport, opts). Zero fields take
// their defaults (the GPU worker fills them from MSCCLPP_BENCH_SOCKETS, _ETH_CHUNK,
// _ETH_DEPTH, _ETH_PIECES, _ETH_INLINE, _SOCKET_BUFFER, _ETH_SPIN and _SOCKET_IFNAME; the transport
// itself reads no environment).
type Options struct {
	// ListenIP is where this rank accepts data sockets. Zero: the first interface that
	// Ifname accepts, else the bootstrap's own address.
	ListenIP netip.Addr
	// Ifname picks the data sockets' interface in NCCL_SOCKET_IFNAME's syntax
	// (bootstrap.MatchInterface); "" for none.
	Ifname string
	// Sockets is the number of data connections per peer (default 12, at most 64), which
	// carry large writes; one more carries signals and small writes (at most MinChunk
	// bytes of GPU memory, or Inline bytes of host-resident memory: Mesh.ShareHost).
	Sockets int
	Chunk   uint64 // largest piece on a data socket, and size of a staging slot (default 4M)
	Depth   int    // staging slots per socket and direction (default 2, at most 64)
	// Pieces is how many pieces each data socket's share of a write is cut into, where
	// pieces stay at least half a chunk, so that copies out of GPU memory overlap the
	// socket within a write and not only between writes (default 4, at most 64).
	Pieces int
	// Inline is the largest write of host-resident memory (Mesh.ShareHost) that the
	// proxy sends on the control socket, straight from where it lies; larger ones are
	// cut into pieces for the data sockets (at most MaxInline; 0: AloneInline where the
	// rank is alone on its host, MaxInline where its host has other ranks).
	Inline uint64
	// SocketBuffer sets SO_SNDBUF and SO_RCVBUF; 0 leaves the kernel's autotuning, which
	// grows them up to net.ipv4.tcp_{w,r}mem.
	SocketBuffer int
	Copier       Copier // GPU↔host staging; nil: DeviceCopier of the mesh's GPU
	// CPUs pins the sender and receiver threads (affinity.Helpers); empty keeps the
	// rank's binding.
	CPUs affinity.Set
	// MachineCPUs is how many CPUs the sender and receiver threads of this machine's ranks
	// (SharedBy of them) run on, beside those that each rank's main thread and proxy keep
	// busy; 0: not known. Where it is known, the control sockets poll (Spin) only where
	// the polling threads of all those ranks fit it (Polls), and a write whose pieces
	// would be under SpreadPiece goes to at most Spread data sockets: each socket wakes a
	// sender thread here and a receiver thread at the peer, and threads woken beyond the
	// CPUs wait for one, as do the polling threads that a signal waits on.
	MachineCPUs int
	// SharedBy is how many ranks share MachineCPUs (the ranks of this machine); 0 is 1.
	SharedBy int
	// Spin is how long the control socket's receiver tries non-blocking receives for its
	// next message before it sleeps in read(2), and its sender thread polls its queue
	// before it sleeps (0: the receiver sleeps at once, and there is no sender thread: the
	// proxy writes the control socket itself). A sleeping thread is woken by the
	// kernel, which on a virtual machine whose idle CPU has halted costs microseconds per
	// message; polling keeps a receiver that gets signals every few microseconds awake.
	// Data sockets always sleep: their pieces are large, and there are several per peer.
	// Nor do the control socket's threads poll in the middle of large writes: the sender
	// sleeps at once after control messages that follow pieces dealt to the data sockets,
	// the receiver after a mark that waits for new ones (until the next mark), since their
	// next message comes only after the next write's pieces and polling would hold CPUs
	// that the data sockets' threads need. On one H200 with 16 vCPUs as 2 simulated hosts
	// of one rank, 1 MiB allgather launches took 134-149 us against 182-188 polling
	// throughout and alltoall 125-134 against 183; launches to 256 KiB, whose writes stay
	// on the control socket there, read within the rounds' spread (docs/performance.md,
	// "Control threads that sleep through large writes").
	Spin time.Duration
}

// Limits of the Ethernet options.
const (
	MinChunk   = 64 << 10 // a write is split over the sockets in pieces of at least this
	MaxChunk   = 1 << 30
	MaxSockets = 64
	MaxDepth   = 64
	MaxPieces  = 64
	MaxSpin    = time.Second
	MaxInline  = 512 << 10 // what a receiver takes on its control socket
)

// SpreadPiece is the piece size from which a write goes to every data socket whatever
// Spread says: pieces that large keep their threads busy long enough to pay for waking
// them. On one H200 with 16 vCPUs as 2 simulated hosts of one rank (12 CPUs left to both
// ranks' helper threads: Spread 4), a 1 MiB allgather launch (512 KiB writes, in 4
// pieces of 128 KiB instead of 8 of 64 KiB) took 168-197 us against 245, a 1 MiB
// reducescatter launch 131-157 against 224-231 (docs/performance.md, "Fewer data
// sockets for the middle sizes where CPUs are few").
const SpreadPiece = 256 << 10

// Polls says whether the control sockets of sharedBy ranks with peers connections each
// may poll (Options.Spin): their polling threads, a control sender and receiver a
// connection, fit machineCPUs CPUs (0: not known, yes). On one H200 with 16 vCPUs as 2
// simulated hosts of 2 ranks, each rank bound to all 16 and 8 of them busy with the
// ranks' main threads and proxies, 16 polling threads made 64 B - 16 KiB allgather,
// allreduce, alltoall and sendrecv launches take 75-274 us; none, 42-73 us
// (docs/performance.md, "Polling threads that outnumber the CPUs").
func Polls(machineCPUs, sharedBy, peers int) bool {
	return machineCPUs == 0 || 2*max(sharedBy, 1)*peers <= machineCPUs
}

// Spread is how many data sockets a write whose pieces would be under SpreadPiece goes to,
// on each of peers connections of one of sharedBy ranks whose threads share machineCPUs
// CPUs: the rank's share of the CPUs, less its polling threads (a control sender and
// receiver a connection, where poll), split over the connections; at least 1. 0 (every
// data socket) where machineCPUs is 0.
func Spread(machineCPUs, sharedBy, peers int, poll bool) int {
	if machineCPUs == 0 || peers == 0 {
		return 0
	}
	share := machineCPUs / max(sharedBy, 1)
	if poll {
		share -= 2 * peers
	}
	return max(1, share/peers)
}

// AloneInline is Options.Inline's default for a rank alone on its host; where its host has
// other ranks the default is MaxInline (inlineFor). On 2xH100 as 2 simulated hosts of one
// rank, 512 KiB writes (1 MiB alltoall, allgather, reducescatter, scatter, gather,
// hypercube) took 3-44 % less time in 8 pieces on the data sockets than in one on the
// control socket, three rounds each (256 KiB ones: neither path faster throughout); on 2 simulated
// hosts of 2 ranks, where each host's ranks send at once, the data sockets took more time
// in 11 of 16 pairs of rounds (4xH100, a GPU each) and 17 of 21 (one H100, four ranks
// under MPS); broadcast, where one rank sends, was the exception (docs/performance.md).
const AloneInline = 256 << 10

// Copier moves bytes between GPU memory and pinned host staging memory: the Ethernet
// transport sends GPU data through it. DeviceCopier implements it on a GPU; tests
// implement it with byte slices.
type Copier interface {
	// AllocStage returns n bytes of pinned host memory.
	AllocStage(n uint64) (Stage, error)
	FreeStage(s Stage) error
	// NewQueue returns an ordered queue of copies (a stream).
	NewQueue() (CopyQueue, error)
}

// Stage is staging memory: Host is how the CPU sees it, Dev how copies address it.
type Stage struct {
	Host []byte
	Dev  device.Ptr
}

// CopyQueue runs copies in the order they were queued, asynchronously.
type CopyQueue interface {
	// ToHost queues a copy of n bytes from GPU memory src into the stage.
	ToHost(dst Stage, src device.Ptr, n uint64) error
	// ToDevice queues a copy of the stage's first n bytes to GPU memory dst.
	ToDevice(dst device.Ptr, src Stage, n uint64) error
	// Store64 queues a 64-bit store of v at dst, after the work queued before it.
	Store64(dst device.Ptr, v uint64) error
	// Wait returns once everything queued has finished, or fails after timeout.
	Wait(timeout time.Duration) error
	Close() error
}
