package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testID is the identity the tests write and ask for.
var testID = Identity{
	Content: 7,
	Dump:    Fingerprint{Size: 2_300_000_000, ModTime: 1_700_000_000_123_456_789, Sample: [32]byte{1, 2, 3, 31: 0xEE}},
}

// classIndex stands for the integer types a caller defines.
type classIndex int32

// sampleMeta is the JSON blob of the sample index.
type sampleMeta struct {
	Objects int64    `json:"objects"`
	Name    string   `json:"name"`
	Roots   []string `json:"roots"`
}

// sampleMetaJSON is the sample's meta as JSON text.
const sampleMetaJSON = `{"objects":40000000,"name":"heap.hprof","roots":["JNI global","thread"]}`

// sample is the content of the sample index: one section of every kind,
// edge values, empty sections and a chunked one.
type sample struct {
	u8      []uint8
	u16     []uint16
	u32     []uint32
	u64     []uint64
	i8      []int8
	i16     []int16
	i32     []int32
	i64     []int64
	class   []classIndex
	empty   []uint64
	chunked []uint32
	names   []string
	none    []string
	// vouch has the writer vouch for the index (Writer.Vouch).
	vouch bool
	blob  []byte
	meta  sampleMeta
}

func newSample() sample {
	s := sample{
		u8:    []uint8{0, 1, 0x7F, 0x80, 0xFF},
		u16:   []uint16{0, 1, 0x1234, 0xFFFF},
		u32:   []uint32{0, 1, 0xDEADBEEF, math.MaxUint32},
		u64:   []uint64{0, 1, 0x0102030405060708, 1 << 63, math.MaxUint64},
		i8:    []int8{math.MinInt8, -1, 0, 1, math.MaxInt8},
		i16:   []int16{math.MinInt16, -1, 0, 1, math.MaxInt16},
		i32:   []int32{math.MinInt32, -1, 0, 1, math.MaxInt32},
		i64:   []int64{math.MinInt64, -1, 0, 1, math.MaxInt64},
		class: []classIndex{3, -1, 0, 1 << 30},
		empty: []uint64{},
		names: []string{"", "java.lang.String", "日本語の文字列", "", strings.Repeat("x", 1000), "\x00\xff"},
		none:  []string{},
		blob:  []byte("123456789"),
		meta:  sampleMeta{Objects: 40_000_000, Name: "heap.hprof", Roots: []string{"JNI global", "thread"}},
	}
	for i := range 3000 {
		s.chunked = append(s.chunked, uint32(i*7+1))
	}
	return s
}

