package redact

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// redactBytes redacts dump under a fixed key on procs workers.
func redactBytes(t *testing.T, dump []byte, gz bool, procs int) []byte {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var out bytes.Buffer
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(dump)), nil }
	if _, err := Redact(open, "test", &out, Options{Key: []byte("test key, sixteen bytes or more"), Keep: DefaultKeep, Gzip: gz}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// gzipMembers splits a gzip stream into its members' contents, and
// returns the first member's comment.
func gzipMembers(t *testing.T, z []byte) (members [][]byte, comment string) {
	t.Helper()
	r := bytes.NewReader(z)
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	comment = zr.Comment
	for {
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
		if err := zr.Reset(r); errors.Is(err, io.EOF) {
			return members, comment
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRedactSameOnAnyWorkers redacts a dump of several batches on one
// and on four workers, plain and gzip-compressed: the four outputs hold
// the same dump, and the compressed ones are members of at most 1 MiB,
// the first saying so as the JVM's -gz dumps do.
func TestRedactSameOnAnyWorkers(t *testing.T) {
	var dump bytes.Buffer
	if _, err := hproftest.WriteRealistic(&dump, 6<<20, 2, 8); err != nil {
		t.Fatal(err)
	}
	plain := redactBytes(t, dump.Bytes(), false, 1)
	if len(plain) != dump.Len() {
		t.Fatalf("the redacted dump has %d bytes, the input %d", len(plain), dump.Len())
	}
	if !bytes.Equal(redactBytes(t, dump.Bytes(), false, 4), plain) {
		t.Fatal("four workers wrote another dump than one")
	}
	for _, procs := range []int{1, 4} {
		members, comment := gzipMembers(t, redactBytes(t, dump.Bytes(), true, procs))
		if comment != "HPROF BLOCKSIZE=1048576" {
			t.Errorf("%d workers: the first member's comment is %q", procs, comment)
		}
		if len(members) < 6 {
			t.Errorf("%d workers: %d gzip members for %d bytes", procs, len(members), len(plain))
		}
		for i, m := range members {
			if len(m) > gzipBlock {
				t.Errorf("%d workers: member %d holds %d bytes", procs, i, len(m))
			}
		}
		if !bytes.Equal(bytes.Join(members, nil), plain) {
			t.Errorf("%d workers: the gzip members do not hold the plain output", procs)
		}
	}
}

// bigArraysDump is a dump of primitive arrays too big to hold (bigArray):
// two equal random byte[], a third that differs from them in its last
// byte, a uniform int[] and a char[] of text.
func bigArraysDump(t *testing.T) []byte {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{})
	rnd := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, bigArray+12345)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	other := bytes.Clone(random)
	other[len(other)-1]++
	w.BeginHeapDump()
	w.PrimArray(hproftest.TypeByte, random)
	w.PrimArray(hproftest.TypeByte, random)
	w.PrimArray(hproftest.TypeByte, other)
	w.PrimArray(hproftest.TypeInt, bytes.Repeat([]byte{0, 0, 0, 42}, bigArray/4+1))
	text := []byte(strings.Repeat("\x00s\x00e\x00c\x00r\x00e\x00t", bigArray/12+1))
	w.PrimArray(hproftest.TypeChar, text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// primArrays reads the elements of a dump's primitive arrays.
func primArrays(t *testing.T, dump []byte) [][]byte {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(dump), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var arrays [][]byte
	for r.Next() {
		if r.Record().Sub != hprof.SubPrimArrayDump {
			continue
		}
		var a []byte
		if err := r.PayloadChunks(func(c []byte) error { a = append(a, c...); return nil }); err != nil {
			t.Fatal(err)
		}
		arrays = append(arrays, a)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return arrays
}

// TestRedactBigArrays redacts the arrays too big to hold, streamed in
// pieces across batches: equal ones stay equal and different ones
// different, lengths stay, the uniform int[] stays uniform, the char[]
// gains no surrogate, the pieces make up the keystream of the whole
// array, and four workers write what one does.
func TestRedactBigArrays(t *testing.T) {
	dump := bigArraysDump(t)
	out := redactBytes(t, dump, false, 1)
	if !bytes.Equal(redactBytes(t, dump, false, 4), out) {
		t.Fatal("four workers wrote another dump than one")
	}
	in, red := primArrays(t, dump), primArrays(t, out)
	if len(red) != 5 {
		t.Fatalf("%d arrays read back, want 5", len(red))
	}
	for i := range red {
		if len(red[i]) != len(in[i]) || bytes.Equal(red[i], in[i]) {
			t.Errorf("array %d: %d bytes, was %d; unchanged: %v", i, len(red[i]), len(in[i]), bytes.Equal(red[i], in[i]))
		}
	}
	if !bytes.Equal(red[0], red[1]) || bytes.Equal(red[0], red[2]) {
		t.Error("equal big arrays were replaced by different ones, or different ones by equal ones")
	}
	if !uniform(red[3], 4) || binary.BigEndian.Uint32(red[3]) == 42 {
		t.Errorf("the uniform int[] of 42 became %x…", red[3][:16])
	}
	if hasSurrogate(hprof.TypeChar, red[4], 0) {
		t.Error("the char[] of text gained a surrogate")
	}
	k := newKeyer([]byte("test key, sixteen bytes or more"))
	for i, typ := range map[int]hprof.Type{0: hprof.TypeByte, 4: hprof.TypeChar} {
		want := make([]byte, len(in[i]))
		k.keystream(k.digest(typ, in[i]), 0, want)
		unsurrogate(typ, want, 0)
		if !bytes.Equal(red[i], want) {
			t.Errorf("array %d: the pieces are not the keystream of the whole array", i)
		}
	}
}
