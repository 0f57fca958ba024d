package hprof_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// heapModel is what TestRealisticDumpMatchesItsStats gathers from a dump.
type heapModel struct {
	idSize   int
	names    map[uint64]string      // UTF8 records
	classes  map[uint64]uint64      // class object → name id, from LOAD_CLASS
	dumps    map[uint64]classLayout // CLASS_DUMPs
	objects  map[uint64]int64       // object → in-memory size under the layout
	refs     []uint64               // every reference held by a field, array element or root
	perClass map[string]hproftest.ClassStats
	lists    map[uint64][2]uint64 // LinkedList$Node → (next, prev)
	heads    [][2]uint64          // LinkedList: (size, first)
	counts   map[string]int
	roots    map[hproftest.SubTag]int
}

type classLayout struct {
	super  uint64
	fields []hprof.Type
}

// instanceTypes lists the field types of an instance of class, in dump
// order, from the CLASS_DUMPs alone.
func (m *heapModel) instanceTypes(class uint64) []hprof.Type {
	var types []hprof.Type
	for c := class; c != 0; c = m.dumps[c].super {
		types = append(types, m.dumps[c].fields...)
	}
	return types
}

func (m *heapModel) className(class uint64) string { return m.names[m.classes[class]] }

// addObject records an object of the named class with its field or
// element bytes and in-memory size.
func (m *heapModel) addObject(t *testing.T, id uint64, name string, dumpBytes, size int64) {
	if _, dup := m.objects[id]; dup {
		t.Fatalf("two objects at %#x", id)
	}
	m.objects[id] = size
	s := m.perClass[name]
	s.Instances++
	s.FieldBytes += dumpBytes
	s.ShallowBytes += size
	m.perClass[name] = s
}