// write writes s as an index at path.
func (s sample) write(t testing.TB, path string, id Identity) {
	t.Helper()
	w, err := Create(path, id, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(WriteArray(w, "u8", s.u8))
	check(WriteArray(w, "u16", s.u16))
	check(WriteArray(w, "u32", s.u32))
	check(WriteArray(w, "u64", s.u64))
	check(WriteArray(w, "i8", s.i8))
	check(WriteArray(w, "i16", s.i16))
	check(WriteArray(w, "i32", s.i32))
	check(WriteArray(w, "i64", s.i64))
	check(WriteArray(w, "class", s.class))
	check(WriteArray(w, "empty", s.empty))
	a, err := NewArray[uint32](w, "chunked")
	check(err)
	check(a.Append(s.chunked[:1000]))
	check(a.Append(nil))
	check(a.Append(s.chunked[1000:2999]))
	check(a.Append(s.chunked[2999:]))
	check(a.Close())
	check(w.WriteStrings("names", s.names))
	check(w.WriteStrings("none", s.none))
	check(w.WriteBlob("blob", s.blob))
	check(w.WriteJSON("meta", s.meta))
	if s.vouch {
		w.Vouch()
	}
	check(w.Commit())
}

// wantSections lists the sample's sections as Sections must describe them.
func (s sample) wantSections() []SectionInfo {
	namesBytes := 0
	for _, n := range s.names {
		namesBytes += len(n)
	}
	pad4 := func(n int) uint64 { return uint64((n + 3) &^ 3) }
	return []SectionInfo{
		{Name: "u8", Kind: KindUint8, Count: 5, Bytes: 5},
		{Name: "u16", Kind: KindUint16, Count: 4, Bytes: 8},
		{Name: "u32", Kind: KindUint32, Count: 4, Bytes: 16},
		{Name: "u64", Kind: KindUint64, Count: 5, Bytes: 40},
		{Name: "i8", Kind: KindInt8, Count: 5, Bytes: 5},
		{Name: "i16", Kind: KindInt16, Count: 5, Bytes: 10},
		{Name: "i32", Kind: KindInt32, Count: 5, Bytes: 20},
		{Name: "i64", Kind: KindInt64, Count: 5, Bytes: 40},
		{Name: "class", Kind: KindInt32, Count: 4, Bytes: 16},
		{Name: "empty", Kind: KindUint64, Count: 0, Bytes: 0},
		{Name: "chunked", Kind: KindUint32, Count: 3000, Bytes: 12000},
		{Name: "names", Kind: KindStrings, Count: 6, Bytes: pad4(namesBytes) + 7*4},
		{Name: "none", Kind: KindStrings, Count: 0, Bytes: 4},
		{Name: "blob", Kind: KindBlob, Count: 9, Bytes: 9},
		{Name: "meta", Kind: KindBlob, Count: uint64(len(sampleMetaJSON)), Bytes: uint64(len(sampleMetaJSON))},
	}
}

// mustArray reads an array section or fails the test.
func mustArray[T Integer](t *testing.T, ix *Index, name string) []T {
	t.Helper()
	v, err := Array[T](ix, name)
	if err != nil {
		t.Fatalf("Array(%q): %v", name, err)
	}
	return v
}

// check compares every section of ix with s.
func (s sample) check(t *testing.T, ix *Index) {
	t.Helper()
	eq := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("section %q = %v, want %v", name, got, want)
		}
	}
	eq("u8", mustArray[uint8](t, ix, "u8"), s.u8)
	eq("u16", mustArray[uint16](t, ix, "u16"), s.u16)
	eq("u32", mustArray[uint32](t, ix, "u32"), s.u32)
	eq("u64", mustArray[uint64](t, ix, "u64"), s.u64)
	eq("i8", mustArray[int8](t, ix, "i8"), s.i8)
	eq("i16", mustArray[int16](t, ix, "i16"), s.i16)
	eq("i32", mustArray[int32](t, ix, "i32"), s.i32)
	eq("i64", mustArray[int64](t, ix, "i64"), s.i64)
	eq("class", mustArray[classIndex](t, ix, "class"), s.class)
	eq("class as int32", mustArray[int32](t, ix, "class"), []int32{3, -1, 0, 1 << 30})
	eq("empty", mustArray[uint64](t, ix, "empty"), s.empty)
	eq("chunked", mustArray[uint32](t, ix, "chunked"), s.chunked)
	for _, name := range []string{"names", "none"} {
		st, err := ix.Strings(name)
		if err != nil {
			t.Fatalf("Strings(%q): %v", name, err)
		}
		got := []string{}
		for i := range st.Len() {
			got = append(got, st.At(i))
			if !bytes.Equal(st.Bytes(i), []byte(st.At(i))) {
				t.Errorf("%s: Bytes(%d) = %q, At(%d) = %q", name, i, st.Bytes(i), i, st.At(i))
			}
		}
		want := s.names
		if name == "none" {
			want = s.none
		}
		eq(name, got, want)
	}
	blob, err := ix.Blob("blob")
	if err != nil {
		t.Fatal(err)
	}
	eq("blob", blob, s.blob)
	var meta sampleMeta
	if err := ix.JSON("meta", &meta); err != nil {
		t.Fatal(err)
	}
	if raw, _ := ix.Blob("meta"); string(raw) != sampleMetaJSON {
		t.Errorf("meta blob %s, want %s", raw, sampleMetaJSON)
	}
	eq("meta", meta, s.meta)
	if kept, err := OptionalJSON[sampleMeta](ix, "meta"); err != nil || kept == nil || !reflect.DeepEqual(*kept, s.meta) {
		t.Errorf("OptionalJSON(meta) = %v, %v; want %v", kept, err, s.meta)
	}
	if absent, err := OptionalJSON[sampleMeta](ix, "no such section"); absent != nil || err != nil {
		t.Errorf("OptionalJSON of a missing section = %v, %v; want nil, nil", absent, err)
	}
	if _, err := OptionalJSON[sampleMeta](ix, "blob"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("OptionalJSON of a section that is not JSON: %v, want ErrCorrupt", err)
	}
	sections := ix.Sections()
	var next uint64
	for i := range sections {
		if sections[i].Offset < next || sections[i].Offset%64 != 0 {
			t.Errorf("section %s starts at %d, after the previous one ends at %d or unaligned", sections[i].Name, sections[i].Offset, next)
		}
		next = sections[i].Offset + sections[i].Bytes
		sections[i].Offset = 0
	}
	eq("Sections", sections, s.wantSections())
	eq("Identity", ix.Identity(), testID)
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.hprof"+Suffix)
	s := newSample()
	s.write(t, path, testID)
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Path() != path {
		t.Errorf("Path() = %q, want %q", ix.Path(), path)
	}
	s.check(t, ix)
	// Reading again returns the same data without checking again.
	s.check(t, ix)
	if err := ix.Verify(); err != nil {
		t.Errorf("Verify: %v", err)
	}
	info, ok := ix.Section("chunked")
	info.Offset = 0
	if want := (SectionInfo{Name: "chunked", Kind: KindUint32, Count: 3000, Bytes: 12000}); !ok || info != want {
		t.Errorf("Section(chunked) = %+v, %v; want %+v, true", info, ok, want)
	}
	if _, ok := ix.Section("absent"); ok {
		t.Error("Section(absent) reports a section")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Array[uint8](ix, "u8"); !errors.Is(err, errIndexClosed) {
		t.Errorf("Array after Close: %v, want %v", err, errIndexClosed)
	}
}

