package model

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestEachValuesMatchesReadValues reads every object of the fixture.Inspect
// dumps with EachValues, from the committed gzip (streamed) and from a
// plain copy (spans at offsets), and compares each with what the record
// parser gives for it through ReadValues: the same fields, the same
// array length and element bytes, each object once, in offset order.
func TestEachValuesMatchesReadValues(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		gz := filepath.Join("..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
		plain := filepath.Join(t.TempDir(), jdk+".hprof")
		unzip(t, gz, plain)
		h, err := loadPath(t, plain)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]ObjectIndex, h.NumObjects())
		for i := range all {
			all[i] = ObjectIndex(i)
		}
		want, err := ReadValues(h, plain, all, ValueOptions{Elements: -1})
		if err != nil {
			t.Fatal(err)
		}
		hgz, err := loadPath(t, gz)
		if err != nil {
			t.Fatal(err)
		}
		for path, h := range map[string]*Heap{gz: hgz, plain: h} {
			t.Run(jdk+"/"+filepath.Base(path), func(t *testing.T) {
				seen := map[ObjectIndex]bool{}
				last := int64(-1)
				err := EachValues(h, path, all, func(obj ObjectIndex, v *ObjectValues) error {
					if seen[obj] {
						t.Fatalf("object 0x%x visited twice", h.ObjectID(obj))
					}
					seen[obj] = true
					w := want[obj]
					if _, isClass := h.ClassObjectOf(obj); !isClass {
						if off := h.recordOffset(obj); off < last {
							t.Fatalf("object 0x%x at %d visited after offset %d", h.ObjectID(obj), off, last)
						} else {
							last = off
						}
					}
					if v.Length != w.Length || v.Elem != w.Elem || len(v.Fields) != len(w.Fields) {
						t.Fatalf("object 0x%x: length %d elem %d %d fields, want %d %d %d", h.ObjectID(obj), v.Length, v.Elem, len(v.Fields), w.Length, w.Elem, len(w.Fields))
					}
					for k := range v.Fields {
						if v.Fields[k] != w.Fields[k] {
							t.Fatalf("object 0x%x field %d: %+v, want %+v", h.ObjectID(obj), k, v.Fields[k], w.Fields[k])
						}
					}
					if w.Length < 0 {
						return nil
					}
					if w.Elem != TypeObject {
						if !bytes.Equal(v.Data, w.Data) {
							t.Fatalf("array 0x%x: its data differs: %d %x, want %d %x", h.ObjectID(obj), len(v.Data), v.Data[:min(len(v.Data), 40)], len(w.Data), w.Data[:min(len(w.Data), 40)])
						}
						return nil
					}
					ids := h.Source.IDSize
					if len(v.Data) != len(w.Elements)*ids {
						t.Fatalf("array 0x%x: %d data bytes for %d elements", h.ObjectID(obj), len(v.Data), len(w.Elements))
					}
					for k, e := range w.Elements {
						if got := bigEndianBits(v.Data[k*ids : (k+1)*ids]); got != e.Bits {
							t.Fatalf("array 0x%x element %d: 0x%x, want 0x%x", h.ObjectID(obj), k, got, e.Bits)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(seen) != len(all) {
					t.Errorf("%d objects visited, want %d", len(seen), len(all))
				}
			})
		}
	}
}
