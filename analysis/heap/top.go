package heap

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// The groupings of TopConsumers.
const (
	ByClass       = "class"
	ByClassLoader = "classloader"
	ByPackage     = "package"
)

// Names of the groups that are no class, loader or package.
const (
	// BootstrapLoader is the loader of the classes the JVM itself
	// defined (loader id 0).
	BootstrapLoader = "<bootstrap>"
	// PrimitiveArrays groups the arrays of primitives (and arrays of
	// such arrays), which belong to no package.
	PrimitiveArrays = "<primitive arrays>"
	// DefaultPackage groups the classes declared outside any package.
	DefaultPackage = "<default package>"
	// UnknownClass groups the objects whose class the dump lacks.
	UnknownClass = "<unknown class>"
)

// TopOptions choose the grouping and the rows of TopConsumers.
type TopOptions struct {
	// By is ByClass (default), ByClassLoader or ByPackage.
	By string
	// Top keeps the Top groups that retain most; 0 keeps all.
	Top int
	// Heaps selects the Android heaps whose objects are grouped: the
	// selected objects no other selected object dominates.
	Heaps model.HeapSelection
}

// Check says whether the grouping is one TopConsumers knows.
func (o TopOptions) Check() error {
	switch o.By {
	case "", ByClass, ByClassLoader, ByPackage:
		return nil
	}
	return fmt.Errorf("unknown grouping %q: expected class, classloader or package", o.By)
}

// TopConsumerRow is one group of top-level dominators.
type TopConsumerRow struct {
	Name string `json:"name"`
	// Objects counts the group's top-level dominators.
	Objects       int64   `json:"objects"`
	RetainedBytes int64   `json:"retained_bytes"`
	Percent       float64 `json:"percent"`
}

// TopConsumerReport is the result of TopConsumers.
type TopConsumerReport struct {
	By   string
	Rows []TopConsumerRow
	// Groups counts the groups before Top cut the list.
	Groups int
	// TotalBytes is the reachable heap (the virtual root's retained
	// size) the percentages are shares of, or with some heaps selected
	// what their top objects retain; TopLevelObjects counts the objects
	// the virtual root (or the selection's top) immediately dominates.
	TotalBytes      int64
	TopLevelObjects int64
	KeptUnreachable bool
	// Unreachable is what no GC root reaches, of the whole dump.
	Unreachable Unreachable
}

// TopConsumers groups the objects at the top of the dominator tree (those
// only the virtual root dominates, whose retained sizes add up to the
// reachable heap) by class, by class loader or by package, as Eclipse
// MAT's Top Consumers does, biggest retained size first:
//
//   - by class, a class object counts as an instance of java.lang.Class
//     (as in MAT and the leak suspects);
//   - by class loader, an object counts under the loader of its class, a
//     class object under the loader of the class it stands for; a loader
//     is named by its class and id ("<bootstrap>" for the JVM's own);
//   - by package, an object counts under the package of its class, a
//     class object under the package of the class it stands for (MAT's
//     package tree does the same), an array under that of its element
//     class; arrays of primitives and classes outside any package have
//     groups of their own. Packages are not nested: java.util and
//     java.util.concurrent are two rows.
func TopConsumers(h *model.Heap, r *graph.Retention, o TopOptions) (TopConsumerReport, error) {
	if err := o.Check(); err != nil {
		return TopConsumerReport{}, err
	}
	by := o.By
	if by == "" {
		by = ByClass
	}
	out := TopConsumerReport{By: by, TotalBytes: r.ReachableBytes(), KeptUnreachable: r.KeptUnreachable, Unreachable: UnreachableOf(r),
		Rows: []TopConsumerRow{}}
	var name func(model.ObjectIndex) string
	switch by {
	case ByClass:
		classClass := h.ClassClass()
		name = groupNames(h, func(obj model.ObjectIndex) (model.ClassIndex, bool) {
			if graph.IsClassObject(h, obj) {
				return classClass, true
			}
			return h.ClassOf(obj), false
		}, func(c model.ClassIndex) string { return h.Classes[c].Name })
	case ByClassLoader:
		name = groupNames(h, ownClass(h), func(c model.ClassIndex) string { return loaderName(h, h.Classes[c].Loader) })
	case ByPackage:
		name = groupNames(h, ownClass(h), func(c model.ClassIndex) string { return PackageOf(h.Classes[c].Name) })
	}
	index := map[string]int{}
	tops := r.EachTopLevel
	if !o.Heaps.All() {
		selected := r.TopLevelIn(o.Heaps)
		tops = slices.Values(selected)
		out.TotalBytes = r.RetainedTotal(selected)
	}
	for obj := range tops {
		out.TopLevelObjects++
		n := name(obj)
		k, ok := index[n]
		if !ok {
			k = len(out.Rows)
			index[n] = k
			out.Rows = append(out.Rows, TopConsumerRow{Name: n})
		}
		out.Rows[k].Objects++
		out.Rows[k].RetainedBytes += r.RetainedBytes(obj)
	}
	rows := out.Rows
	for i := range rows {
		if out.TotalBytes > 0 {
			rows[i].Percent = 100 * float64(rows[i].RetainedBytes) / float64(out.TotalBytes)
		}
	}
	sort.Slice(rows, func(a, b int) bool {
		if rows[a].RetainedBytes != rows[b].RetainedBytes {
			return rows[a].RetainedBytes > rows[b].RetainedBytes
		}
		return rows[a].Name < rows[b].Name
	})
	out.Groups = len(rows)
	if o.Top > 0 && len(rows) > o.Top {
		out.Rows = rows[:o.Top]
	}
	return out, nil
}

