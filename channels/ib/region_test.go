package ib

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestRemoteRegion: a peer's section gives the address and key; a section of the wrong
// length, or an address that size bytes would carry past 2^64, is refused.
func TestRemoteRegion(t *testing.T) {
	section := func(addr uint64, key uint32) []byte {
		b := make([]byte, ibSectionSize)
		binary.LittleEndian.PutUint64(b, addr)
		binary.LittleEndian.PutUint32(b[8:], key)
		return b
	}
	w := &ibNetwork{}
	for _, tc := range []struct {
		name    string
		section []byte
		size    uint64
		wantErr string
	}{
		{"ok", section(0x7f0000001000, 42), 1 << 20, ""},
		{"ends at the top", section(^uint64(0)-(1<<20), 1), 1 << 20, ""},
		{"short", section(0x1000, 1)[:11], 16, "section of 11 bytes"},
		{"overflows", section(^uint64(0)-15, 1), 32, "overflows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := w.RemoteRegion(tc.section, tc.size)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("RemoteRegion = %+v, %v; want an error with %q", r, err, tc.wantErr)
				}
				return
			}
			if err != nil || uint64(r.Base) != binary.LittleEndian.Uint64(tc.section) || r.Key != binary.LittleEndian.Uint32(tc.section[8:]) {
				t.Fatalf("RemoteRegion = %+v, %v; want the section's address and key", r, err)
			}
		})
	}
}
