package presence

import "math/bits"

// sip13 is SipHash-1-3 (one compression round a block, three
// finalization rounds) as a streaming hasher: what Rust's std
// DefaultHasher is today (DefaultHasher::new() is SipHasher13 with both
// keys zero), and so what m1nd's stable_presence_id hashes with. No
// maintained Go module implements the 1-3 variant with a streaming
// writer (github.com/dchest/siphash is 2-4 only), hence these few lines,
// after the SipHash paper (Aumasson and Bernstein, 2012), section 2.
// TestSip13Vectors holds it to vectors rustc's DefaultHasher printed, and
// TestIDAgainstRust to m1nd's id computed by rustc itself.
type sip13 struct {
	v0, v1, v2, v3 uint64
	tail           uint64 // the bytes of the unfinished block, little-endian
	ntail          uint   // how many
	length         uint64 // bytes written in all
}

func newSip13(k0, k1 uint64) sip13 {
	return sip13{
		v0: k0 ^ 0x736f6d6570736575, v1: k1 ^ 0x646f72616e646f6d,
		v2: k0 ^ 0x6c7967656e657261, v3: k1 ^ 0x7465646279746573,
	}
}

func (s *sip13) round() {
	s.v0 += s.v1
	s.v1 = bits.RotateLeft64(s.v1, 13) ^ s.v0
	s.v0 = bits.RotateLeft64(s.v0, 32)
	s.v2 += s.v3
	s.v3 = bits.RotateLeft64(s.v3, 16) ^ s.v2
	s.v0 += s.v3
	s.v3 = bits.RotateLeft64(s.v3, 21) ^ s.v0
	s.v2 += s.v1
	s.v1 = bits.RotateLeft64(s.v1, 17) ^ s.v2
	s.v2 = bits.RotateLeft64(s.v2, 32)
}

// block compresses one 8-byte block: c = 1 round.
func (s *sip13) block(m uint64) {
	s.v3 ^= m
	s.round()
	s.v0 ^= m
}

// writeByte appends one byte to the message.
func (s *sip13) writeByte(b byte) {
	s.tail |= uint64(b) << (8 * s.ntail)
	s.length++
	if s.ntail++; s.ntail == 8 {
		s.block(s.tail)
		s.tail, s.ntail = 0, 0
	}
}

// writeString appends the bytes of p to the message.
func (s *sip13) writeString(p string) {
	i := 0
	for ; i < len(p) && s.ntail != 0; i++ {
		s.writeByte(p[i])
	}
	for ; i+8 <= len(p); i += 8 {
		s.block(uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
			uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56)
		s.length += 8
	}
	for ; i < len(p); i++ {
		s.writeByte(p[i])
	}
}

// sum64 finishes the hash (d = 3 rounds) without changing s.
func (s sip13) sum64() uint64 {
	b := s.length<<56 | s.tail
	s.block(b)
	s.v2 ^= 0xff
	s.round()
	s.round()
	s.round()
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3
}
