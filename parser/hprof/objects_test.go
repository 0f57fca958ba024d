package hprof_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// streamedObject is an object record as the streaming Reader gives it:
// the record and its payload.
type streamedObject struct {
	rec     hprof.Record
	payload []byte
}

// streamObjects reads the dump at path with a Reader and returns every
// step-th object record (instances, arrays, classes) with its payload,
// the reader's header and the file's gzip checkpoints.
func streamObjects(t *testing.T, path string, step int) ([]streamedObject, hprof.Header, *input.File) {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := hprof.NewReader(f, hprof.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	var out []streamedObject
	n := 0
	for r.Next() {
		rec := r.Record()
		if rec.ObjectID() == 0 {
			continue
		}
		if n++; (n-1)%step != 0 {
			continue
		}
		o := streamedObject{rec: *rec}
		if rec.Sub != hprof.SubClassDump {
			if err := r.PayloadChunks(func(b []byte) error { o.payload = append(o.payload, b...); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, o)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no object records", path)
	}
	return out, r.Header(), f
}

// TestObjectReaderMatchesStream decodes objects at their record offsets,
// in a plain dump and in the JVM's multi-member -gz dump, and compares
// each with the record the streaming Reader gave for it: the same
// record, the same payload bytes.
func TestObjectReaderMatchesStream(t *testing.T) {
	jvm := filepath.Join("..", "..", "testdata", "jvm")
	for _, path := range []string{testshared.Gunzip(t, filepath.Join(jvm, "jdk17-default.hprof.gz")), filepath.Join(jvm, "jdk17-gz.hprof.gz")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, hdr, f := streamObjects(t, path, 37)
			o := hprof.ObjectReaderOptions{Header: hdr, Compression: f.Compression, Checkpoints: f.Checkpoints()}
			if !o.RandomAccess() {
				t.Fatalf("%s (%s, %d checkpoints) allows no random access", path, f.Compression, len(o.Checkpoints))
			}
			stored, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer stored.Close()
			st, err := stored.Stat()
			if err != nil {
				t.Fatal(err)
			}
			r, err := hprof.NewObjectReader(stored, st.Size(), o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Plain() != (f.Compression == input.Plain) {
				t.Errorf("Plain() = %v for a %s file", r.Plain(), f.Compression)
			}
			readThrough(t, r, want)
		})
	}
}

// TestObjectCursorMatchesStream reads objects through cursors, in the
// plain dump and the JVM's -gz dump: every object in the order of their
// offsets, every seventh from the last to the first (each read goes
// back, so the cursor decompresses again what it no longer keeps), and
// a few after the last gzip checkpoint with a cursor that may keep only a
// KiB past it (it streams them instead); each equals the record and
// payload the streaming Reader gave.
func TestObjectCursorMatchesStream(t *testing.T) {
	jvm := filepath.Join("..", "..", "testdata", "jvm")
	for _, path := range []string{testshared.Gunzip(t, filepath.Join(jvm, "jdk17-default.hprof.gz")), filepath.Join(jvm, "jdk17-gz.hprof.gz")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			all, hdr, f := streamObjects(t, path, 1)
			o := hprof.ObjectReaderOptions{Header: hdr, Compression: f.Compression, Checkpoints: f.Checkpoints()}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := hprof.NewObjectReader(bytes.NewReader(data), int64(len(data)), o)
			if err != nil {
				t.Fatal(err)
			}
			var backwards []streamedObject
			for i := len(all) - 1; i >= 0; i -= 7 {
				backwards = append(backwards, all[i])
			}
			readThrough(t, r.Cursor(), all)
			readThrough(t, r.Cursor(), backwards)
			if f.Compression != input.Gzip {
				return
			}
			// The file's last member holds no object: without its
			// checkpoint, the member before it is a long tail.
			o.Checkpoints = o.Checkpoints[:len(o.Checkpoints)-1]
			if r, err = hprof.NewObjectReader(bytes.NewReader(data), int64(len(data)), o); err != nil {
				t.Fatal(err)
			}
			var tail []streamedObject
			for _, w := range all {
				if w.rec.Offset >= o.Checkpoints[len(o.Checkpoints)-1].Offset {
					tail = append(tail, w)
				}
			}
			if len(tail) < 4 {
				t.Fatalf("%d objects after the checkpoint of member %d", len(tail), len(o.Checkpoints))
			}
			defer hprof.SetKeptTail(1 << 10)()
			readThrough(t, r.Cursor(), append(tail[:3:3], tail[len(tail)-1]))
		})
	}
}

// objectReading is what reads objects at their record offsets: an
// ObjectReader or an ObjectCursor.
type objectReading interface {
	ReadObject(off int64, id uint64, fn func(hprof.Source, *hprof.Record) error) error
}

