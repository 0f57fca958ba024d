package redact

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"

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
// four make a Luby-Rackoff strong pseudo-random permutation when the
// round function is a pseudo-random function.
const feistelRounds = 4

// shortArray is the largest array, in bytes, that is replaced by a keyed
// permutation of all arrays of its length; longer ones by a keystream
// seeded with their keyed digest, where two different arrays meeting is
// not to be expected (a 128-bit seed).
const shortArray = 16

// roundKeys are the 128-bit keys of the rounds of one permutation.
type roundKeys [feistelRounds][2]uint64

// keys are what a run's key derives, shared by the goroutines that
// replace values: the SipHash key of the digests, the AES key of the
// keystreams and the round keys of the permutations, one set for each
// domain, type and length in bytes; and the replacement of each of the
// 256 values of a boolean and of a byte field (most fields of most
// classes are booleans), a table cheaper than the cache.
type keys struct {
	digest []byte
	block  cipher.Block
	rounds [domainUniform + 1][hprof.TypeLong + 1][shortArray + 1]roundKeys
	bytes  [hprof.TypeLong + 1]*[256]uint8
}

// newKeys derives a run's keys from its key with HMAC-SHA256.
func newKeys(key []byte) *keys {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("hprofctl redact keystream")[:16])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	ks := &keys{digest: derive("hprofctl redact digest")[:16], block: block}
	roundBlock, err := aes.NewCipher(derive("hprofctl redact round keys")[:16])
	if err != nil {
		panic(err)
	}
	var in, out [aes.BlockSize]byte
	for d := range ks.rounds {
		for t := range ks.rounds[d] {
			for n := range ks.rounds[d][t] {
				for r := range feistelRounds {
					in[0], in[1], in[2], in[3] = byte(d), byte(t), byte(n), byte(r)
					roundBlock.Encrypt(out[:], in[:])
					ks.rounds[d][t][n][r] = [2]uint64{binary.BigEndian.Uint64(out[:]), binary.BigEndian.Uint64(out[8:])}
				}
			}
		}
	}
	for _, t := range []hprof.Type{hprof.TypeBoolean, hprof.TypeByte} {
		ks.bytes[t] = new([256]uint8)
		for v := range ks.bytes[t] {
			ks.bytes[t][v] = uint8(ks.permuteValue(t, uint64(v)))
		}
	}
	return ks
}

// keyer replaces values under one run's keys, on one goroutine. Two
// values of one kind, type and length are replaced by equal values
// exactly when they were equal.
type keyer struct {
	*keys
	sip   *sip128 // under the digest key
	sum   [16]byte
	cache [1 << 12]cacheEntry
	ctr   [aes.BlockSize]byte // counter and output block of keystream
	out   [aes.BlockSize]byte
}

// cacheEntry remembers one replaced field value: most field values are a
// few small numbers.
type cacheEntry struct {
	valid bool
	t     hprof.Type
	in    uint64
	out   uint64
}

// newKeyer derives the keys from the run's key.
func newKeyer(key []byte) *keyer { return newKeys(key).keyer() }

// keyer returns a keyer of its own for one more goroutine.
func (ks *keys) keyer() *keyer {
	return &keyer{keys: ks, sip: newSip128(ks.digest)}
}

// permute replaces the n-byte value b (1 <= n <= 16) in place by its
// image under the keyed permutation of all n-byte values of the domain
// and type.
func (k *keyer) permute(domain byte, t hprof.Type, b []byte) {
	n := len(b)
	var hi, lo uint64
	for _, c := range b {
		hi = hi<<8 | lo>>56
		lo = lo<<8 | uint64(c)
	}
	hi, lo = feistel(&k.rounds[domain][t][n], uint(4*n), hi, lo)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(lo)
		lo = lo>>8 | hi<<56
		hi >>= 8
	}
}

