package graph

import (
	"testing"

	"github.com/hprofctl/hprofctl/model"
)

// TestShallowSizerMatchesHeap: the sizes shallowSizer works out once per
// class give every object the shallow size model.Heap.ShallowBytes gives
// it (which model/layout's corpus test checks against the JVM's own
// class histograms), in both size modes, on dumps of JVMs of several
// layouts: compressed and plain references, 16-byte alignment, compact
// object headers (JDK 25, whose array elements start unaligned), and an
// old agent's dump. Every kind of object is met: instances, arrays of
// each element type, class objects.
func TestShallowSizerMatchesHeap(t *testing.T) {
	for _, name := range []string{
		"jvm/jdk17-default.hprof.gz", "jvm/jdk17-nocoops-noccp.hprof.gz", "jvm/jdk17-align16.hprof.gz",
		"jvm/jdk25-coh.hprof.gz", "agent/heap-binary.hprof.gz",
	} {
		h := loadFixture(t, name)
		for _, mode := range []model.SizeMode{model.SizeJVM, model.SizeFields} {
			z := newShallowSizer(h, mode)
			n := h.NumObjects()
			own := make([]int64, 1000)
			kinds := map[string]bool{}
			for lo := 0; lo < n; lo += len(own) {
				hi := min(lo+len(own), n)
				z.fill(lo, hi, own)
				for i := lo; i < hi; i++ {
					obj := model.ObjectIndex(i)
					if want := h.ShallowBytes(obj, mode); own[i-lo] != want {
						t.Errorf("%s, mode %d: object %d (%s): %d bytes, want %d", name, mode, i, h.Classes[h.ClassOf(obj)].Name, own[i-lo], want)
					}
					cl := &h.Classes[h.ClassOf(obj)]
					switch {
					case cl.IsArray():
						kinds[cl.Name] = true
					case cl.Name == "java.lang.Class":
						kinds["class object"] = true
					default:
						kinds["instance"] = true
					}
				}
			}
			for _, k := range []string{"instance", "class object", "byte[]", "char[]", "int[]", "long[]", "java.lang.Object[]"} {
				if !kinds[k] {
					t.Errorf("%s: no object of kind %s met", name, k)
				}
			}
		}
	}
}
