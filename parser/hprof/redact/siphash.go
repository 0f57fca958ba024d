package redact

import (
	"encoding/binary"
	"math/bits"
)

// sip128 is SipHash-2-4 with a 128-bit output (Aumasson and Bernstein's
// reference, vectors_sip128): a pseudo-random function under a 128-bit
// key, the keyed digest of the arrays and names replaced. It is written
// in pieces, as a hash.Hash is.
type sip128 struct {
	k0, k1         uint64
	v0, v1, v2, v3 uint64
	tail           [8]byte // the bytes written past the last whole word
	ntail          int
	n              uint64 // bytes written
}

// newSip128 returns the SipHash of the 16-byte key (little-endian words,
// as the reference reads it), reset.
func newSip128(key []byte) *sip128 {
	h := &sip128{k0: binary.LittleEndian.Uint64(key), k1: binary.LittleEndian.Uint64(key[8:])}
	h.reset()
	return h
}

// reset starts a new digest.
func (h *sip128) reset() {
	h.v0, h.v1 = h.k0^0x736f6d6570736575, h.k1^0x646f72616e646f6d^0xee
	h.v2, h.v3 = h.k0^0x6c7967656e657261, h.k1^0x7465646279746573
	h.ntail, h.n = 0, 0
}

// sipCompress runs the two compression rounds of SipHash-2-4 on the word m.
func sipCompress(v0, v1, v2, v3, m uint64) (uint64, uint64, uint64, uint64) {
	v3 ^= m
	v0, v1, v2, v3 = sipRound(sipRound(v0, v1, v2, v3))
	return v0 ^ m, v1, v2, v3
}

// write adds b to the digest.
func (h *sip128) write(b []byte) {
	h.n += uint64(len(b))
	if h.ntail > 0 {
		c := copy(h.tail[h.ntail:], b)
		h.ntail += c
		b = b[c:]
		if h.ntail < 8 {
			return
		}
		h.v0, h.v1, h.v2, h.v3 = sipCompress(h.v0, h.v1, h.v2, h.v3, binary.LittleEndian.Uint64(h.tail[:]))
		h.ntail = 0
	}
	v0, v1, v2, v3 := h.v0, h.v1, h.v2, h.v3
	for ; len(b) >= 8; b = b[8:] {
		v0, v1, v2, v3 = sipCompress(v0, v1, v2, v3, binary.LittleEndian.Uint64(b))
	}
	h.v0, h.v1, h.v2, h.v3 = v0, v1, v2, v3
	h.ntail = copy(h.tail[:], b)
}

// sum appends the 16-byte digest of what was written to out (the
// reference's byte order), leaving the state as it is.
func (h *sip128) sum(out []byte) []byte {
	m := h.n << 56
	for i := h.ntail - 1; i >= 0; i-- {
		m |= uint64(h.tail[i]) << (8 * i)
	}
	v0, v1, v2, v3 := sipCompress(h.v0, h.v1, h.v2, h.v3, m)
	v2 ^= 0xee
	v0, v1, v2, v3 = sipRound(sipRound(sipRound(sipRound(v0, v1, v2, v3))))
	out = binary.LittleEndian.AppendUint64(out, v0^v1^v2^v3)
	v1 ^= 0xdd
	v0, v1, v2, v3 = sipRound(sipRound(sipRound(sipRound(v0, v1, v2, v3))))
	return binary.LittleEndian.AppendUint64(out, v0^v1^v2^v3)
}

// sipRound is SipHash's round on the state v.
func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
