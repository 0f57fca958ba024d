package model

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestEachStringDigestMatchesReadValues reads every String of the
// fixture.Inspect dumps (real JDK 17 and 25 dumps) with its value array
// through EachStringDigest, from the committed gzip (streamed) and from a
// plain copy (in windows), and compares each String's coder and array
// with what the record parser gives through ReadValues, one object at a
// time. The plain copy is read with windows of every size from a few
// bytes (a window per String and array, each read alone) to the default,
// among them windows that end exactly at a pair's last byte and one byte
// before or after it, with the Strings cut into chunks of a few for
// several workers. The list also pairs Strings with arrays far from them
// (read one by one, as pairs the windows do not fit), with an object
// array and with a String (no value: no call).
func TestEachStringDigestMatchesReadValues(t *testing.T) {
	defer func(w, g int64, c int) { stringWindow, stringGap, stringChunk = w, g, c }(stringWindow, stringGap, stringChunk)
	for _, jdk := range []string{"jdk17", "jdk25"} {
		gz := filepath.Join("..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
		plain := filepath.Join(t.TempDir(), jdk+".hprof")
		unzip(t, gz, plain)
		h, err := loadPath(t, plain)
		if err != nil {
			t.Fatal(err)
		}
		strs, valueOf := stringPairs(t, h)
		want := wantedDigests(t, h, strs, valueOf)
		hgz, err := loadPath(t, gz)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(jdk+"/gzip", func(t *testing.T) {
			checkStringDigests(t, hgz, strs, valueOf, 4, want)
		})
		sw := stringWindows{h: h, strs: strs, valueOf: valueOf}
		first, _ := sw.pair(0)
		windows := []int64{1, 2, 3, 17, 100, 1000, 4096, 65536, 8 << 20}
		for _, k := range []int{1, 2, 5, 40} {
			if p, ok := sw.pair(k); ok && p.off > first.off {
				edge := p.off + int64(p.n) - first.off
				windows = append(windows, edge-1, edge, edge+1)
			}
		}
		for _, window := range windows {
			for _, gap := range []int64{0, 64 << 10} {
				stringWindow, stringGap = window, gap
				for _, chunk := range []int{3, 1 << 16} {
					stringChunk = chunk
					t.Run(fmt.Sprintf("%s/plain/window=%d/gap=%d/chunk=%d", jdk, window, gap, chunk), func(t *testing.T) {
						checkStringDigests(t, h, strs, valueOf, 3, want)
					})
				}
			}
		}
	}
}

// stringPairs lists every String of h with its value array, and a few
// pairs the windows cannot read together: Strings with the value array of
// another String far from them, with an object array and with a String.
func stringPairs(t *testing.T, h *Heap) (strs, valueOf []ObjectIndex) {
	t.Helper()
	var objArray, lastArray ObjectIndex = NoObject, NoObject
	for i := range h.NumObjects() {
		o := ObjectIndex(i)
		c := h.ClassOf(o)
		if c == NoClass {
			continue
		}
		switch {
		case h.Classes[c].Name == "java.lang.String" && len(h.Refs(o)) == 1:
			strs, valueOf = append(strs, o), append(valueOf, h.Refs(o)[0])
			lastArray = h.Refs(o)[0]
		case h.Classes[c].Elem == TypeObject && objArray == NoObject:
			objArray = o
		}
	}
	if len(strs) < 1000 || objArray == NoObject {
		t.Fatalf("%d Strings, object array %d: the fixture has thousands of Strings and object arrays", len(strs), objArray)
	}
	strs = append(strs, strs[0], strs[1], strs[len(strs)-1], strs[2])
	valueOf = append(valueOf, lastArray, objArray, valueOf[0], strs[3])
	return strs, valueOf
}

// stringRead is what a String's pair should give: its coder, its array's
// element type, length and the SHA-256 of its elements; none when the
// array is no primitive array.
type stringRead struct {
	coder, length int
	elem          Type
	sum           [32]byte
}

// wantedDigests reads each String and array of the pairs with ReadValues.
func wantedDigests(t *testing.T, h *Heap, strs, valueOf []ObjectIndex) map[int]stringRead {
	t.Helper()
	vals, err := ReadValues(h, append(append([]ObjectIndex(nil), strs...), valueOf...), ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]stringRead{}
	for k := range strs {
		a := vals[valueOf[k]]
		if a.Length < 0 || a.Elem == TypeObject {
			continue
		}
		want[k] = stringRead{coder: StringCoder(vals[strs[k]]), length: int(a.Length), elem: a.Elem, sum: sha256.Sum256(elementBytes(a))}
	}
	return want
}

// elementBytes is the elements of the primitive array a as the dump
// records them, big-endian.
func elementBytes(a *ObjectValues) []byte {
	var data []byte
	for _, e := range a.Elements {
		size := e.Type.Size(8)
		for b := size - 1; b >= 0; b-- {
			data = append(data, byte(e.Bits>>(8*b)))
		}
	}
	return data
}

// checkStringDigests reads the pairs with EachStringDigest on workers
// goroutines and checks that each of want gets one call with its values,
// and no other pair any.
func checkStringDigests(t *testing.T, h *Heap, strs, valueOf []ObjectIndex, workers int, want map[int]stringRead) {
	t.Helper()
	var mu sync.Mutex
	got := map[int]stringRead{}
	var sums sync.Map
	digest := func(data []byte) [2]uint64 {
		sum := sha256.Sum256(data)
		d := [2]uint64{binary.LittleEndian.Uint64(sum[:]), binary.LittleEndian.Uint64(sum[8:])}
		sums.Store(d, sum)
		return d
	}
	err := EachStringDigest(h, strs, valueOf, workers, digest, func(w, k int, v StringDigest) error {
		if w < 0 || w >= workers {
			return fmt.Errorf("worker %d of %d", w, workers)
		}
		sum, _ := sums.Load(v.Digest)
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[k]; dup {
			return fmt.Errorf("pair %d given twice", k)
		}
		got[k] = stringRead{coder: v.Coder, length: v.Length, elem: v.Elem, sum: sum.([32]byte)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("String 0x%x with array 0x%x: %+v (given: %v), want %+v", h.ObjectID(strs[k]), h.ObjectID(valueOf[k]), g, ok, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("String 0x%x with 0x%x, no primitive array: given", h.ObjectID(strs[k]), h.ObjectID(valueOf[k]))
		}
	}
}

// fileDump is a DumpReader of a dump file, as internal/dumpfile's, whose
// object reader may be told a size other than the file's.
type fileDump struct {
	path string
	size int64 // 0: the file's
}

func (d fileDump) Objects(o hprof.ObjectReaderOptions, fn func(*hprof.ObjectReader) error) error {
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	size := d.size
	if size == 0 {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		size = st.Size()
	}
	r, err := hprof.NewObjectReader(f, size, o)
	if err != nil {
		return err
	}
	return fn(r)
}

func (d fileDump) Records(func(hprof.Source) error) error { return errors.ErrUnsupported }

// TestEachStringDigestFromMappedWindows reads the Strings of the
// fixture.Inspect dump (real JDK 17) from its file, whose windows are
// mapped rather than read, with windows of a few sizes, and compares each
// String's coder and array with what ReadValues gives. Then the file is
// cut in the middle while the reader is told its former size, so that
// the mapped windows past the cut fault: the reading must fail with
// input.ErrChanged, not crash.
func TestEachStringDigestFromMappedWindows(t *testing.T) {
	defer func(w int64, c int) { stringWindow, stringChunk = w, c }(stringWindow, stringChunk)
	plain := filepath.Join(t.TempDir(), "jdk17.hprof")
	unzip(t, filepath.Join("..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz"), plain)
	h, err := loadPath(t, plain)
	if err != nil {
		t.Fatal(err)
	}
	strs, valueOf := stringPairs(t, h)
	want := wantedDigests(t, h, strs, valueOf)
	h.SetDumpReader(fileDump{path: plain})
	for _, window := range []int64{100, 4096, 8 << 20} {
		for _, chunk := range []int{3, 1 << 16} {
			stringWindow, stringChunk = window, chunk
			t.Run(fmt.Sprintf("window=%d/chunk=%d", window, chunk), func(t *testing.T) {
				checkStringDigests(t, h, strs, valueOf, 3, want)
			})
		}
	}
	st, err := os.Stat(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(plain, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	h.SetDumpReader(fileDump{path: plain, size: st.Size()})
	stringWindow = 8 << 20
	err = EachStringDigest(h, strs, valueOf, 2, func([]byte) [2]uint64 { return [2]uint64{} }, func(int, int, StringDigest) error { return nil })
	if !errors.Is(err, input.ErrChanged) {
		t.Errorf("reading a dump cut short under its mapped windows: %v, want %v", err, input.ErrChanged)
	}
}
