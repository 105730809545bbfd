package gitscan

import (
	"encoding/binary"
	"errors"
	"os"
)

// hasGitlinks reports whether the index file at p holds a submodule's
// entry (mode 160000), reading it as git would with hashSize-byte object
// ids (20: SHA-1, 32: SHA-256). An index it cannot walk (another
// version, a split index whose entries live in a shared file, anything
// malformed) answers true: the caller then takes the way that is safe
// with submodules. git add -A runs git status inside every checked-out
// submodule, with the submodule's own configuration's drivers, which the
// runner has not read; git update-index of listed paths does not.
func hasGitlinks(p string, hashSize int) bool {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return false // no index yet: nothing in it
	}
	if err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return true
	}
	version := binary.BigEndian.Uint32(b[4:8])
	count := binary.BigEndian.Uint32(b[8:12])
	if version < 2 || version > 4 {
		return true
	}
	// Per entry: ctime, mtime (8 each), dev, ino, mode, uid, gid, size
	// (4 each), the object id, 2 bytes of flags.
	fixed := 40 + hashSize + 2
	off := 12
	for range count {
		if off+fixed > len(b) {
			return true
		}
		start := off
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		if mode>>12 == 0o16 { // S_IFGITLINK
			return true
		}
		flags := binary.BigEndian.Uint16(b[off+fixed-2 : off+fixed])
		off += fixed
		if flags&0x4000 != 0 { // extended flags (version 3 and up)
			if version < 3 || off+2 > len(b) {
				return true
			}
			off += 2
		}
		if version == 4 {
			// The name: a varint (bytes of the previous name to strip),
			// then its rest ended by a NUL; no padding.
			for {
				if off >= len(b) {
					return true
				}
				c := b[off]
				off++
				if c&0x80 == 0 {
					break
				}
			}
			for off < len(b) && b[off] != 0 {
				off++
			}
			if off >= len(b) {
				return true
			}
			off++
			continue
		}
		// The name ended by one to eight NULs, the entry a multiple of 8.
		n := off
		for n < len(b) && b[n] != 0 {
			n++
		}
		off = start + (n-start+8)&^7
		if off > len(b) {
			return true
		}
	}
	// Extensions, each a signature and a size, up to the checksum: a
	// split index ("link") keeps entries in another file.
	for off+8 <= len(b)-hashSize {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if sig == "link" || size < 0 || off+8+size > len(b)-hashSize {
			return true
		}
		off += 8 + size
	}
	return off != len(b)-hashSize
}
