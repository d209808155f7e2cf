// Package bootstrap is the TCP control plane that the ranks of an
// mscclpp-bench job use to find each other and exchange small setup
// messages (memory handles, host names, ...) before any GPU traffic flows.
//
// It is pure Go (standard library only). A job of nranks processes uses it
// like this:
//
//	b, err := bootstrap.New(rank, nranks, bootstrap.Options{})
//	// rank 0:  id, err := b.CreateUniqueID("")  then broadcast id (e.g. via MPI)
//	err = b.Initialize(ctx, id)               // every rank
//	// or, without a side channel:  b.InitializeAddr(ctx, "10.0.0.1:5000", "")
//	all, err := b.AllGather(mine)
//	err = b.Barrier()
//	err = b.Send(peer, tag, data) / data, err := b.Recv(peer, tag)
//	b.Close()
//
// # Protocol
//
// Every rank owns one TCP listener. Rank 0's listener is the root: its
// address is the one carried by the UniqueID (or given to InitializeAddr).
//
//  1. Registration. Each rank r > 0 connects to the root and sends a hello
//     frame: magic, version, the 32-byte job secret, r, nranks and the
//     address of its own listener. The root checks the secret (in constant
//     time), rejects a rank it already has, rank 0, or a different nranks
//     (answering with a reject frame that carries the reason), and keeps the
//     connection open.
//  2. Address table. When all nranks-1 hellos have arrived, the root sends
//     every rank the table of all listener addresses. If they do not arrive
//     within the timeout, the root sends each waiting rank a reject frame
//     naming the missing ranks and fails with the same message.
//  3. Peer connections. The registration connection of rank r becomes the
//     r<->0 peer connection. Other pairs connect lazily, on first Send: the
//     dialer sends a peer-hello (same layout as the hello) and the acceptor
//     answers with its own, so both ends check secret, nranks and identity.
//     Connections are bidirectional; if two ranks dial each other at once
//     both connections are kept, each side always sends on the first one it
//     got (so per-peer ordering holds) and reads from all of them.
//  4. Messages. Every frame starts with a 16-byte header: magic "MB",
//     version, type, a signed 64-bit tag and a 32-bit payload length (at
//     most MaxMessageSize). User messages are type "data" with the user's
//     tag; collectives use type "coll" whose tag is a per-bootstrap sequence
//     number, so they never collide with user tags nor with each other.
//     Messages from one peer with one tag are delivered in order; the rest
//     are buffered until asked for.
//  5. Close. Close sends a "bye" frame on every connection and half-closes
//     it, so peers can tell an orderly exit from a crash. A peer counts as
//     closed once every connection to it has said bye (so nothing it sent
//     before is lost); a connection that drops without bye marks the peer
//     lost, its other connections (if any) get 200ms to deliver what is in
//     flight, and every pending and later Recv from it fails.
//
// A peer that dies is noticed only through a connection to it: rank 0 has
// one to every rank, and ranks that have exchanged messages have one. Recv
// from a dead peer with no connection fails after the timeout.
//
// AllGather is a ring (nranks-1 steps); Barrier is a dissemination barrier
// (ceil(log2 nranks) rounds). Both must be called by all ranks in the same
// order and not concurrently with another collective on the same bootstrap.
//
// Any connection that does not start with a valid hello (garbage, another
// program, or another job's secret) is refused, logged through
// Options.Logf with its remote address, and does not disturb the job.
//
// # Timeouts
//
// Every blocking operation is bounded by Options.Timeout (default 30s, or
// the MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT environment variable), and by the
// context where one is passed. Errors name the local rank, the peer rank and
// its address, and what was being waited for.
//
// # Security
//
// The secret only keeps concurrent jobs (or stray connections) apart; it is
// sent in clear text and the channel is neither encrypted nor authenticated.
// Run the bootstrap on a trusted network only.
package bootstrap
