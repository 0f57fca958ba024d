package model

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// recordedObject is what an object's record says of its length.
type recordedObject struct {
	array  bool
	length uint32
}

// TestArrayLengthsAsRecorded compares every object's ArrayLength with its
// record, read again from the dump: an array's length is the one its
// record gives, any other object's 0. Where the file gives an array's JVM
// size beside a shorter length (the agent's ASCII sz=), the length may be
// larger, and is then the one that gives that size. The fixtures cover
// the JVM's binary dumps, the JVMTI agent's binary and ASCII output, the
// JVMPI agent's ASCII output and, when ../shared holds them, JVMPI
// captures.
func TestArrayLengthsAsRecorded(t *testing.T) {
	paths := []string{
		filepath.Join("..", "testdata", "jvm", "jdk17-default.hprof.gz"),
		filepath.Join("..", "testdata", "jvm", "jdk25-coh.hprof.gz"),
		filepath.Join("..", "testdata", "agent", "heap-binary.hprof.gz"),
		filepath.Join("..", "testdata", "agent", "heap-ascii.hprof.txt.gz"),
		filepath.Join("..", "testdata", "ascii", "jvmpi.txt"),
	}
	if dir, ok := testshared.Find("jvmpi-samples"); ok {
		paths = append(paths, filepath.Join(dir, "heap-small-l2-id8-le.bin"))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h, err := loadPath(t, path)
			if err != nil {
				t.Fatal(err)
			}
			records := map[uint64]recordedObject{}
			var src hprof.Source
			err = rereadDump(h, func(s hprof.Source, rec *hprof.Record) error {
				src = s
				var id uint64
				var r recordedObject
				switch rec.Sub {
				case hprof.SubInstanceDump:
					id = rec.Instance.ID
				case hprof.SubClassDump:
					id = rec.Class.ID
				case hprof.SubObjArrayDump:
					id, r = rec.ObjArray.ID, recordedObject{array: true, length: rec.ObjArray.Length}
				case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
					id, r = rec.PrimArray.ID, recordedObject{array: true, length: rec.PrimArray.Length}
				default:
					return nil
				}
				// The load keeps the first record of an id.
				if _, seen := records[id]; !seen {
					records[id] = r
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sizes := map[uint64]int64{}
			if src != nil {
				for _, a := range src.Sizes().ArraySizes {
					if a.Dump == h.Source.Dump {
						sizes[a.ID] = a.Size
					}
				}
			}
			var arrays, fromSize int
			for i := range h.NumObjects() {
				o := ObjectIndex(i)
				r, ok := records[h.ObjectID(o)]
				if !ok {
					t.Fatalf("object 0x%x has no record", h.ObjectID(o))
				}
				got := h.ArrayLength(o)
				if !r.array {
					if got != 0 {
						t.Fatalf("object 0x%x is no array, its length is %d", h.ObjectID(o), got)
					}
					continue
				}
				arrays++
				if got == r.length {
					continue
				}
				size, sized := sizes[h.ObjectID(o)]
				if !sized || got < r.length || h.ArrayBytes(h.ClassOf(o), int64(got), SizeJVM) != size {
					t.Fatalf("array 0x%x: length %d, its record gives %d (JVM size %d given: %v)", h.ObjectID(o), got, r.length, size, sized)
				}
				fromSize++
			}
			if arrays == 0 {
				t.Error("no arrays")
			}
			t.Logf("%d objects, %d arrays, %d lengths from their size", h.NumObjects(), arrays, fromSize)
		})
	}
}

// TestSplitTable stores sequences in a splitTable, gathered in a shuffled
// order as a load gathers them: ascending across several 4 GiB steps,
// high bits that change at every entry (one run each), descending, and
// int64 values below zero. Each entry reads back as stored.
func TestSplitTable(t *testing.T) {
	const n = 1000
	cases := []struct {
		name  string
		value func(i int) uint64
		runs  int // in the order of the values, before shuffling
	}{
		{"ascending", func(i int) uint64 { return uint64(i) << 29 }, (n-1)>>3 + 1},
		{"high bits alternating", func(i int) uint64 { return uint64(i%2)<<32 | uint64(i) }, n},
		{"descending", func(i int) uint64 { return uint64(n-i) << 30 }, n/4 + 1},
		{"negative", func(i int) uint64 { return uint64(int64(i) - n/2) }, 2},
	}
	for _, c := range cases {
		var src splitList[uint64]
		for i := range n {
			src.append(c.value(i))
		}
		identity := make([]uint32, n)
		shuffled := make([]uint32, n)
		for i := range n {
			identity[i] = uint32(i)
			shuffled[i] = uint32(i * 7919 % n)
		}
		table := gatherSplit(&src, identity)
		if len(table.runStart) != c.runs || len(table.runHigh) != c.runs {
			t.Errorf("%s: %d runs, want %d", c.name, len(table.runStart), c.runs)
		}
		for _, order := range [][]uint32{identity, shuffled} {
			table := gatherSplit(&src, order)
			if err := checkRuns(&table, n); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			for i, a := range order {
				if got, want := table.at(i), c.value(int(a)); got != want {
					t.Fatalf("%s: entry %d is 0x%x, want 0x%x", c.name, i, got, want)
				}
			}
		}
	}
}

// TestElementDigestChunks feeds arrays of every element size to an
// elementDigest in chunks cut at random element boundaries, as the
// parser hands them over, and compares the result with the CRC-32C of
// the whole array and an element-by-element comparison.
func TestElementDigestChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 2, 4, 8} {
		for trial := range 400 {
			length := rng.IntN(40)
			data := make([]byte, length*size)
			elem := make([]byte, size)
			for k := range elem {
				elem[k] = byte(rng.IntN(3))
			}
			for e := range length {
				copy(data[e*size:], elem)
			}
			if trial%2 == 1 && length > 0 {
				// One byte of one element differs.
				data[rng.IntN(len(data))] ^= 1 << rng.IntN(8)
			}
			uniform := length > 0
			for e := 1; e < length; e++ {
				uniform = uniform && bytes.Equal(data[e*size:(e+1)*size], data[:size])
			}
			var d elementDigest
			d.reset(size)
			for rest := data; len(rest) > 0; {
				n := min(len(rest), size*rng.IntN(5))
				if n == 0 {
					n = min(len(rest), size)
				}
				d.write(rest[:n])
				rest = rest[n:]
			}
			want := uint64(crc32.Checksum(data, castagnoli)) | contentRecorded
			if uniform {
				want |= contentUniform
			}
			if got := d.info(uint32(length)); got != want {
				t.Fatalf("size %d, %x: info %x, want %x", size, data, got, want)
			}
			if length > 0 && d.info(uint32(length+1)) != 0 {
				t.Fatalf("size %d, %x: an array longer than its bytes counts as recorded", size, data)
			}
		}
	}
}