// feistel is the balanced Feistel network of rounds rk on the 2h-bit
// value hi:lo (h <= 64 bits in each half).
func feistel(rk *roundKeys, h uint, hi, lo uint64) (uint64, uint64) {
	mask := ^uint64(0)
	if h < 64 {
		mask = 1<<h - 1
	}
	right := lo & mask
	left := hi
	if h < 64 {
		left = lo>>h | hi<<(64-h)
	}
	for r := range rk {
		// The round function: SipHash-1-3 of the one word right under
		// the round key (no length block: the input is always one word).
		k0, k1 := rk[r][0], rk[r][1]
		v0, v1, v2, v3 := k0^0x736f6d6570736575, k1^0x646f72616e646f6d, k0^0x6c7967656e657261, k1^0x7465646279746573^right
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= right
		v2 ^= 0xff
		v0, v1, v2, v3 = sipRound(sipRound(sipRound(v0, v1, v2, v3)))
		left, right = right, left^(v0^v1^v2^v3)&mask
	}
	if h < 64 {
		return left >> (64 - h), right | left<<h
	}
	return left, right
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
	if tab := k.bytes[t]; tab != nil {
		return uint64(tab[uint8(v)])
	}
	slot := &k.cache[(v*0x9E3779B97F4A7C15>>52^uint64(t))&(uint64(len(k.cache))-1)]
	if slot.valid && slot.t == t && slot.in == v {
		return slot.out
	}
	out := k.permuteValue(t, v)
	*slot = cacheEntry{valid: true, t: t, in: v, out: out}
	return out
}

// permuteValue is the image of the field value v of type t under the
// keyed permutation of the values of its class (cycle walking, as
// permuteClass).
func (ks *keys) permuteValue(t hprof.Type, v uint64) uint64 {
	size := t.Size(8)
	rk := &ks.rounds[domainField][t][size]
	want := valueClass(t, v)
	for {
		_, v = feistel(rk, uint(4*size), 0, v)
		if valueClass(t, v) == want {
			return v
		}
	}
}

// valueClass sorts single values into the classes a replacement keeps:
// booleans stay false or true, chars stay surrogates or not.
func valueClass(t hprof.Type, v uint64) int {
	switch t {
	case hprof.TypeBoolean:
		if v <= 1 {
			return 0
		}
		return 1
	case hprof.TypeChar:
		if isSurrogateHigh(byte(v >> 8)) {
			return 1
		}
	}
	return 0
}

// uniformClass sorts the elements of a uniform array of n bytes by the
// class of the array (see short): a byte[] of even length repeating a
// surrogate high byte holds surrogates.
func uniformClass(t hprof.Type, n int64) func([]byte) int {
	return func(p []byte) int {
		var v uint64
		for _, c := range p {
			v = v<<8 | uint64(c)
		}
		c := valueClass(t, v)
		if t == hprof.TypeByte && n%2 == 0 && isSurrogateHigh(p[0]) {
			c |= 2
		}
		return c
	}
}

// isSurrogateHigh reports whether b is the high byte of a UTF-16
// surrogate code unit.
func isSurrogateHigh(b byte) bool { return b >= 0xD8 && b <= 0xDF }