// TestRoundTripConverting writes and reads through the converting code
// that big-endian machines use, and checks that it writes the same bytes
// as the in-place code.
func TestRoundTripConverting(t *testing.T) {
	dir := t.TempDir()
	s := newSample()
	native := filepath.Join(dir, "native")
	s.write(t, native, testID)
	nativeLittleEndian = false
	defer func() { nativeLittleEndian = true }()
	converted := filepath.Join(dir, "converted")
	s.write(t, converted, testID)
	a, _ := os.ReadFile(native)
	b, _ := os.ReadFile(converted)
	if !bytes.Equal(a, b) {
		t.Fatal("the converting writer wrote other bytes than the in-place one")
	}
	ix, err := Open(converted, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	s.check(t, ix)
}

// TestWideStringOffsets writes a string table with 8-byte offsets, which
// tables of 4 GiB or more of strings use.
func TestWideStringOffsets(t *testing.T) {
	defer func(old uint64) { wideOffsetsAbove = old }(wideOffsetsAbove)
	wideOffsetsAbove = 10
	path := filepath.Join(t.TempDir(), "wide")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	want := []string{"abc", "", "defghijk", "l"}
	if err := w.WriteStrings("s", want); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	// 12 bytes of strings padded to 16, then 5 offsets of 8 bytes.
	if got := raw[headerSize : headerSize+16+40]; !bytes.Equal(got[:16], []byte("abcdefghijkl\x00\x00\x00\x00")) ||
		binary.LittleEndian.Uint64(got[16+8*2:]) != 3 || binary.LittleEndian.Uint64(got[16+8*4:]) != 12 {
		t.Errorf("section bytes %x", got)
	}
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if info, _ := ix.Section("s"); info.Bytes != 56 || info.Count != 4 {
		t.Errorf("Section(s) = %+v, want 56 bytes, 4 strings", info)
	}
	st, err := ix.Strings("s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range st.Len() {
		got = append(got, st.At(i))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("strings %q, want %q", got, want)
	}
}

// TestLayout checks the bytes of a one-section index against
// docs/index-format.md, and its checksum against the CRC-32C check value
// of "123456789" (docs/index-format.md#checksums).
func TestLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteBlob("blob", []byte("123456789")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le32 := func(off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
	le64 := func(off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }
	checks := []struct {
		what      string
		got, want uint64
	}{
		{"file size", uint64(len(b)), 256},
		{"format version", uint64(le32(16)), 1},
		{"content version", uint64(le32(20)), 7},
		{"file size field", le64(24), 256},
		{"table offset", le64(32), 192},
		{"sections", uint64(le32(40)), 1},
		{"dump size", le64(48), 2_300_000_000},
		{"dump mtime", le64(56), 1_700_000_000_123_456_789},
		{"entry offset", le64(192 + 32), 128},
		{"entry length", le64(192 + 40), 9},
		{"entry count", le64(192 + 48), 9},
		{"entry checksum", uint64(le32(192 + 56)), 0xE3069283},
		{"entry kind", uint64(b[192+60]), 10},
		{"entry element size", uint64(b[192+61]), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
	if string(b[:16]) != "hprofctl-index\n\x00" {
		t.Errorf("magic %q", b[:16])
	}
	if b[64] != 1 || b[65] != 2 || b[66] != 3 || b[95] != 0xEE || !allZero(b[96:124]) {
		t.Errorf("sample hash or reserved bytes: %x", b[64:124])
	}
	if string(b[128:137]) != "123456789" || !allZero(b[137:192]) {
		t.Errorf("section and padding: %q", b[128:192])
	}
	if string(b[192:196]) != "blob" || !allZero(b[196:224]) || !allZero(b[254:256]) {
		t.Errorf("entry name or reserved bytes: %q", b[192:256])
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		write func(w *Writer) error
		want  string
	}{
		{"empty name", func(w *Writer) error { return w.WriteBlob("", nil) }, `section name ""`},
		{"long name", func(w *Writer) error { return w.WriteBlob(strings.Repeat("n", 33), nil) }, "want 1 to 32"},
		{"bad character", func(w *Writer) error { return w.WriteBlob("a b", nil) }, `section name "a b"`},
		{"twice", func(w *Writer) error {
			w.WriteBlob("a", nil)
			return w.WriteBlob("a", nil)
		}, `section "a" written twice`},
		{"nested", func(w *Writer) error {
			NewArray[uint8](w, "outer")
			return w.WriteBlob("inner", nil)
		}, `section "inner" begun while section "outer" is open`},
		{"append after close", func(w *Writer) error {
			a, _ := NewArray[uint8](w, "a")
			a.Close()
			return a.Append([]uint8{1})
		}, `section "a" written after it was closed`},
		{"commit while open", func(w *Writer) error {
			w.NewStrings("s")
			return w.Commit()
		}, `commit while section "s" is open`},
		{"not JSON", func(w *Writer) error { return w.WriteJSON("j", func() {}) }, "unsupported type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			w, err := Create(path, testID, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			err = c.write(w)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			// The error sticks: nothing more is written, Commit fails.
			if err := w.WriteBlob("later", nil); err == nil {
				t.Error("a write after an error succeeded")
			}
			if err := w.Commit(); err == nil {
				t.Error("Commit after an error succeeded")
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("final file: %v, want none", err)
			}
			assertNoTemp(t, dir)
		})
	}
}

func TestAbortAndCommitOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(w, "a", []uint64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("aborted index exists: %v", err)
	}
	assertNoTemp(t, dir)
	if err := w.Commit(); !errors.Is(err, errClosed) {
		t.Errorf("Commit after Abort: %v, want %v", err, errClosed)
	}

	w, err = Create(path, testID, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if w.Path() != path {
		t.Errorf("Path() = %q, want %q", w.Path(), path)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Abort() // after Commit: does nothing
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 || st.Size() != headerSize {
		t.Errorf("committed index: mode %v, %d bytes; want -rw-r----- and %d bytes", st.Mode(), st.Size(), headerSize)
	}
	if err := w.Commit(); !errors.Is(err, errClosed) {
		t.Errorf("second Commit: %v, want %v", err, errClosed)
	}
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if len(ix.Sections()) != 0 {
		t.Errorf("sections %v, want none", ix.Sections())
	}
}

// assertNoTemp fails when dir holds a Writer's temporary file.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), tempSuffix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// readAll reads every section of ix by its kind and every element of it,
// as a command would, and returns the first error.
func readAll(ix *Index) error {
	var sum uint64
	for _, s := range ix.Sections() {
		var err error
		switch s.Kind {
		case KindUint8:
			sum, err = touch[uint8](ix, s.Name, sum)
		case KindUint16:
			sum, err = touch[uint16](ix, s.Name, sum)
		case KindUint32:
			sum, err = touch[uint32](ix, s.Name, sum)
		case KindUint64:
			sum, err = touch[uint64](ix, s.Name, sum)
		case KindInt8:
			sum, err = touch[int8](ix, s.Name, sum)
		case KindInt16:
			sum, err = touch[int16](ix, s.Name, sum)
		case KindInt32:
			sum, err = touch[int32](ix, s.Name, sum)
		case KindInt64:
			sum, err = touch[int64](ix, s.Name, sum)
		case KindStrings:
			var st Strings
			st, err = ix.Strings(s.Name)
			if err == nil && uint64(st.Len()) != s.Count {
				err = fmt.Errorf("section %q: %d strings, the table says %d", s.Name, st.Len(), s.Count)
			}
			for i := range st.Len() {
				sum += uint64(len(st.At(i)))
			}
		case KindBlob:
			var b []byte
			b, err = ix.Blob(s.Name)
			if err == nil && uint64(len(b)) != s.Count {
				err = fmt.Errorf("section %q: %d bytes, the table says %d", s.Name, len(b), s.Count)
			}
			for _, c := range b {
				sum += uint64(c)
			}
		default:
			err = fmt.Errorf("section %q of unknown kind %v opened", s.Name, s.Kind)
		}
		if err != nil {
			return err
		}
	}
	readSink += sum
	return nil
}

// readSink keeps readAll's reads from being optimized away.
var readSink uint64

// touch reads every element of array section name.
func touch[T Integer](ix *Index, name string, sum uint64) (uint64, error) {
	v, err := Array[T](ix, name)
	if err != nil {
		return sum, err
	}
	if info, _ := ix.Section(name); uint64(len(v)) != info.Count {
		return sum, fmt.Errorf("section %q: %d elements, the table says %d", name, len(v), info.Count)
	}
	for _, x := range v {
		sum += uint64(x)
	}
	return sum, nil
}

// TestStartWriteback: starting the writeback between sections, and in
// the middle of one, leaves the file byte for byte as written without
// it; after Commit or Abort it is the closed writer's error.
func TestStartWriteback(t *testing.T) {
	write := func(path string, writeback bool) *Writer {
		w, err := Create(path, testID, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		maybe := func() {
			if writeback {
				if err := w.StartWriteback(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := WriteArray(w, "ids", []uint64{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		maybe()
		a, err := NewArray[uint32](w, "counts")
		if err != nil {
			t.Fatal(err)
		}
		a.Append([]uint32{7, 8})
		maybe()
		a.Append([]uint32{9})
		if err := errors.Join(a.Close(), w.WriteBlob("note", []byte("the end"))); err != nil {
			t.Fatal(err)
		}
		maybe()
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	dir := t.TempDir()
	plain, started := filepath.Join(dir, "plain"+Suffix), filepath.Join(dir, "started"+Suffix)
	write(plain, false)
	w := write(started, true)
	a, errA := os.ReadFile(plain)
	b, errB := os.ReadFile(started)
	if err := errors.Join(errA, errB); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the index written with the writeback started differs: %d bytes, want %d", len(b), len(a))
	}
	if err := w.StartWriteback(); !errors.Is(err, errClosed) {
		t.Errorf("after Commit: %v, want %v", err, errClosed)
	}
	ix, err := Open(started, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got, err := Array[uint32](ix, "counts"); err != nil || !reflect.DeepEqual(got, []uint32{7, 8, 9}) {
		t.Errorf("counts %v (%v), want [7 8 9]", got, err)
	}
}
