package model

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestEachValuesMatchesReadValues reads every object of the fixture.Inspect
// dumps with EachValues, from the committed gzip (streamed) and from a
// plain copy (at offsets, on one goroutine and on several), and compares each with what the record parser gives for it
// through ReadValues: the same fields, the same array length and element
// bytes. The list names every object, some twice: each place of the list
// gets one call.
func TestEachValuesMatchesReadValues(t *testing.T) {
	defer func(m int) { minRange = m }(minRange)
	for _, jdk := range []string{"jdk17", "jdk25"} {
		gz := filepath.Join("..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
		plain := filepath.Join(t.TempDir(), jdk+".hprof")
		unzip(t, gz, plain)
		h, err := loadPath(t, plain)
		if err != nil {
			t.Fatal(err)
		}
		var all []ObjectIndex
		for i := range h.NumObjects() {
			all = append(all, ObjectIndex(i))
			if i%7 == 3 {
				all = append(all, ObjectIndex(i))
			}
		}
		want, err := ReadValues(h, all, ValueOptions{Elements: -1})
		if err != nil {
			t.Fatal(err)
		}
		hgz, err := loadPath(t, gz)
		if err != nil {
			t.Fatal(err)
		}
		for _, way := range []struct {
			name     string
			h        *Heap
			minRange int
		}{
			{"gzip", hgz, 1 << 40},
			{"plain", h, 1 << 40},
			{"plain-parallel", h, 1},
		} {
			t.Run(jdk+"/"+way.name, func(t *testing.T) {
				minRange = way.minRange
				calls := make([]atomic.Int32, len(all))
				err := EachValues(way.h, all, func(k int, v *ObjectValues) error {
					calls[k].Add(1)
					return sameValues(way.h, all[k], v, want[all[k]])
				})
				if err != nil {
					t.Fatal(err)
				}
				for k := range calls {
					if n := calls[k].Load(); n != 1 {
						t.Fatalf("place %d (object 0x%x): %d calls, want 1", k, h.ObjectID(all[k]), n)
					}
				}
			})
		}
	}
}

// sameValues says how v, what EachValues gives for obj, differs from w,
// what ReadValues gives.
func sameValues(h *Heap, obj ObjectIndex, v, w *ObjectValues) error {
	if v.Length != w.Length || v.Elem != w.Elem || len(v.Fields) != len(w.Fields) {
		return fmt.Errorf("object 0x%x: length %d elem %d %d fields, want %d %d %d", h.ObjectID(obj), v.Length, v.Elem, len(v.Fields), w.Length, w.Elem, len(w.Fields))
	}
	for k := range v.Fields {
		if v.Fields[k] != w.Fields[k] {
			return fmt.Errorf("object 0x%x field %d: %+v, want %+v", h.ObjectID(obj), k, v.Fields[k], w.Fields[k])
		}
	}
	if w.Length < 0 {
		return nil
	}
	if w.Elem != TypeObject {
		if !bytes.Equal(v.Data, w.Data) {
			return fmt.Errorf("array 0x%x: its data differs: %d %x, want %d %x", h.ObjectID(obj), len(v.Data), v.Data[:min(len(v.Data), 40)], len(w.Data), w.Data[:min(len(w.Data), 40)])
		}
		return nil
	}
	ids := h.Source.IDSize
	if len(v.Data) != len(w.Elements)*ids {
		return fmt.Errorf("array 0x%x: %d data bytes for %d elements", h.ObjectID(obj), len(v.Data), len(w.Elements))
	}
	for k, e := range w.Elements {
		if got := bigEndianBits(v.Data[k*ids : (k+1)*ids]); got != e.Bits {
			return fmt.Errorf("array 0x%x element %d: 0x%x, want 0x%x", h.ObjectID(obj), k, got, e.Bits)
		}
	}
	return nil
}
