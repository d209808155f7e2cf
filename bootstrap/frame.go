package bootstrap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"unicode/utf8"
)

// MaxMessageSize is the largest payload one Send (or one AllGather
// contribution) may carry.
const MaxMessageSize = 64 << 20

// MaxRanks is the largest nranks New accepts.
const MaxRanks = 1 << 16

// Frame header, 16 bytes, big-endian:
//
//	offset size  field
//	     0    2  magic "MB"
//	     2    1  version (1)
//	     3    1  frame type
//	     4    8  tag (signed)
//	    12    4  payload length
const (
	frameHeaderSize = 16
	frameVersion    = 1
	frameMagic0     = 'M'
	frameMagic1     = 'B'
	// maxFrameSize bounds any payload read from an established peer: a
	// message plus the collective header.
	maxFrameSize = MaxMessageSize + collHeaderSize
	// maxHandshakeFrame bounds the first frame of an unauthenticated
	// connection (hello or reject), so a stranger cannot make us allocate.
	maxHandshakeFrame = 4096
	// maxRejectText bounds the reason carried by a reject frame.
	maxRejectText = 1024
)

// frameType identifies what a frame carries.
type frameType uint8

const (
	frameHello     frameType = 1 // rank -> root registration (hello payload)
	frameTable     frameType = 2 // root -> rank address table
	frameReject    frameType = 3 // refusal; payload is a UTF-8 reason
	framePeerHello frameType = 4 // rank <-> rank handshake (hello payload)
	frameData      frameType = 5 // user message; tag is the user's tag
	frameColl      frameType = 6 // collective step; tag is the sequence number
	frameBye       frameType = 7 // orderly close; empty
)

