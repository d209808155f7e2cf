package bootstrap

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// UniqueIDSize is the size in bytes of a UniqueID.
const UniqueIDSize = 128

// UniqueID identifies one bootstrap session: the root's address and the
// job secret. Rank 0 creates it with CreateUniqueID and hands it to every
// other rank out of band (MPI broadcast, a file, ...).
//
// Layout (multi-byte integers are big-endian):
//
//	offset size  field
//	     0    4  magic "MBBT"
//	     4    1  version (1)
//	     5    3  reserved, zero
//	     8   16  root IP address (IPv6, or IPv4-mapped IPv6 for IPv4)
//	    24    2  root TCP port (non-zero)
//	    26    6  reserved, zero
//	    32   32  job secret (random; not all zero)
//	    64   64  reserved, zero
type UniqueID [UniqueIDSize]byte

const (
	idMagic   = "MBBT"
	idVersion = 1

	idOffVersion = 4
	idOffIP      = 8
	idOffPort    = 24
	idOffSecret  = 32
	idOffRsvd2   = 64
)

// errZeroID is returned for the all-zero ID, which is what a rank sees
// when the root failed before it could create an ID.
var errZeroID = errors.New("invalid unique ID: all zero (was it created and broadcast?)")

// newUniqueID encodes a root address and secret. It validates the same
// invariants Decode checks.
func newUniqueID(addr netip.AddrPort, secret [32]byte) (UniqueID, error) {
	var id UniqueID
	if err := checkRootAddr(addr); err != nil {
		return id, fmt.Errorf("cannot encode unique ID: %w", err)
	}
	if secret == ([32]byte{}) {
		return id, errors.New("cannot encode unique ID: secret is all zero")
	}
	copy(id[:4], idMagic)
	id[idOffVersion] = idVersion
	ip16 := addr.Addr().As16()
	copy(id[idOffIP:idOffIP+16], ip16[:])
	binary.BigEndian.PutUint16(id[idOffPort:], addr.Port())
	copy(id[idOffSecret:idOffSecret+32], secret[:])
	return id, nil
}

// Decode validates the ID and returns the root address and the job secret.
// It fails on a wrong magic or version, non-zero reserved bytes, a zero
// port, an unspecified or multicast IP, or an all-zero secret.
func (id UniqueID) Decode() (addr netip.AddrPort, secret [32]byte, err error) {
	addr, secret, err = id.decode()
	if err != nil {
		return netip.AddrPort{}, [32]byte{}, fmt.Errorf("bootstrap: %w", err)
	}
	return addr, secret, nil
}

// decode is Decode with errors not prefixed by "bootstrap: ".
func (id UniqueID) decode() (addr netip.AddrPort, secret [32]byte, err error) {
	if id == (UniqueID{}) {
		return addr, secret, errZeroID
	}
	if string(id[:4]) != idMagic {
		return addr, secret, fmt.Errorf("invalid unique ID: bad magic %x (not a bootstrap ID?)", id[:4])
	}
	if v := id[idOffVersion]; v != idVersion {
		return addr, secret, fmt.Errorf("invalid unique ID: unsupported version %d (want %d)", v, idVersion)
	}
	for _, r := range [][2]int{{5, idOffIP}, {idOffPort + 2, idOffSecret}, {idOffRsvd2, UniqueIDSize}} {
		for i := r[0]; i < r[1]; i++ {
			if id[i] != 0 {
				return addr, secret, fmt.Errorf("invalid unique ID: reserved byte %d is %#02x, want 0", i, id[i])
			}
		}
	}
	var ip16 [16]byte
	copy(ip16[:], id[idOffIP:idOffIP+16])
	addr = netip.AddrPortFrom(netip.AddrFrom16(ip16).Unmap(), binary.BigEndian.Uint16(id[idOffPort:]))
	if err := checkRootAddr(addr); err != nil {
		return netip.AddrPort{}, secret, fmt.Errorf("invalid unique ID: %w", err)
	}
	copy(secret[:], id[idOffSecret:idOffSecret+32])
	if secret == ([32]byte{}) {
		return netip.AddrPort{}, [32]byte{}, errors.New("invalid unique ID: secret is all zero")
	}
	return addr, secret, nil
}

// String describes the ID (root address and version) without the secret.
func (id UniqueID) String() string {
	addr, _, err := id.decode()
	if err != nil {
		return fmt.Sprintf("bootstrap.UniqueID{%v}", err)
	}
	return fmt.Sprintf("bootstrap.UniqueID{v%d root=%s}", idVersion, addr)
}

// GoString is like String, so that %#v does not print the secret either.
func (id UniqueID) GoString() string { return id.String() }

// checkRootAddr checks that addr is something a rank can connect to.
func checkRootAddr(addr netip.AddrPort) error {
	ip := addr.Addr()
	switch {
	case !ip.IsValid():
		return errors.New("root IP is missing")
	case ip.IsUnspecified():
		return fmt.Errorf("root IP %s is unspecified", ip)
	case ip.IsMulticast():
		return fmt.Errorf("root IP %s is multicast", ip)
	case ip.Zone() != "":
		return fmt.Errorf("root IP %s has a zone; IPv6 zones are not supported", ip)
	case addr.Port() == 0:
		return errors.New("root port is 0")
	}
	return nil
}

// newSecret returns 32 random bytes.
func newSecret() ([32]byte, error) {
	var s [32]byte
	if _, err := rand.Read(s[:]); err != nil {
		return s, fmt.Errorf("reading random secret: %w", err)
	}
	return s, nil
}

// deriveSecret turns a user-provided string into a job secret. It is a plain
// hash: it only keeps jobs apart and gives no security.
func deriveSecret(s string) [32]byte {
	return sha256.Sum256([]byte("mscclpp-bench/bootstrap/v1\x00" + s))
}