// uniform reports whether b holds two or more elements of es bytes, all
// equal: whether b equals itself shifted by an element.
func uniform(b []byte, es int) bool {
	return len(b) >= 2*es && bytes.Equal(b[es:], b[:len(b)-es])
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
	for i := int((parity - pos%2 + 2) % 2); i < len(b); i += 2 {
		if isSurrogateHigh(b[i]) {
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

// digest is the keyed digest of an array's type, length and bytes.
func (k *keyer) digest(t hprof.Type, b []byte) []byte {
	k.startDigest(t, int64(len(b)))
	k.sip.write(b)
	return k.sip.sum(k.sum[:0])
}

// startDigest begins the digest of an array whose bytes the caller writes
// to k.sip in pieces.
func (k *keyer) startDigest(t hprof.Type, n int64) {
	var head [9]byte
	head[0] = byte(t)
	binary.BigEndian.PutUint64(head[1:], uint64(n))
	k.sip.reset()
	k.sip.write(head[:])
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
		k.short(t, es, b)
	default:
		k.keystream(k.digest(t, b), 0, b)
		unsurrogate(t, b, 0)
		if uniform(b, es) {
			b[len(b)-1] ^= 1
		}
	}
}

// directBlocks is the length in AES blocks up to which keystream encrypts
// block by block: a cipher.Stream costs more to set up than that.
const directBlocks = 8

// keystream overwrites b with bytes pos on of the AES-CTR keystream that
// starts at the counter block seed[:16].
func (k *keyer) keystream(seed []byte, pos int64, b []byte) {
	copy(k.ctr[:], seed[:aes.BlockSize])
	addCounter(&k.ctr, uint64(pos/aes.BlockSize))
	skip := int(pos % aes.BlockSize)
	if skip == 0 && len(b) <= directBlocks*aes.BlockSize {
		for p := 0; p < len(b); p += aes.BlockSize {
			k.block.Encrypt(k.out[:], k.ctr[:])
			copy(b[p:], k.out[:])
			addCounter(&k.ctr, 1)
		}
		return
	}
	s := cipher.NewCTR(k.block, k.ctr[:])
	s.XORKeyStream(k.out[:skip], k.out[:skip]) // the bytes before pos
	clear(b)
	s.XORKeyStream(b, b)
}

// addCounter adds n to the 128-bit big-endian counter c.
func addCounter(c *[aes.BlockSize]byte, n uint64) {
	lo, carry := bits.Add64(binary.BigEndian.Uint64(c[8:]), n, 0)
	binary.BigEndian.PutUint64(c[8:], lo)
	binary.BigEndian.PutUint64(c[:8], binary.BigEndian.Uint64(c[:8])+carry)
}

// fields replaces the values of the replaced fields of layout l in data,
// the field bytes of one instance up to where the layout covers them.
func (k *keyer) fields(l *layout, data []byte) {
	if l == nil {
		return
	}
	for i := range l.ops {
		op := &l.ops[i]
		if op.off+op.size > len(data) {
			return
		}
		b := data[op.off : op.off+op.size]
		switch op.size {
		case 8:
			binary.BigEndian.PutUint64(b, k.field(op.t, binary.BigEndian.Uint64(b)))
		case 4:
			binary.BigEndian.PutUint32(b, uint32(k.field(op.t, uint64(binary.BigEndian.Uint32(b)))))
		case 2:
			binary.BigEndian.PutUint16(b, uint16(k.field(op.t, uint64(binary.BigEndian.Uint16(b)))))
		default:
			b[0] = byte(k.field(op.t, uint64(b[0])))
		}
	}
}

// chunk replaces b, a piece of a big array's elements that starts at byte
// pos of the array, from what the first pass learned of the array.
func (k *keyer) chunk(d *bigDigest, t hprof.Type, pos int64, b []byte) {
	if d.uniform {
		es := t.Size(8)
		for p := 0; p < len(b); p += es {
			copy(b[p:p+es], d.elem[:es])
		}
		return
	}
	k.keystream(d.sum[:], pos, b)
	unsurrogate(t, b, pos)
}

// short replaces a short array that is not uniform, by the keyed
// permutation of the arrays of its length and class (cycle walking, as
// permuteClass). The classes a replacement keeps are: uniform (two or
// more elements, all equal) or not, and whether UTF-16 text in the array
// (a char[]'s big-endian units; an even-length byte[]'s little-endian
// units, as JDK 9+ UTF-16 Strings hold them) has a surrogate.
func (k *keyer) short(t hprof.Type, es int, b []byte) {
	want := hasSurrogate(t, b, 0)
	for {
		k.permute(domainArray, t, b)
		if !uniform(b, es) && hasSurrogate(t, b, 0) == want {
			return
		}
	}
}