// readThrough reads each of want through r and compares it with the
// streamed record and payload.
func readThrough(t *testing.T, r objectReading, want []streamedObject) {
	t.Helper()
	for _, w := range want {
		err := r.ReadObject(w.rec.Offset, w.rec.ObjectID(), func(src hprof.Source, rec *hprof.Record) error {
			var payload []byte
			if rec.Sub != hprof.SubClassDump {
				if err := src.PayloadChunks(func(b []byte) error { payload = append(payload, b...); return nil }); err != nil {
					return err
				}
			}
			if rec.Sub != w.rec.Sub || rec.Offset != w.rec.Offset || !sameObject(rec, &w.rec) || !bytes.Equal(payload, w.payload) {
				t.Errorf("object 0x%x at offset %d: read at its offset a %s, streamed a %s, or they differ", w.rec.ObjectID(), w.rec.Offset, rec.Sub, w.rec.Sub)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sameObject reports whether the object records a and b, of one kind,
// say the same (a Record keeps the fields of other kinds from before).
func sameObject(a, b *hprof.Record) bool {
	switch a.Sub {
	case hprof.SubInstanceDump:
		return a.Instance == b.Instance
	case hprof.SubObjArrayDump:
		return a.ObjArray == b.ObjArray
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		return a.PrimArray == b.PrimArray
	case hprof.SubClassDump:
		return a.Class.ID == b.Class.ID && a.Class.SuperID == b.Class.SuperID && a.Class.InstanceSize == b.Class.InstanceSize &&
			len(a.Class.Fields) == len(b.Class.Fields) && len(a.Class.Statics) == len(b.Class.Statics)
	}
	return false
}

// TestObjectReaderChangedDump: an offset where another object's record
// lies, or past the end of the file, is a dump that changed since the
// offsets were taken: the error wraps input.ErrChanged.
func TestObjectReaderChangedDump(t *testing.T) {
	path := testshared.Gunzip(t, filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz"))
	objs, hdr, _ := streamObjects(t, path, 1000)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hprof.NewObjectReader(bytes.NewReader(data), int64(len(data)), hprof.ObjectReaderOptions{Header: hdr, Compression: input.Plain})
	if err != nil {
		t.Fatal(err)
	}
	called := func(hprof.Source, *hprof.Record) error { t.Error("fn called for the wrong object"); return nil }
	a, b := objs[0].rec, objs[1].rec
	err = r.ReadObject(a.Offset, b.ObjectID(), called)
	if !errors.Is(err, input.ErrChanged) || !strings.Contains(err.Error(), "the dump changed since it was indexed") || !strings.Contains(err.Error(), "is not it") {
		t.Errorf("another object's offset: %v", err)
	}
	err = r.ReadObject(int64(len(data))+10, a.ObjectID(), called)
	if !errors.Is(err, input.ErrChanged) || !strings.Contains(err.Error(), "lies outside the dump") || !strings.Contains(err.Error(), "the dump changed since it was indexed") {
		t.Errorf("an offset past the end: %v", err)
	}
}

// TestObjectReaderStreamOnly: a gzip file of one member, or a bzip2 file,
// can only be streamed; a plain file and the JVM's members 1 MiB apart can
// be read at offsets, members more than 64 MiB apart cannot.
func TestObjectReaderStreamOnly(t *testing.T) {
	hdr := hprof.Header{Version: "1.0.2", IDSize: 8}
	dense := []input.Checkpoint{{Stored: 0, Offset: 0}, {Stored: 100, Offset: 1 << 20}}
	sparse := []input.Checkpoint{{Stored: 0, Offset: 0}, {Stored: 100, Offset: 65<<20 + 1}}
	for _, tc := range []struct {
		name string
		o    hprof.ObjectReaderOptions
		want bool
	}{
		{"plain", hprof.ObjectReaderOptions{Header: hdr, Compression: input.Plain}, true},
		{"gzip of many members", hprof.ObjectReaderOptions{Header: hdr, Compression: input.Gzip, Checkpoints: dense}, true},
		{"gzip of one member", hprof.ObjectReaderOptions{Header: hdr, Compression: input.Gzip, Checkpoints: dense[:1]}, false},
		{"gzip of members far apart", hprof.ObjectReaderOptions{Header: hdr, Compression: input.Gzip, Checkpoints: sparse}, false},
		{"bzip2", hprof.ObjectReaderOptions{Header: hdr, Compression: input.Bzip2}, false},
	} {
		if got := tc.o.RandomAccess(); got != tc.want {
			t.Errorf("%s: RandomAccess() = %v, want %v", tc.name, got, tc.want)
		}
		_, err := hprof.NewObjectReader(bytes.NewReader(nil), 0, tc.o)
		if got := !errors.Is(err, hprof.ErrNoRandomAccess); got != tc.want {
			t.Errorf("%s: NewObjectReader: %v", tc.name, err)
		}
	}
}