// TestArrayContentsAsRecorded compares ArrayContents of every object of
// the fixture.Inspect dumps and two others with the arrays' records, read
// again by the record parser: a primitive array's CRC-32C, each array's
// uniform bit computed element by element, no contents for other
// objects. The same holds after a round trip through an index.
func TestArrayContentsAsRecorded(t *testing.T) {
	paths := []string{
		filepath.Join("..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz"),
		filepath.Join("..", "testdata", "jvm", "jdk25-inspect-after.hprof.gz"),
		filepath.Join("..", "testdata", "agent", "heap-binary.hprof.gz"),
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h, err := loadPath(t, path)
			if err != nil {
				t.Fatal(err)
			}
			all := make([]ObjectIndex, h.NumObjects())
			for i := range all {
				all[i] = ObjectIndex(i)
			}
			vals, err := ReadValues(h, all, ValueOptions{Elements: -1})
			if err != nil {
				t.Fatal(err)
			}
			read, err := roundTrip(t, h)
			if err != nil {
				t.Fatal(err)
			}
			var uniform, primitive int
			for _, o := range all {
				v := vals[o]
				want := struct {
					digest            uint32
					uniform, recorded bool
				}{}
				if v != nil && v.Length >= 0 {
					want.recorded = true
					size := h.typeSize(v.Elem)
					if v.Elem == TypeObject {
						want.uniform = v.Length > 0
						for _, e := range v.Elements {
							want.uniform = want.uniform && e.Bits == 0
						}
					} else {
						primitive++
						want.digest = crc32.Checksum(v.Data, castagnoli)
						want.uniform = v.Length > 0
						for e := size; e+size <= len(v.Data); e += size {
							want.uniform = want.uniform && bytes.Equal(v.Data[e:e+size], v.Data[:size])
						}
					}
				}
				if want.uniform {
					uniform++
				}
				for name, heap := range map[string]*Heap{"loaded": h, "from the index": read} {
					d, u, r := heap.ArrayContents(o)
					if d != want.digest || u != want.uniform || r != want.recorded {
						t.Fatalf("%s: object 0x%x: contents %08x %v %v, want %08x %v %v", name, h.ObjectID(o), d, u, r, want.digest, want.uniform, want.recorded)
					}
				}
			}
			if primitive == 0 || uniform == 0 {
				t.Errorf("%d primitive arrays, %d uniform arrays: the fixture should have both", primitive, uniform)
			}
		})
	}
}

// checkRuns reports whether the runs of table t cover its n entries: the
// first starts at entry 0, each after the one before, all below n.
func checkRuns(t *splitTable, n int) error {
	if len(t.low) != n || len(t.runStart) != len(t.runHigh) || (n > 0) != (len(t.runStart) > 0) {
		return fmt.Errorf("%d entries and %d runs with %d high bits, for %d entries", len(t.low), len(t.runStart), len(t.runHigh), n)
	}
	for i, s := range t.runStart {
		if i == 0 && s != 0 || i > 0 && s <= t.runStart[i-1] || int(s) >= n {
			return fmt.Errorf("run %d starts at %d", i, s)
		}
	}
	return nil
}
