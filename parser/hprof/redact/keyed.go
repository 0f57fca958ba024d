package redact

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// Domains keep the keyed permutations of different uses apart: the same
// bytes as a field value, as a whole short array or as the repeated
// element of a uniform array are replaced independently.
const (
	domainField   = 1
	domainArray   = 2
	domainUniform = 3
	domainName    = 4
)

// feistelRounds is the number of rounds of the small-block permutation:
// four make a Luby-Rackoff strong pseudo-random permutation.
const feistelRounds = 4

// shortArray is the largest array, in bytes, that is replaced by a keyed
// permutation of all arrays of its length; longer ones by a keystream
// seeded with their HMAC, where two different arrays meeting is not to
// be expected (a 128-bit seed).
const shortArray = 16

// keyer replaces values under one key. Two values of one kind, type and
// length are replaced by equal values exactly when they were equal.
type keyer struct {
	mac   hash.Hash    // HMAC-SHA256 under the digest key
	block cipher.Block // AES-128 under the permutation key
	sum   [sha256.Size]byte
	in    [aes.BlockSize]byte
	out   [aes.BlockSize]byte
	cache [1 << 12]cacheEntry
}

// cacheEntry remembers one replaced field value: most field values are a
// few small numbers.
type cacheEntry struct {
	valid bool
	t     hprof.Type
	in    uint64
	out   uint64
}

// newKeyer derives the digest and permutation keys from the run's key.
func newKeyer(key []byte) *keyer {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("hprofctl redact permutation")[:16])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	return &keyer{mac: hmac.New(sha256.New, derive("hprofctl redact digest")), block: block}
}

// round is the Feistel round function: AES of the round, the domain, the
// type, the length and the half, cut to bits bits.
func (k *keyer) round(r int, domain byte, t hprof.Type, n int, half uint64, bits uint) uint64 {
	k.in[0], k.in[1], k.in[2] = byte(r), domain, byte(t)
	k.in[3] = 0
	binary.BigEndian.PutUint32(k.in[4:], uint32(n))
	binary.BigEndian.PutUint64(k.in[8:], half)
	k.block.Encrypt(k.out[:], k.in[:])
	v := binary.BigEndian.Uint64(k.out[:])
	if bits < 64 {
		v &= 1<<bits - 1
	}
	return v
}

// permute replaces the n-byte value b (1 <= n <= 16) in place by its
// image under the keyed permutation of all n-byte values of the domain
// and type.
func (k *keyer) permute(domain byte, t hprof.Type, b []byte) {
	n := len(b)
	h := uint(4 * n) // bits in each half
	var hi, lo uint64
	for _, c := range b {
		hi = hi<<8 | lo>>56
		lo = lo<<8 | uint64(c)
	}
	mask := ^uint64(0)
	if h < 64 {
		mask = 1<<h - 1
	}
	right := lo & mask
	left := hi
	if h < 64 {
		left = lo>>h | hi<<(64-h)
	}
	for r := range feistelRounds {
		left, right = right, left^k.round(r, domain, t, n, right, h)
	}
	lo, hi = right, left
	if h < 64 {
		lo, hi = right|left<<h, left>>(64-h)
	}
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(lo)
		lo = lo>>8 | hi<<56
		hi >>= 8
	}
}

// permuteClass permutes b as permute does, again until the result is of
// the same class as b (cycle walking): a permutation of each class.
func (k *keyer) permuteClass(domain byte, t hprof.Type, b []byte, class func([]byte) int) {
	want := class(b)
	for {
		k.permute(domain, t, b)
		if class(b) == want {
			return
		}
	}
}

// field replaces a primitive field value of type t, given and returned
// as the bits the dump holds.
func (k *keyer) field(t hprof.Type, v uint64) uint64 {
	slot := &k.cache[(v*0x9E3779B97F4A7C15>>52^uint64(t))&(uint64(len(k.cache))-1)]
	if slot.valid && slot.t == t && slot.in == v {
		return slot.out
	}
	size := t.Size(8)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	k.permuteClass(domainField, t, b[8-size:], func(p []byte) int { return valueClass(t, p) })
	out := binary.BigEndian.Uint64(b[:])
	*slot = cacheEntry{valid: true, t: t, in: v, out: out}
	return out
}

// valueClass sorts single values into the classes a replacement keeps:
// booleans stay false or true, chars stay surrogates or not.
func valueClass(t hprof.Type, p []byte) int {
	switch t {
	case hprof.TypeBoolean:
		if p[0] <= 1 {
			return 0
		}
		return 1
	case hprof.TypeChar:
		if isSurrogateHigh(p[0]) {
			return 1
		}
	}
	return 0
}

