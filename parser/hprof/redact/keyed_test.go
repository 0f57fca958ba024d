package redact

import (
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
