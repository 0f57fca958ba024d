package redact

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// streamed is what the streaming path writes for dump, or its error.
func streamed(dump []byte, opt Options) ([]byte, *Summary, error) {
	var out bytes.Buffer
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(dump)), nil }
	sum, err := Redact(open, "dump", &out, opt)
	return out.Bytes(), sum, err
}

// direct is what the direct path writes for dump, or errNotDirect.
func direct(dump []byte, opt Options) ([]byte, *Summary, error) {
	var out bytes.Buffer
	sum, err := redactDirect(memSource(dump), "dump", &out, opt)
	return out.Bytes(), sum, err
}

// memSource is the dumpSource of dump in memory.
func memSource(dump []byte) *dumpSource {
	return &dumpSource{ReaderAt: bytes.NewReader(dump), size: int64(len(dump)), mem: dump}
}

// sameAsStreamed checks that the direct path writes the streaming path's
// bytes and summary for dump, plain, gzip-compressed and with new names.
func sameAsStreamed(t *testing.T, what string, dump []byte) {
	t.Helper()
	for _, opt := range []Options{{}, {Names: true}, {Gzip: true}} {
		opt.Key, opt.Keep = []byte("test key, sixteen bytes or more"), DefaultKeep
		want, wantSum, err := streamed(dump, opt)
		if err != nil {
			t.Fatalf("%s: streamed: %v", what, err)
		}
		got, sum, err := direct(dump, opt)
		if err != nil {
			t.Fatalf("%s: direct (%+v): %v", what, opt, err)
		}
		if opt.Gzip {
			got, want = gunzip(t, got), gunzip(t, want)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s (names %v, gzip %v): the direct path wrote another dump (%d bytes) than the streaming path (%d)", what, opt.Names, opt.Gzip, len(got), len(want))
		}
		if !reflect.DeepEqual(sum, wantSum) {
			t.Errorf("%s: the direct path's summary\n%+v\nthe streaming path's\n%+v", what, *sum, *wantSum)
		}
	}
}

func gunzip(t *testing.T, z []byte) []byte {
	members, _ := gzipMembers(t, z)
	return bytes.Join(members, nil)
}

// cutDump is one HEAP_DUMP record of several jobs, cut between
// sub-records and inside the elements of a big primitive array and of
// a big object array, with a class dumped after instances of others.
func cutDump(t *testing.T) []byte {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{HeapRecords: hproftest.HeapRecordsSingle})
	j := w.DeclareJDK()
	app := w.DeclareClass(hproftest.ClassSpec{Name: "com/acme/Point", Super: j.Object,
		Fields:  []hproftest.Field{{Name: "x", Type: hproftest.TypeInt}, {Name: "y", Type: hproftest.TypeLong}, {Name: "on", Type: hproftest.TypeBoolean}},
		Statics: []hproftest.Static{{Name: "ORIGIN", Value: hproftest.Long(77)}}})
	late := w.DeclareClass(hproftest.ClassSpec{Name: "com/acme/Late", Super: j.Object,
		Fields: []hproftest.Field{{Name: "secret", Type: hproftest.TypeLong}}})
	rnd := rand.New(rand.NewPCG(3, 4))
	w.BeginHeapDump()
	for _, c := range append(j.Classes(), app) {
		w.DumpClass(c)
	}
	var ids []hproftest.ID
	for i := range 60000 {
		ids = append(ids, w.Instance(app, hproftest.Int(int32(rnd.Uint32())), hproftest.Long(int64(i%1000)), hproftest.Boolean(i%3 == 0)))
		if i%7 == 0 {
			s, _ := j.NewString("text " + string(rune('a'+i%26)))
			ids = append(ids, s)
		}
	}
	big := make([]byte, 3*bigArray+5)
	for i := range big {
		big[i] = byte(rnd.Uint32())
	}
	w.PrimArray(hproftest.TypeByte, big)
	w.PrimArray(hproftest.TypeShort, bytes.Repeat([]byte{1, 2}, bigArray))
	for len(ids) < 3*jobBytes/8 {
		ids = append(ids, ids...)
	}
	w.ObjectArray(j.ObjectArray, ids...)
	w.DumpClass(late)
	w.Instance(late, hproftest.Long(0x5EC2E7))
	w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: app.ID})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDirectSameAsStreamed redacts dumps by both paths: small ones of