// ownClass is the class an object counts under by loader and by package:
// its class, or for a class object the class it stands for.
func ownClass(h *model.Heap) func(model.ObjectIndex) (model.ClassIndex, bool) {
	return func(obj model.ObjectIndex) (model.ClassIndex, bool) {
		if c, ok := h.ClassObjectOf(obj); ok && h.Classes[c].Object == obj {
			return c, false
		}
		return h.ClassOf(obj), false
	}
}

// groupNames returns the function naming an object's group: classOf picks
// the class it counts under (mirror: a class object, which names its
// group "java.lang.Class" when the dump lacks that class) and groupOf
// names that class's group, once per class.
func groupNames(h *model.Heap, classOf func(model.ObjectIndex) (c model.ClassIndex, mirror bool), groupOf func(model.ClassIndex) string) func(model.ObjectIndex) string {
	names := make([]string, len(h.Classes))
	return func(obj model.ObjectIndex) string {
		c, mirror := classOf(obj)
		if c == model.NoClass {
			if mirror {
				return "java.lang.Class"
			}
			return UnknownClass
		}
		if names[c] == "" {
			names[c] = groupOf(c)
		}
		return names[c]
	}
}

// loaderName names a class loader by its id: its class and id, as the
// dump's class of that object names it.
func loaderName(h *model.Heap, id uint64) string {
	if id == 0 {
		return BootstrapLoader
	}
	class := "<loader not in the dump>"
	if i, ok := h.Lookup(id); ok {
		class = ClassName(h, i)
	}
	return fmt.Sprintf("%s @ 0x%x", class, id)
}

// primitiveTypes are the Java names of the primitive types.
var primitiveTypes = map[string]bool{
	"boolean": true, "byte": true, "char": true, "short": true,
	"int": true, "long": true, "float": true, "double": true,
}

// PackageOf is the package of the class with Java name name: what
// precedes its last dot, after any "[]" of an array class is taken off;
// PrimitiveArrays for arrays of primitives, DefaultPackage for a class
// outside any package.
func PackageOf(name string) string {
	elem := name
	for strings.HasSuffix(elem, "[]") {
		elem = strings.TrimSuffix(elem, "[]")
	}
	if elem != name && primitiveTypes[elem] {
		return PrimitiveArrays
	}
	if dot := strings.LastIndexByte(elem, '.'); dot > 0 {
		return elem[:dot]
	}
	return DefaultPackage
}