func readHeapModel(t *testing.T, data []byte, layout hproftest.Layout) *heapModel {
	r, err := hprof.NewReader(bytes.NewReader(data), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := r.IDSize()
	m := &heapModel{idSize: ids, names: map[uint64]string{}, classes: map[uint64]uint64{},
		dumps: map[uint64]classLayout{}, objects: map[uint64]int64{}, perClass: map[string]hproftest.ClassStats{},
		lists: map[uint64][2]uint64{}, counts: map[string]int{}, roots: map[hproftest.SubTag]int{}}
	align := func(n int64) int64 { return (n + int64(layout.Align) - 1) &^ int64(layout.Align-1) }
	elemNames := map[hprof.Type]string{hprof.TypeByte: "[B", hprof.TypeChar: "[C", hprof.TypeInt: "[I", hprof.TypeLong: "[J"}
	for r.Next() {
		rec := r.Record()
		if rec.Sub == 0 {
			m.counts[rec.Tag.String()]++
		} else {
			m.counts[rec.Sub.String()]++
		}
		switch rec.Sub {
		case 0:
			switch rec.Tag {
			case hprof.TagUTF8:
				m.names[rec.UTF8.ID] = string(rec.UTF8.Text)
			case hprof.TagLoadClass:
				m.classes[rec.LoadClass.ClassID] = rec.LoadClass.NameID
			case hprof.TagTrace:
				if rec.Trace.Serial != rec.Trace.ThreadSerial+1 {
					t.Errorf("trace %d of thread %d", rec.Trace.Serial, rec.Trace.ThreadSerial)
				}
			}
		case hprof.SubClassDump:
			var types []hprof.Type
			for _, f := range rec.Class.Fields {
				types = append(types, f.Type)
			}
			m.dumps[rec.Class.ID] = classLayout{super: rec.Class.SuperID, fields: types}
			if rec.Class.SuperID != 0 {
				m.refs = append(m.refs, rec.Class.SuperID)
			}
			for _, s := range rec.Class.Statics {
				if s.Type == hprof.TypeObject && s.Value != 0 {
					m.refs = append(m.refs, s.Value)
				}
			}
		case hprof.SubInstanceDump:
			in := rec.Instance
			types := m.instanceTypes(in.ClassID)
			size := int64(layout.ObjectHeader)
			for _, ty := range types {
				size += int64(ty.Size(layout.RefSize))
			}
			name := m.className(in.ClassID)
			m.addObject(t, in.ID, name, int64(in.Size), align(size))
			payload, err := r.Payload()
			if err != nil {
				t.Fatal(err)
			}
			p := payload
			var fields []uint64
			for _, ty := range types {
				n := ty.Size(ids)
				if ty == hprof.TypeObject {
					v := r.ID(p)
					fields = append(fields, v)
					if v != 0 {
						m.refs = append(m.refs, v)
					}
				}
				p = p[n:]
			}
			if len(p) != 0 {
				t.Fatalf("instance %#x of %s: %d field bytes left over", in.ID, name, len(p))
			}
			switch name {
			case "java/util/LinkedList$Node":
				m.lists[in.ID] = [2]uint64{fields[1], fields[2]}
			case "java/util/LinkedList": // size int, first, last, modCount int
				m.heads = append(m.heads, [2]uint64{uint64(binary.BigEndian.Uint32(payload)), fields[0]})
			}
		case hprof.SubObjArrayDump:
			a := rec.ObjArray
			m.addObject(t, a.ID, m.className(a.ClassID), int64(a.Length)*int64(ids),
				align(int64(layout.ArrayHeader)+int64(a.Length)*int64(layout.RefSize)))
			err := r.PayloadChunks(func(c []byte) error {
				for ; len(c) > 0; c = c[ids:] {
					if v := r.ID(c); v != 0 {
						m.refs = append(m.refs, v)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		case hprof.SubPrimArrayDump:
			a := rec.PrimArray
			es := int64(a.ElemType.Size(ids))
			m.addObject(t, a.ID, elemNames[a.ElemType], int64(a.Length)*es, align(int64(layout.ArrayHeader)+int64(a.Length)*es))
		default:
			if rec.Sub.IsRoot() {
				m.roots[hproftest.SubTag(rec.Sub)]++
				m.refs = append(m.refs, rec.Root.ID)
			}
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return m
}

// TestRealisticDumpMatchesItsStats reads WriteRealistic dumps and checks the
// Stats exactly, the object addresses, the references and the linked lists.
func TestRealisticDumpMatchesItsStats(t *testing.T) {
	for _, tc := range []struct {
		idSize int
		layout hproftest.Layout
	}{{4, hproftest.Layout32}, {8, hproftest.LayoutCompressedOops}} {
		t.Run(fmt.Sprint("id", tc.idSize), func(t *testing.T) {
			var buf bytes.Buffer
			st, err := hproftest.WriteRealistic(&buf, 3<<20, 5, tc.idSize)
			if err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			if st.Bytes != int64(len(data)) {
				t.Errorf("Stats.Bytes %d, dump has %d", st.Bytes, len(data))
			}
			m := readHeapModel(t, data, tc.layout)

			for name, want := range st.PerClass {
				if got := m.perClass[name]; got != want {
					t.Errorf("%s: read %+v, Stats say %+v", name, got, want)
				}
			}
			for name := range m.perClass {
				if _, ok := st.PerClass[name]; !ok {
					t.Errorf("%s: objects in the dump, none in Stats", name)
				}
			}
			for what, want := range map[string]int{
				"LOAD_CLASS": st.Classes, "CLASS_DUMP": st.Classes, "INSTANCE_DUMP": int(st.Instances),
				"OBJ_ARRAY_DUMP": int(st.ObjectArrays), "PRIM_ARRAY_DUMP": int(st.PrimitiveArrays),
				"HEAP_DUMP_SEGMENT": st.HeapRecords, "HEAP_DUMP_END": 1, "FRAME": st.Frames, "TRACE": st.Traces,
				"ROOT_THREAD_OBJ": st.Threads,
			} {
				if m.counts[what] != want {
					t.Errorf("%d %s records, Stats say %d", m.counts[what], what, want)
				}
			}
			if fmt.Sprint(m.roots) != fmt.Sprint(st.Roots) {
				t.Errorf("roots %v, Stats say %v", m.roots, st.Roots)
			}
			if st.Classes < 40 || st.Instances < 20000 || len(st.ListLengths) != 5 {
				t.Errorf("a 3 MiB dump with %d classes, %d instances, lists %v", st.Classes, st.Instances, st.ListLengths)
			}
			checkAddresses(t, m)
			checkReferences(t, m)
			checkLists(t, m, st.ListLengths)
		})
	}
}

// checkAddresses checks that objects lie back to back: the gap from each to
// the next is its size under the layout.
func checkAddresses(t *testing.T, m *heapModel) {
	addrs := make([]uint64, 0, len(m.objects)+len(m.dumps))
	for id := range m.objects {
		addrs = append(addrs, id)
	}
	for id := range m.dumps {
		addrs = append(addrs, id)
	}
	slices.Sort(addrs)
	for i, a := range addrs[:len(addrs)-1] {
		size, isObject := m.objects[a]
		if !isObject {
			continue
		}
		if gap := int64(addrs[i+1] - a); gap != size {
			t.Fatalf("object at %#x of size %d is followed by one at %#x", a, size, addrs[i+1])
		}
	}
}

// checkReferences checks that every reference points at a dumped object or
// class.
func checkReferences(t *testing.T, m *heapModel) {
	for _, ref := range m.refs {
		if _, ok := m.objects[ref]; ok {
			continue
		}
		if _, ok := m.dumps[ref]; !ok {
			t.Fatalf("reference to %#x, which is no object or class of the dump", ref)
		}
	}
	if len(m.refs) < len(m.objects)/2 {
		t.Errorf("%d references for %d objects: not much of a graph", len(m.refs), len(m.objects))
	}
}

// checkLists follows the LinkedList chains from the lists' first nodes.
func checkLists(t *testing.T, m *heapModel, want []int) {
	var got []int
	for _, head := range m.heads {
		n := 0
		prev := uint64(0)
		for node := head[1]; node != 0; node = m.lists[node][0] {
			if m.lists[node][1] != prev {
				t.Fatalf("node %#x: prev %#x, want %#x", node, m.lists[node][1], prev)
			}
			prev = node
			n++
		}
		if uint64(n) != head[0] {
			t.Errorf("list of size %d has %d nodes", head[0], n)
		}
		got = append(got, n)
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("linked lists of %v nodes, Stats say %v", got, want)
	}
}

// benchDumpVersion names the WriteRealistic output a cached benchmark dump
// was made with; change it when the generator changes.
const benchDumpVersion = "v1"

// benchDump returns a ~100 MB realistic dump, cached in benchdata.Dir().
func benchDump(b *testing.B) (string, int64) {
	dir := benchdata.Dir()
	path := filepath.Join(dir, "realistic-100MB-seed1-id8-"+benchDumpVersion+".hprof")
	if fi, err := os.Stat(path); err == nil {
		return path, fi.Size()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "partial-*.hprof")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	st, err := hproftest.WriteRealistic(bw, 100<<20, 1, 8)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Bytes
}

// BenchmarkReader reads a ~100 MB realistic dump from a file: records only
// (payloads skipped), and records with every payload.
func BenchmarkReader(b *testing.B) {
	path, size := benchDump(b)
	for _, payloads := range []bool{false, true} {
		b.Run(map[bool]string{false: "records", true: "payloads"}[payloads], func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r, err := hprof.NewReader(f, hprof.Options{})
				if err != nil {
					b.Fatal(err)
				}
				var sum int
				for r.Next() {
					if !payloads || r.PayloadSize() == 0 {
						continue
					}
					if r.PayloadSize() > 1<<20 {
						err = r.PayloadChunks(func(c []byte) error { sum += len(c); return nil })
					} else {
						var p []byte
						p, err = r.Payload()
						sum += len(p)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if r.Err() != nil {
					b.Fatal(r.Err())
				}
				f.Close()
			}
		})
	}
}