// every record kind, segmented realistic ones, big arrays and one heap
// record cut into jobs, on one and on four workers.
func TestDirectSameAsStreamed(t *testing.T) {
	var realistic bytes.Buffer
	if _, err := hproftest.WriteRealistic(&realistic, 6<<20, 2, 4); err != nil {
		t.Fatal(err)
	}
	dumps := map[string][]byte{"small-4": smallDump(t, 4), "small-8": smallDump(t, 8), "realistic": realistic.Bytes(),
		"big arrays": bigArraysDump(t), "cut": cutDump(t)}
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for name, dump := range dumps {
				sameAsStreamed(t, name, dump)
			}
		}()
	}
	s, spans, _, err := directScan(memSource(dumps["cut"]), "cut", newKeys([]byte("test key, sixteen bytes or more")), 2)
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for _, c := range spans[0].cuts {
		if c.in.end > 0 {
			inside++
		}
	}
	if len(spans) != 1 || len(spans[0].cuts) < 8 || inside < 4 || len(s.big) != 2 {
		t.Errorf("the heap record of %d bytes is cut %d times, %d inside arrays (%d big arrays)", len(dumps["cut"]), len(spans[0].cuts), inside, len(s.big))
	}
}

// TestDirectLeaves hands the dumps the direct path does not read the
// streaming path's way back to it: compressed, cut short, a heap record
// of no length, an unknown record, an unknown sub-record.
func TestDirectLeaves(t *testing.T) {
	dump := smallDump(t, 8)
	var z bytes.Buffer
	z.Write([]byte{0x1f, 0x8b})
	hl := bytes.IndexByte(dump, 0) + 13
	unknown := append(append(bytes.Clone(dump[:hl]), 0x42, 0, 0, 0, 0, 0, 0, 0, 0), dump[hl:]...)
	heap := bytes.Index(dump, []byte{0x1c, 0, 0, 0, 0})
	emptyHeap := append(append(bytes.Clone(dump[:heap]), 0x1c, 0, 0, 0, 0, 0, 0, 0, 0), dump[heap:]...)
	badSub := bytes.Clone(dump)
	badSub[heap+9] = 0x77
	for name, d := range map[string][]byte{"gzip": z.Bytes(), "cut": dump[:len(dump)-20], "empty heap record": emptyHeap,
		"unknown record": unknown, "unknown sub-record": badSub} {
		opt := Options{Key: []byte("test key, sixteen bytes or more")}
		if _, _, err := direct(d, opt); !errors.Is(err, errNotDirect) {
			t.Errorf("%s: the direct path answered %v", name, err)
		}
	}
}

// TestDirectSameOnEveryDump redacts every dump of testdata and of the
// shared corpus that is binary HPROF (decompressed first when it is
// compressed) by both paths: where the streaming path writes a dump, the
// direct path writes the same bytes or leaves the dump to it; where the
// streaming path fails, the direct path does not write one.
func TestDirectSameOnEveryDump(t *testing.T) {
	var files []string
	for _, root := range []string{filepath.Join("..", "..", "..", "testdata"), testshared.Path(t, "corpus")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.Contains(d.Name(), "hprof") || filepath.Ext(path) == ".bin") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	same, left := 0, 0
	for _, path := range files {
		f, err := input.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dump, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.HasPrefix(dump, []byte("JAVA PROFILE 1.0")) || bytes.HasPrefix(dump, []byte("JAVA PROFILE 1.0.1, created")) {
			continue // not binary HPROF: the agent's ASCII output, a histogram
		}
		opt := Options{Key: []byte("test key, sixteen bytes or more"), Keep: DefaultKeep}
		want, _, werr := streamed(dump, opt)
		got, _, err := direct(dump, opt)
		switch {
		case errors.Is(err, errNotDirect):
			left++
		case werr != nil:
			t.Errorf("%s: the streaming path fails (%v), the direct path answers %v", path, werr, err)
		case err != nil:
			t.Errorf("%s: the direct path fails: %v", path, err)
		case !bytes.Equal(got, want):
			t.Errorf("%s: the direct path wrote another dump than the streaming path", path)
		default:
			same++
		}
	}
	t.Logf("%d dumps redacted alike by both paths, %d left to the streaming path", same, left)
	if same < 40 || left > 2 {
		t.Errorf("%d dumps redacted alike by both paths and %d left to the streaming path, want most of the corpus's and testdata's 47 binary dumps alike", same, left)
	}
}