// uniformClass sorts the elements of a uniform array of n bytes as
// arrayClass sorts the array: a byte[] of even length repeating a
// surrogate high byte holds surrogates.
func uniformClass(t hprof.Type, n int64) func([]byte) int {
	return func(p []byte) int {
		c := valueClass(t, p)
		if t == hprof.TypeByte && n%2 == 0 && isSurrogateHigh(p[0]) {
			c |= 2
		}
		return c
	}
}

// isSurrogateHigh reports whether b is the high byte of a UTF-16
// surrogate code unit.
func isSurrogateHigh(b byte) bool { return b >= 0xD8 && b <= 0xDF }

// arrayClass sorts arrays into the classes a replacement keeps: uniform
// (two or more elements, all equal) or not, and whether UTF-16 text in it
// (a char[]'s big-endian units; an even-length byte[]'s little-endian
// units, as JDK 9+ UTF-16 Strings hold them) has a surrogate.
func arrayClass(t hprof.Type, es int, b []byte) int {
	c := 0
	if uniform(b, es) {
		c = 1
	}
	if hasSurrogate(t, b, 0) {
		c |= 2
	}
	return c
}

// uniform reports whether b holds two or more elements of es bytes, all
// equal.
func uniform(b []byte, es int) bool {
	if len(b) < 2*es {
		return false
	}
	first := b[:es]
	for p := es; p < len(b); p += es {
		if string(b[p:p+es]) != string(first) {
			return false
		}
	}
	return true
}

// highByte reports where the high byte of a UTF-16 unit is, for the
// arrays that may hold text: at even positions of a char[] (big-endian),
// at odd positions of a byte[] (little-endian); ok is false for the
// others.
func highByte(t hprof.Type) (parity int64, ok bool) {
	switch t {
	case hprof.TypeChar:
		return 0, true
	case hprof.TypeByte:
		return 1, true
	}
	return 0, false
}

// hasSurrogate reports whether the array bytes b, starting at byte pos of
// their array, hold a UTF-16 surrogate unit.
func hasSurrogate(t hprof.Type, b []byte, pos int64) bool {
	parity, ok := highByte(t)
	if !ok || (t == hprof.TypeByte && len(b)%2 != 0) {
		return false
	}
	for i := range b {
		if (pos+int64(i))%2 == parity && isSurrogateHigh(b[i]) {
			return true
		}
	}
	return false
}

// unsurrogate turns the surrogate units of keystream bytes b (at byte
// pos of their array) into other units, so that the replacement of text
// decodes without replacement characters.
func unsurrogate(t hprof.Type, b []byte, pos int64) {
	parity, ok := highByte(t)
	if !ok {
		return
	}
	start := int((parity - pos%2 + 2) % 2)
	for i := start; i < len(b); i += 2 {
		if isSurrogateHigh(b[i]) {
			b[i] ^= 0x20
		}
	}
}

// digest is the HMAC of an array's type, length and bytes.
func (k *keyer) digest(t hprof.Type, b []byte) []byte {
	k.startDigest(t, int64(len(b)))
	k.mac.Write(b)
	return k.mac.Sum(k.sum[:0])
}

// startDigest begins the HMAC of an array whose bytes the caller writes
// to k.mac in pieces.
func (k *keyer) startDigest(t hprof.Type, n int64) {
	var head [9]byte
	head[0] = byte(t)
	binary.BigEndian.PutUint64(head[1:], uint64(n))
	k.mac.Reset()
	k.mac.Write(head[:])
}

// array replaces the primitive array bytes b (elements of type t) in
// place.
func (k *keyer) array(t hprof.Type, b []byte) {
	es := t.Size(8)
	switch {
	case len(b) == 0:
	case uniform(b, es):
		k.permuteClass(domainUniform, t, b[:es], uniformClass(t, int64(len(b))))
		for p := es; p < len(b); p += es {
			copy(b[p:p+es], b[:es])
		}
	case len(b) <= shortArray:
		k.permuteClass(domainArray, t, b, func(p []byte) int { return arrayClass(t, es, p) })
	default:
		ks := newKeystream(k.block, k.digest(t, b))
		ks.fill(b)
		unsurrogate(t, b, 0)
		if uniform(b, es) {
			b[len(b)-1] ^= 1
		}
	}
}

// keystream is AES in counter mode from a digest: the bytes that replace
// one long array.
type keystream struct {
	ctr cipher.Stream
}

func newKeystream(block cipher.Block, seed []byte) keystream {
	return keystream{cipher.NewCTR(block, seed[:aes.BlockSize])}
}

// fill overwrites b with the next len(b) keystream bytes.
func (s keystream) fill(b []byte) {
	clear(b)
	s.ctr.XORKeyStream(b, b)
}