func (t frameType) String() string {
	switch t {
	case frameHello:
		return "hello"
	case frameTable:
		return "table"
	case frameReject:
		return "reject"
	case framePeerHello:
		return "peer-hello"
	case frameData:
		return "data"
	case frameColl:
		return "coll"
	case frameBye:
		return "bye"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// frame is one decoded frame.
type frame struct {
	typ     frameType
	tag     int64
	payload []byte
}

// encodeHeader returns the header for a frame.
func encodeHeader(typ frameType, tag int64, n int) [frameHeaderSize]byte {
	var h [frameHeaderSize]byte
	h[0], h[1], h[2], h[3] = frameMagic0, frameMagic1, frameVersion, byte(typ)
	binary.BigEndian.PutUint64(h[4:], uint64(tag))
	binary.BigEndian.PutUint32(h[12:], uint32(n))
	return h
}

// decodeHeader validates a header and returns type, tag and payload length.
func decodeHeader(h []byte, maxLen int) (frameType, int64, int, error) {
	if len(h) < frameHeaderSize {
		return 0, 0, 0, fmt.Errorf("short frame header (%d bytes)", len(h))
	}
	if h[0] != frameMagic0 || h[1] != frameMagic1 {
		return 0, 0, 0, fmt.Errorf("bad frame magic %x (not a bootstrap peer?)", h[:2])
	}
	if h[2] != frameVersion {
		return 0, 0, 0, fmt.Errorf("unsupported frame version %d (want %d)", h[2], frameVersion)
	}
	typ := frameType(h[3])
	if typ < frameHello || typ > frameBye {
		return 0, 0, 0, fmt.Errorf("unknown frame type %d", h[3])
	}
	tag := int64(binary.BigEndian.Uint64(h[4:]))
	n := binary.BigEndian.Uint32(h[12:])
	if uint64(n) > uint64(maxLen) {
		return 0, 0, 0, fmt.Errorf("%s frame of %d bytes exceeds the limit of %d", typ, n, maxLen)
	}
	if tag != 0 && typ != frameData && typ != frameColl {
		return 0, 0, 0, fmt.Errorf("%s frame with non-zero tag %d", typ, tag)
	}
	if typ == frameBye && n != 0 {
		return 0, 0, 0, fmt.Errorf("bye frame with %d payload bytes", n)
	}
	return typ, tag, int(n), nil
}

// readFrame reads one frame of at most maxLen payload bytes. It reads
// exactly the frame's bytes, never more.
func readFrame(r io.Reader, maxLen int) (frame, error) {
	var h [frameHeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	typ, tag, n, err := decodeHeader(h[:], maxLen)
	if err != nil {
		return frame{}, err
	}
	f := frame{typ: typ, tag: tag, payload: make([]byte, n)}
	if _, err := io.ReadFull(r, f.payload); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, fmt.Errorf("reading %d-byte %s payload: %w", n, typ, err)
	}
	return f, nil
}

// writeFrame writes one frame with a single writev where possible.
func writeFrame(w io.Writer, typ frameType, tag int64, payload []byte) error {
	h := encodeHeader(typ, tag, len(payload))
	if len(payload) == 0 {
		_, err := w.Write(h[:])
		return err
	}
	bufs := net.Buffers{h[:], payload}
	_, err := bufs.WriteTo(w)
	return err
}

// appendFrame appends an encoded frame to dst (used by tests and fuzzers).
func appendFrame(dst []byte, typ frameType, tag int64, payload []byte) []byte {
	h := encodeHeader(typ, tag, len(payload))
	return append(append(dst, h[:]...), payload...)
}

// Hello payload, used by both frameHello and framePeerHello, 72 bytes:
//
//	offset size  field
//	     0    4  magic "MBHL"
//	     4    1  version (1)
//	     5    3  reserved, zero
//	     8   32  job secret
//	    40    4  sender rank
//	    44    4  nranks
//	    48   16  sender's listen IP (IPv6 or IPv4-mapped)
//	    64    2  sender's listen port
//	    66    6  reserved, zero
const (
	helloSize    = 72
	helloMagic   = "MBHL"
	helloVersion = 1
)

// hello is a decoded hello payload.
type hello struct {
	secret [32]byte
	rank   int
	nranks int
	listen netip.AddrPort
}

func encodeHello(h hello) []byte {
	b := make([]byte, helloSize)
	copy(b, helloMagic)
	b[4] = helloVersion
	copy(b[8:40], h.secret[:])
	binary.BigEndian.PutUint32(b[40:], uint32(h.rank))
	binary.BigEndian.PutUint32(b[44:], uint32(h.nranks))
	putAddr(b[48:66], h.listen)
	return b
}

func decodeHello(b []byte) (hello, error) {
	var h hello
	if len(b) != helloSize {
		return h, fmt.Errorf("hello is %d bytes, want %d", len(b), helloSize)
	}
	if string(b[:4]) != helloMagic {
		return h, fmt.Errorf("bad hello magic %x", b[:4])
	}
	if b[4] != helloVersion {
		return h, fmt.Errorf("unsupported hello version %d (want %d)", b[4], helloVersion)
	}
	if !allZero(b[5:8]) || !allZero(b[66:72]) {
		return h, errors.New("hello has non-zero reserved bytes")
	}
	copy(h.secret[:], b[8:40])
	rank := binary.BigEndian.Uint32(b[40:])
	nranks := binary.BigEndian.Uint32(b[44:])
	if nranks == 0 || nranks > MaxRanks {
		return h, fmt.Errorf("hello has nranks %d, want 1..%d", nranks, MaxRanks)
	}
	if rank >= nranks {
		return h, fmt.Errorf("hello has rank %d, not below nranks %d", rank, nranks)
	}
	h.rank, h.nranks = int(rank), int(nranks)
	addr, err := getAddr(b[48:66])
	if err != nil {
		return h, fmt.Errorf("hello listen address: %w", err)
	}
	h.listen = addr
	return h, nil
}

// Address table payload: nranks (4 bytes) then nranks 18-byte addresses
// (16-byte IP, 2-byte port).
const addrSize = 18

func encodeTable(addrs []netip.AddrPort) []byte {
	b := make([]byte, 4+addrSize*len(addrs))
	binary.BigEndian.PutUint32(b, uint32(len(addrs)))
	for i, a := range addrs {
		putAddr(b[4+addrSize*i:], a)
	}
	return b
}

func decodeTable(b []byte, nranks int) ([]netip.AddrPort, error) {
	if len(b) < 4 {
		return nil, errors.New("address table too short")
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) != uint64(nranks) {
		return nil, fmt.Errorf("address table has %d ranks, want %d", n, nranks)
	}
	if len(b) != 4+addrSize*nranks {
		return nil, fmt.Errorf("address table is %d bytes, want %d", len(b), 4+addrSize*nranks)
	}
	addrs := make([]netip.AddrPort, nranks)
	for i := range addrs {
		a, err := getAddr(b[4+addrSize*i : 4+addrSize*(i+1)])
		if err != nil {
			return nil, fmt.Errorf("address table entry %d: %w", i, err)
		}
		addrs[i] = a
	}
	return addrs, nil
}

// tableSize is the payload size of an address table for nranks ranks.
func tableSize(nranks int) int { return 4 + addrSize*nranks }

func putAddr(b []byte, a netip.AddrPort) {
	ip := a.Addr().As16()
	copy(b[:16], ip[:])
	binary.BigEndian.PutUint16(b[16:18], a.Port())
}

func getAddr(b []byte) (netip.AddrPort, error) {
	if len(b) < addrSize {
		return netip.AddrPort{}, errors.New("address too short")
	}
	var ip16 [16]byte
	copy(ip16[:], b[:16])
	a := netip.AddrPortFrom(netip.AddrFrom16(ip16).Unmap(), binary.BigEndian.Uint16(b[16:18]))
	if err := checkRootAddr(a); err != nil {
		return netip.AddrPort{}, err
	}
	return a, nil
}

// Reject payload: a UTF-8 reason of at most maxRejectText bytes.
func encodeReject(reason string) []byte {
	if len(reason) > maxRejectText {
		reason = reason[:maxRejectText]
	}
	return []byte(reason)
}

func decodeReject(b []byte) (string, error) {
	if len(b) > maxRejectText {
		return "", fmt.Errorf("reject reason of %d bytes exceeds %d", len(b), maxRejectText)
	}
	if !utf8.Valid(b) {
		return "", errors.New("reject reason is not UTF-8")
	}
	return string(b), nil
}

// Collective payload: kind (1 byte), step (4 bytes), then data.
const collHeaderSize = 5

// collKind names the collective a coll frame belongs to.
type collKind uint8

const (
	collAllGather collKind = 1
	collBarrier   collKind = 2
)

func (k collKind) String() string {
	switch k {
	case collAllGather:
		return "allgather"
	case collBarrier:
		return "barrier"
	}
	return fmt.Sprintf("collective(%d)", uint8(k))
}

func encodeColl(kind collKind, step int, data []byte) []byte {
	b := make([]byte, collHeaderSize+len(data))
	b[0] = byte(kind)
	binary.BigEndian.PutUint32(b[1:], uint32(step))
	copy(b[collHeaderSize:], data)
	return b
}

func decodeColl(b []byte) (collKind, int, []byte, error) {
	if len(b) < collHeaderSize {
		return 0, 0, nil, fmt.Errorf("collective message too short (%d bytes)", len(b))
	}
	return collKind(b[0]), int(binary.BigEndian.Uint32(b[1:])), b[collHeaderSize:], nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
