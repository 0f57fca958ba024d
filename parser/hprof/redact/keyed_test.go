package redact

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// TestArrayReplacementIsInjective replaces every 2-byte byte[] and every
// 1-char char[] pair: different arrays stay different, uniform ones stay
// uniform, and char text gains no surrogate.
func TestArrayReplacementIsInjective(t *testing.T) {
	k := newKeyer([]byte("test key, sixteen bytes or more"))
	for _, typ := range []hprof.Type{hprof.TypeByte, hprof.TypeChar} {
		seen := map[string]bool{}
		for v := range 1 << 16 {
			b := []byte{byte(v >> 8), byte(v)}
			if typ == hprof.TypeChar {
				b = append(b, byte(v), byte(v>>8))
			}
			was, wasSurrogate := uniform(b, typ.Size(8)), hasSurrogate(typ, b, 0)
			k.array(typ, b)
			if seen[string(b)] {
				t.Fatalf("%s array %04x: its replacement %x replaces another array too", typ, v, b)
			}
			seen[string(b)] = true
			if uniform(b, typ.Size(8)) != was || hasSurrogate(typ, b, 0) != wasSurrogate {
				t.Fatalf("%s array %04x: replacement %x changed class", typ, v, b)
			}
		}
	}
}

// TestFieldReplacementKeepsBooleans replaces booleans by booleans.
func TestFieldReplacementKeepsBooleans(t *testing.T) {
	k := newKeyer([]byte("test key, sixteen bytes or more"))
	f, tr := k.field(hprof.TypeBoolean, 0), k.field(hprof.TypeBoolean, 1)
	if f > 1 || tr > 1 || f == tr {
		t.Fatalf("booleans 0, 1 replaced by %d, %d", f, tr)
	}
}

// TestKeystreamIsCTR checks the keystream of short arrays (block by
// block) and of the pieces of big arrays (from an offset) against
// cipher.NewCTR's, at every length and offset up to past the switch
// between them, from a counter that carries into its upper half.
func TestKeystreamIsCTR(t *testing.T) {
	k := newKeyer([]byte("test key, sixteen bytes or more"))
	seed := bytes.Repeat([]byte{0xff}, aes.BlockSize)
	seed[0] = 7
	const most = (directBlocks + 2) * aes.BlockSize
	want := make([]byte, 2*most)
	cipher.NewCTR(k.block, seed).XORKeyStream(want, want)
	for pos := range most {
		for n := range most + 1 {
			got := make([]byte, n)
			k.keystream(seed, int64(pos), got)
			if !bytes.Equal(got, want[pos:pos+n]) {
				t.Fatalf("bytes %d to %d: keystream %x, AES-CTR %x", pos, pos+n, got, want[pos:pos+n])
			}
		}
	}
}

// TestSip128 checks the digest against the reference vectors of
// SipHash-2-4-128 (key 00 01 … 0f, message 00 01 … of each length), the
// message written whole and a byte at a time.
func TestSip128(t *testing.T) {
	vectors := map[int]string{
		0:  "a3817f04ba25a8e66df67214c7550293",
		1:  "da87c1d86b99af44347659119b22fc45",
		7:  "a1f1ebbed8dbc153c0b84aa61ff08239",
		8:  "3b62a9ba6258f5610f83e264f31497b4",
		15: "5493e99933b0a8117e08ec0f97cfc3d9",
		63: "5150d1772f50834a503e069a973fbd7c",
	}
	key, msg := make([]byte, 16), make([]byte, 64)
	for i := range msg {
		msg[i] = byte(i)
	}
	copy(key, msg)
	h := newSip128(key)
	for n, want := range vectors {
		h.reset()
		h.write(msg[:n])
		if got := hex.EncodeToString(h.sum(nil)); got != want {
			t.Errorf("%d bytes: %s, want %s", n, got, want)
		}
		h.reset()
		for i := range n {
			h.write(msg[i : i+1])
		}
		if got := hex.EncodeToString(h.sum(nil)); got != want {
			t.Errorf("%d bytes written one by one: %s, want %s", n, got, want)
		}
	}
}

// TestSmallFieldsArePermuted replaces every char and short value: no two
// values meet, and chars stay surrogates or not.
func TestSmallFieldsArePermuted(t *testing.T) {
	k := newKeyer([]byte("test key, sixteen bytes or more"))
	for _, typ := range []hprof.Type{hprof.TypeChar, hprof.TypeShort} {
		seen := map[uint64]bool{}
		for v := range uint64(1 << 16) {
			r := k.field(typ, v)
			if seen[r] {
				t.Fatalf("%s %#04x: its replacement %#04x replaces another value too", typ, v, r)
			}
			seen[r] = true
			if valueClass(typ, r) != valueClass(typ, v) {
				t.Fatalf("%s %#04x: replacement %#04x changed class", typ, v, r)
			}
		}
	}
}
