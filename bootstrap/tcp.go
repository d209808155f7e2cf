package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Errors that bootstrap errors wrap; test them with errors.Is.
var (
	// ErrTimeout: the operation did not complete within Options.Timeout.
	ErrTimeout = errors.New("timed out")
	// ErrClosed: the bootstrap was closed (or a failed Initialize closed it).
	ErrClosed = errors.New("bootstrap closed")
	// ErrPeerLost: the connection to a peer dropped without an orderly
	// close; the peer probably crashed.
	ErrPeerLost = errors.New("connection lost")
	// ErrPeerClosed: the peer closed its bootstrap.
	ErrPeerClosed = errors.New("peer closed its bootstrap")
)

// state is the lifecycle of a TCPBootstrap.
type state int

const (
	stateNew          state = iota
	stateListening          // rank 0 after CreateUniqueID
	stateInitializing       // inside Initialize
	stateReady              // Initialize succeeded
	stateClosed
)

// TCPBootstrap connects the ranks of one job over TCP. Create it with New,
// then call Initialize or InitializeAddr on every rank. Send, Recv and Rank
// may be called from several goroutines; the collectives (AllGather,
// Barrier, LocalRank) must be called by every rank in the same order and
// not concurrently with each other.
type TCPBootstrap struct {
	rank, nranks int
	timeout      time.Duration
	logf         func(format string, args ...any)

	// ctx is cancelled by Close; every internal wait watches it.
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
	wg        sync.WaitGroup // accept loop, handshakes, readers

	peers []*peer // one per rank (including self), fixed at New
	seq   atomic.Uint64

	mu         sync.Mutex // guards the fields below
	state      state
	secret     [32]byte
	created    bool // rank 0 created createdID
	createdID  UniqueID
	root       netip.AddrPort
	self       netip.AddrPort // own listener address
	ln         net.Listener
	reg        map[int]*registration // root: ranks registered during init
	regChanged chan struct{}         // closed and replaced on every registration
}

// New returns a bootstrap for rank (0 <= rank < nranks). It does no I/O.
func New(rank, nranks int, opts Options) (*TCPBootstrap, error) {
	if nranks < 1 || nranks > MaxRanks {
		return nil, fmt.Errorf("bootstrap: nranks %d out of range 1..%d", nranks, MaxRanks)
	}
	if rank < 0 || rank >= nranks {
		return nil, fmt.Errorf("bootstrap: rank %d out of range 0..%d", rank, nranks-1)
	}
	timeout, logf, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &TCPBootstrap{
		rank: rank, nranks: nranks, timeout: timeout, logf: logf,
		ctx: ctx, cancel: cancel,
		peers:      make([]*peer, nranks),
		reg:        map[int]*registration{},
		regChanged: make(chan struct{}),
	}
	for i := range b.peers {
		b.peers[i] = newPeer(i)
	}
	return b, nil
}

// Rank returns this process's rank.
func (b *TCPBootstrap) Rank() int { return b.rank }

// NRanks returns the number of ranks in the job.
func (b *TCPBootstrap) NRanks() int { return b.nranks }

