package dumpfile_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
)

// load loads the dump at path with its objects and attaches its reader.
func load(t *testing.T, path string) *model.Heap {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	dumpfile.Attach(h, path)
	return h
}

// gunzip decompresses the gzip file src into a temporary file.
func gunzip(t *testing.T, src string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	z, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plain.hprof")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	return path
}

// sample is every 53rd object of h.
func sample(h *model.Heap) []model.ObjectIndex {
	var objs []model.ObjectIndex
	for i := 0; i < h.NumObjects(); i += 53 {
		objs = append(objs, model.ObjectIndex(i))
	}
	return objs
}

// TestFileReadsEveryWay reads the values and labels of the same objects
// of one dump from a plain file (at offsets), from the JVM's -gz file of
// the same heap (at offsets, from the gzip members) and from a gzip file
// of one member (streamed): all the same.
func TestFileReadsEveryWay(t *testing.T) {
	jvm := filepath.Join("..", "..", "testdata", "jvm")
	gz := filepath.Join(jvm, "jdk17-inspect-before.hprof.gz")
	plain := load(t, gunzip(t, gz))
	objs := sample(plain)
	want, err := model.ReadValues(plain, objs, model.ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	wantLabels, err := model.ReadLabels(plain, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || len(wantLabels) == 0 {
		t.Fatal("no values or labels read from the plain file")
	}
	streamed := load(t, gz)
	got, err := model.ReadValues(streamed, objs, model.ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	labels, err := model.ReadLabels(streamed, objs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(labels, wantLabels) {
		t.Errorf("values or labels streamed from %s differ from those read at offsets", gz)
	}
	members := load(t, filepath.Join(jvm, "jdk17-gz.hprof.gz"))
	mobjs := sample(members)
	if _, err := model.ReadLabels(members, mobjs); err != nil {
		t.Errorf("labels from the gzip members: %v", err)
	}
}
