package redact

import (
	"fmt"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// DefaultKeep lists the primitive fields, as CLASS.FIELD with the class
// that declares the field, whose values hprofctl's analyses read and that
// tell nothing about the application's data: String's coder, count and
// offset (which part of the value array is the text), the size fields
// the collections view reads (a LinkedBlockingQueue keeps its size in an
// AtomicInteger, so every AtomicInteger's value is kept), the thread state the threads and deadlock
// views read, and the native size Android's NativeAllocationRegistry
// records.
var DefaultKeep = []string{
	"java.lang.String.coder",
	"java.lang.String.count",
	"java.lang.String.offset",
	"java.util.HashMap.size",
	"java.util.Hashtable.count",
	"java.util.WeakHashMap.size",
	"java.util.IdentityHashMap.size",
	"java.util.ArrayList.size",
	"java.util.Vector.elementCount",
	"java.util.PriorityQueue.size",
	"java.util.concurrent.PriorityBlockingQueue.size",
	"java.util.concurrent.ArrayBlockingQueue.count",
	"java.util.TreeMap.size",
	"java.util.LinkedList.size",
	"java.util.ArrayDeque.head",
	"java.util.ArrayDeque.tail",
	"java.util.concurrent.ConcurrentHashMap.baseCount",
	"java.util.concurrent.ConcurrentHashMap$CounterCell.value",
	"java.util.concurrent.ConcurrentHashMap$Segment.count",
	"java.lang.ThreadLocal$ThreadLocalMap.size",
	"java.util.ImmutableCollections$MapN.size",
	"java.util.ImmutableCollections$SetN.size",
	"java.util.EnumMap.size",
	"java.util.RegularEnumSet.elements",
	"java.util.JumboEnumSet.size",
	"java.util.concurrent.LinkedBlockingDeque.count",
	"java.util.concurrent.atomic.AtomicInteger.value",
	"java.util.ArrayList$SubList.size",
	"java.util.Collections$CopiesList.n",
	"java.lang.Thread.threadStatus",
	"java.lang.Thread.tid",
	"java.lang.Thread.daemon",
	"java.lang.Thread.priority",
	"java.lang.Thread$FieldHolder.threadStatus",
	"java.lang.Thread$FieldHolder.daemon",
	"java.lang.Thread$FieldHolder.priority",
	"libcore.util.NativeAllocationRegistry.size",
}

// fieldOp is one primitive field of an instance layout: where it is and
// whether its value is kept (keep >= 0, the index of its CLASS.FIELD in
// the plan's kept names) or replaced (keep < 0).
type fieldOp struct {
	off, size int
	t         hprof.Type
	keep      int
}

// layout is how the field bytes of an instance of one class are redacted:
// the primitive fields whose values are replaced and those kept, each in
// the order of their offsets.
type layout struct {
	ops   []fieldOp
	kept  []fieldOp
	size  int // bytes the class chain's fields take
	bytes int // bytes the replaced fields take
}

// cover is how many leading bytes of an instance's n field bytes the
// layout describes (up to the first primitive field cut short), and how
// many of the replaced values lie in them, with their bytes.
func (l *layout) cover(n int) (cover, values, bytes int) {
	if l != nil && n >= l.size {
		return l.size, len(l.ops), l.bytes
	}
	return l.coverCut(n)
}

// coverCut is cover of field bytes shorter than the layout, or of any
// without a layout.
func (l *layout) coverCut(n int) (cover, values, bytes int) {
	if l == nil {
		return 0, 0, 0
	}
	cover = n
	for _, ops := range [][]fieldOp{l.ops, l.kept} {
		for _, op := range ops {
			if op.off+op.size > n {
				cover = min(cover, op.off)
				break
			}
		}
	}
	for _, op := range l.ops {
		if op.off+op.size > cover {
			break
		}
		values++
		bytes += op.size
	}
	return cover, values, bytes
}

// plan is what the second pass needs: each class's layout and which
// statics are kept.
type plan struct {
	layouts map[uint64]*layout
	keep    map[string]int // CLASS.FIELD -> index into kept
	kept    []string
}

// parseKeep checks CLASS.FIELD names and numbers them.
func parseKeep(names []string) (map[string]int, []string, error) {
	keep := map[string]int{}
	var list []string
	for _, n := range names {
		dot := strings.LastIndexByte(n, '.')
		if dot <= 0 || dot == len(n)-1 {
			return nil, nil, fmt.Errorf("--keep-values %q: expected CLASS.FIELD, as java.util.HashMap.size", n)
		}
		if _, dup := keep[n]; !dup {
			keep[n] = len(list)
			list = append(list, n)
		}
	}
	return keep, list, nil
}

// makePlan lays out every class the first pass found.
func makePlan(s *scan, keepNames []string) (*plan, error) {
	keep, list, err := parseKeep(keepNames)
	if err != nil {
		return nil, err
	}
	p := &plan{layouts: make(map[uint64]*layout, len(s.classes)), keep: keep, kept: list}
	for id := range s.classes {
		p.layouts[id] = p.layoutOf(s, id)
	}
	return p, nil
}

// keepIndex is the index of CLASS.FIELD among the kept names, -1 when its
// value is replaced.
func (p *plan) keepIndex(s *scan, class uint64, nameID uint64) int {
	if k, ok := p.keep[s.className(class)+"."+s.utf8[nameID]]; ok {
		return k
	}
	return -1
}

// layoutOf walks the class chain of class id: its own fields first, then
// its superclass's, as INSTANCE_DUMP records hold them.
func (p *plan) layoutOf(s *scan, id uint64) *layout {
	l := &layout{}
	seen := map[uint64]bool{}
	for c := id; c != 0 && !seen[c]; {
		seen[c] = true
		ci := s.classes[c]
		if ci == nil {
			break
		}
		for _, f := range ci.fields {
			op := fieldOp{off: l.size, size: f.Type.Size(s.header.IDSize), t: f.Type}
			l.size += op.size
			if f.Type == hprof.TypeObject {
				continue
			}
			if op.keep = p.keepIndex(s, c, f.NameID); op.keep >= 0 {
				l.kept = append(l.kept, op)
			} else {
				l.ops = append(l.ops, op)
				l.bytes += op.size
			}
		}
		c = ci.super
	}
	return l
}

// layoutStatic reports whether a static field of class is one whose value
// the heap model reads to infer the object layout where ids are not
// addresses: a platform class's Unsafe field offsets and array bases and
// shifts (names ending in Offset or _OFFSET, all in capitals, or base,
// scale, shift). Those values are facts of the JVM, not data.
func layoutStatic(class, name string) bool {
	if !isPlatform(class) {
		return false
	}
	switch {
	case len(name) > len("Offset") && strings.HasSuffix(name, "Offset"),
		strings.HasSuffix(name, "_OFFSET"),
		name == "base" || name == "scale" || name == "shift":
		return true
	}
	return len(name) > 2 && strings.ToUpper(name) == name && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == ""
}

// isPlatform reports whether a class (Java name) is in one of the
// PlatformPackages.
func isPlatform(class string) bool {
	for _, p := range PlatformPackages {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}