// CreateUniqueID is called by rank 0 only. It opens the root listener at
// once (so the port cannot be taken between now and Initialize) and
// returns the ID that every rank passes to Initialize. addr may be:
//
//	""                   first IPv4 of the first up non-loopback interface
//	                     (127.0.0.1 if none), free port
//	":port"              that IP with the given port
//	"ip:port"            e.g. "10.0.0.1:5000", "[fd00::1]:5000"
//	"interface:port"     first IPv4 (else global IPv6) of the interface,
//	                     e.g. "eth0:0"; a non-interface name is resolved
//	                     as a host name
//	"interface:ip:port"  same as "ip:port" for rank 0
//
// Port 0 picks a free port.
func (b *TCPBootstrap) CreateUniqueID(addr string) (UniqueID, error) {
	if b.rank != 0 {
		return UniqueID{}, b.errorf("CreateUniqueID is for rank 0 only")
	}
	spec, err := parseAddrSpec(addr)
	if err != nil {
		return UniqueID{}, b.errorf("create unique ID: %w", err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.timeout)
	defer cancel()
	root, err := resolveRootForCreate(ctx, spec)
	if err != nil {
		return UniqueID{}, b.errorf("create unique ID: %w", err)
	}
	if err := checkRootAddr(netip.AddrPortFrom(root.Addr(), 1)); err != nil {
		return UniqueID{}, b.errorf("create unique ID from %q: %w; give an address other ranks can reach", addr, err)
	}
	secret, err := newSecret()
	if err != nil {
		return UniqueID{}, b.errorf("create unique ID: %w", err)
	}
	b.mu.Lock()
	switch {
	case b.state == stateClosed:
		b.mu.Unlock()
		return UniqueID{}, b.errorf("create unique ID: %w", ErrClosed)
	case b.state != stateNew:
		b.mu.Unlock()
		return UniqueID{}, b.errorf("create unique ID: already created or initialized")
	}
	b.secret = secret
	b.state = stateListening
	b.mu.Unlock()
	if err := b.listenRoot(root); err != nil {
		b.mu.Lock()
		if b.state == stateListening {
			b.state = stateNew
		}
		b.mu.Unlock()
		return UniqueID{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, err := newUniqueID(b.root, secret)
	if err != nil {
		return UniqueID{}, b.errorf("create unique ID: %w", err)
	}
	b.created, b.createdID = true, id
	return id, nil
}

// Initialize connects this rank to the job described by id. Every rank
// calls it; rank 0 must pass the ID it created (or, if it did not call
// CreateUniqueID, it listens on the ID's address). It returns once every
// rank has registered with the root and this rank holds the address table.
// The root waits up to the timeout for the other ranks and then rejects
// the waiting ranks with the list of missing ones; ranks other than 0 wait
// up to min(timeout/4, 1s) longer, to receive that verdict. On failure the
// bootstrap is closed.
func (b *TCPBootstrap) Initialize(ctx context.Context, id UniqueID) error {
	root, secret, err := id.decode()
	if err != nil {
		b.Close()
		return b.errorf("initialize: %w", err)
	}
	b.mu.Lock()
	mismatch := b.created && id != b.createdID
	b.mu.Unlock()
	if mismatch {
		b.Close()
		return b.errorf("initialize: rank 0 must use the unique ID it created (%s), got %s", b.createdID, id)
	}
	return b.initialize(ctx, root, secret, "")
}

// InitializeAddr connects this rank to the job whose root listens at addr,
// "[interface:]ip:port" or "[interface:]hostname:port" (the same string on
// every rank; the port must not be 0). Rank 0 listens there; the others
// connect to it. An interface, if given, is the local interface on which
// each rank opens its own listener (rank 0 ignores it).
//
// secret separates concurrent jobs: every rank must pass the same string;
// if it is empty, the secret is derived from the resolved root address.
// It is a plain hash, not authentication: anyone who can reach the root
// and guess the string can join. On failure the bootstrap is closed.
func (b *TCPBootstrap) InitializeAddr(ctx context.Context, addr, secret string) error {
	spec, err := parseAddrSpec(addr)
	if err != nil {
		b.Close()
		return b.errorf("initialize: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, b.timeout)
	root, err := resolveRootForInit(rctx, spec)
	cancel()
	if err != nil {
		b.Close()
		return b.errorf("initialize: %w", err)
	}
	b.mu.Lock()
	created := b.created
	b.mu.Unlock()
	if created {
		b.Close()
		return b.errorf("initialize: rank 0 created a unique ID; use Initialize with it")
	}
	if secret == "" {
		secret = root.String()
	}
	return b.initialize(ctx, root, deriveSecret(secret), spec.Iface)
}

// initialize runs the registration protocol (see the package doc).
func (b *TCPBootstrap) initialize(parent context.Context, root netip.AddrPort, secret [32]byte, iface string) error {
	b.mu.Lock()
	switch b.state {
	case stateClosed:
		b.mu.Unlock()
		return b.errorf("initialize: %w", ErrClosed)
	case stateInitializing, stateReady:
		b.mu.Unlock()
		return b.errorf("initialize: already initialized")
	}
	b.state = stateInitializing
	if b.ln == nil {
		// Otherwise rank 0 already listens with this root and secret
		// (Initialize checked the ID), and handshakes read the secret.
		b.root, b.secret = root, secret
	}
	b.mu.Unlock()

	// The root gives up after the timeout and tells the waiting ranks which
	// ranks are missing; the others wait a little longer so that they
	// receive that verdict instead of timing out at the same instant.
	limit := b.timeout
	if b.rank != 0 {
		limit += verdictGrace(b.timeout)
	}
	ctx, cancel := context.WithTimeout(parent, limit)
	defer cancel()
	stop := context.AfterFunc(b.ctx, cancel) // Close aborts Initialize
	defer stop()

	var err error
	if b.rank == 0 {
		err = b.initRoot(ctx, parent)
	} else {
		err = b.initRank(ctx, parent, iface, limit)
	}
	if err != nil {
		b.Close()
		return err
	}
	return nil
}

// verdictGrace is how much longer than the root a rank waits at init.
func verdictGrace(timeout time.Duration) time.Duration {
	return min(timeout/4, time.Second)
}

// waitErr explains why a context derived from parent, a time limit and
// Close is done.
func (b *TCPBootstrap) waitErr(parent context.Context, limit time.Duration) error {
	if b.ctx.Err() != nil {
		return ErrClosed
	}
	if err := parent.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%w after %s", ErrTimeout, limit)
}

// listenRoot opens rank 0's listener on the root address and starts
// accepting. With port 0 the chosen port becomes the root port.
func (b *TCPBootstrap) listenRoot(root netip.AddrPort) error {
	ln, err := net.Listen("tcp", root.String())
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return b.errorf("root address %s is already in use (another job, or a stale process holding the port?): %w", root, err)
		}
		return b.errorf("listen on root address %s: %w", root, err)
	}
	self := tcpAddrPort(ln.Addr())
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == stateClosed {
		ln.Close()
		return b.errorf("listen on root address %s: %w", root, ErrClosed)
	}
	b.ln, b.self, b.root = ln, self, self
	b.wg.Add(1)
	go b.acceptLoop(ln)
	return nil
}

// initRoot waits for the other ranks' hellos and sends them the table.
func (b *TCPBootstrap) initRoot(ctx, parent context.Context) error {
	b.mu.Lock()
	haveLn := b.ln != nil
	b.mu.Unlock()
	if !haveLn {
		if err := b.listenRoot(b.root); err != nil {
			return err
		}
	}
	for {
		b.mu.Lock()
		n, changed := len(b.reg), b.regChanged
		b.mu.Unlock()
		if n == b.nranks-1 {
			break
		}
		select {
		case <-changed:
			continue
		case <-ctx.Done():
		}
		werr := b.waitErr(parent, b.timeout)
		var msg string
		if errors.Is(werr, ErrTimeout) {
			msg = fmt.Sprintf("ranks %s did not connect within %s", formatRanks(b.missingRanks()), b.timeout)
		} else {
			msg = fmt.Sprintf("ranks %s had not connected: %v", formatRanks(b.missingRanks()), werr)
		}
		b.rejectRegistered(msg)
		return &wrapErr{msg: fmt.Sprintf("bootstrap: root %s: %s", b.root, msg), err: werr}
	}

	b.mu.Lock()
	regs := b.reg
	addrs := make([]netip.AddrPort, b.nranks)
	addrs[0] = b.self
	for r, reg := range regs {
		addrs[r] = reg.listen
	}
	b.mu.Unlock()

	table := encodeTable(addrs)
	deadline, _ := ctx.Deadline()
	for r := 1; r < b.nranks; r++ {
		c := regs[r].conn
		c.SetWriteDeadline(deadline)
		if err := writeFrame(c, frameTable, 0, table); err != nil {
			msg := fmt.Sprintf("sending the address table to rank %d (%s): %v", r, regs[r].remote, err)
			b.rejectRegistered(msg)
			return fmt.Errorf("bootstrap: root %s: %s", b.root, msg)
		}
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == stateClosed {
		return b.errorf("initialize: %w", ErrClosed)
	}
	b.setTableLocked(addrs)
	b.reg = nil
	for r, reg := range regs {
		b.addConnLocked(r, reg.conn, reg.listen)
	}
	return nil
}

// initRank registers with the root and waits for the address table.
func (b *TCPBootstrap) initRank(ctx, parent context.Context, iface string, limit time.Duration) error {
	dctx, dcancel := context.WithTimeout(ctx, b.timeout)
	c, err := b.dialRoot(dctx, parent)
	dcancel()
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var ip netip.Addr
	if iface != "" {
		if ip, err = interfaceIPByName(iface); err != nil {
			return b.errorf("initialize: %w", err)
		}
	} else {
		ip = tcpAddrPort(c.LocalAddr()).Addr()
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(ip, 0).String())
	if err != nil {
		return b.errorf("initialize: open listener on %s: %w", ip, err)
	}
	self := tcpAddrPort(ln.Addr())
	b.mu.Lock()
	if b.state == stateClosed {
		b.mu.Unlock()
		ln.Close()
		return b.errorf("initialize: %w", ErrClosed)
	}
	b.ln, b.self = ln, self
	b.wg.Add(1)
	go b.acceptLoop(ln)
	b.mu.Unlock()

	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	h := hello{secret: b.secret, rank: b.rank, nranks: b.nranks, listen: self}
	if err := writeFrame(c, frameHello, 0, encodeHello(h)); err != nil {
		return b.initIOErr(ctx, parent, limit, "sending hello to", err)
	}
	f, err := readFrame(c, max(maxHandshakeFrame, tableSize(b.nranks)))
	if err != nil {
		return b.initIOErr(ctx, parent, limit, "waiting for the address table from", err)
	}
	switch f.typ {
	case frameReject:
		reason, derr := decodeReject(f.payload)
		if derr != nil {
			reason = "(unreadable reason: " + derr.Error() + ")"
		}
		return b.errorf("initialize: rejected by root %s: %s", b.root, reason)
	case frameTable:
	default:
		return b.errorf("initialize: root %s: protocol error: expected the address table, got a %s frame", b.root, f.typ)
	}
	addrs, err := decodeTable(f.payload, b.nranks)
	if err != nil {
		return b.errorf("initialize: root %s: bad address table: %w", b.root, err)
	}
	if addrs[b.rank] != self {
		return b.errorf("initialize: root %s: address table lists %s for us, want %s", b.root, addrs[b.rank], self)
	}
	if !stop() {
		return b.errorf("initialize: %w", b.waitErr(parent, limit))
	}
	c.SetDeadline(time.Time{})

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == stateClosed {
		return b.errorf("initialize: %w", ErrClosed)
	}
	b.setTableLocked(addrs)
	b.addConnLocked(0, c, addrs[0])
	ok = true
	return nil
}

// initIOErr words an I/O error on the connection to the root.
func (b *TCPBootstrap) initIOErr(ctx, parent context.Context, limit time.Duration, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return b.errorf("initialize: %s root %s: %w", what, b.root, b.waitErr(parent, limit))
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return b.errorf("initialize: %s root %s: root closed the connection (it may have failed or belong to another job)", what, b.root)
	}
	return b.errorf("initialize: %s root %s: %w", what, b.root, err)
}

// dialRoot connects to the root, retrying until ctx is done: the root may
// not be listening yet.
func (b *TCPBootstrap) dialRoot(ctx, parent context.Context) (net.Conn, error) {
	var d net.Dialer
	backoff := 20 * time.Millisecond
	var lastErr error
	for {
		c, err := d.DialContext(ctx, "tcp", b.root.String())
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			break
		}
		lastErr = err
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
	if lastErr != nil {
		return nil, b.errorf("initialize: connect to root %s: %w (last error: %v)", b.root, b.waitErr(parent, b.timeout), lastErr)
	}
	return nil, b.errorf("initialize: connect to root %s: %w", b.root, b.waitErr(parent, b.timeout))
}

// setTableLocked records the address table and marks the bootstrap ready.
func (b *TCPBootstrap) setTableLocked(addrs []netip.AddrPort) {
	for i, a := range addrs {
		p := b.peers[i]
		p.mu.Lock()
		p.addr = a
		p.mu.Unlock()
	}
	b.state = stateReady
}

// Close shuts the bootstrap down: it says goodbye to every peer, waits
// briefly for them to acknowledge, closes all connections and the
// listener, and waits for its goroutines to exit. Pending and later calls
// fail with ErrClosed. Close is idempotent and always returns nil.
func (b *TCPBootstrap) Close() error {
	b.closeOnce.Do(b.close)
	b.wg.Wait()
	return nil
}

func (b *TCPBootstrap) close() {
	b.mu.Lock()
	b.state = stateClosed
	b.cancel()
	ln, regs := b.ln, b.reg
	b.reg = nil
	b.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for _, r := range regs {
		r.conn.Close()
	}

	var conns []*peerConn
	for _, p := range b.peers {
		p.mu.Lock()
		conns = append(conns, p.conns...)
		if p.err == nil {
			p.err = ErrClosed
		}
		p.notifyLocked()
		p.mu.Unlock()
	}
	grace := min(b.timeout, 2*time.Second)
	for _, pc := range conns {
		pc.shutdown(grace)
	}
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for _, pc := range conns {
		select {
		case <-pc.done:
		case <-gctx.Done():
		}
	}
	for _, pc := range conns {
		pc.c.Close()
	}
}

// errorf formats an error prefixed with "bootstrap: rank N: ".
func (b *TCPBootstrap) errorf(format string, args ...any) error {
	return fmt.Errorf("bootstrap: rank %d: "+format, append([]any{b.rank}, args...)...)
}

// wrapErr is an error with its own message that still matches err.
type wrapErr struct {
	msg string
	err error
}

func (e *wrapErr) Error() string { return e.msg }
func (e *wrapErr) Unwrap() error { return e.err }

// tcpAddrPort converts a net.Addr from a TCP socket.
func tcpAddrPort(a net.Addr) netip.AddrPort {
	if ta, ok := a.(*net.TCPAddr); ok {
		ap := ta.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}

// formatRanks prints a sorted rank list compactly: [1 3-5 9].
func formatRanks(ranks []int) string {
	const maxItems = 16
	out := "["
	items := 0
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if items == maxItems {
			out += fmt.Sprintf(" ... (%d ranks in all)", len(ranks))
			break
		}
		if items > 0 {
			out += " "
		}
		if j == i {
			out += fmt.Sprint(ranks[i])
		} else {
			out += fmt.Sprintf("%d-%d", ranks[i], ranks[j])
		}
		items++
		i = j + 1
	}
	return out + "]"
}
