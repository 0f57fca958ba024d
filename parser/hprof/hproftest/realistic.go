package hproftest

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Stats describes a dump WriteRealistic wrote, exactly.
type Stats struct {
	Bytes           int64 // size of the dump
	IDSize          int
	Classes         int   // classes, each with UTF8 name, LOAD_CLASS and CLASS_DUMP
	Instances       int64 // INSTANCE_DUMP sub-records
	ObjectArrays    int64 // OBJ_ARRAY_DUMP sub-records
	PrimitiveArrays int64 // PRIM_ARRAY_DUMP sub-records
	HeapRecords     int   // HEAP_DUMP_SEGMENT records (one heap dump, closed by HEAP_DUMP_END)
	Threads         int   // threads, serials 1..Threads, each with a TRACE of serial thread+1
	Frames          int   // FRAME records
	Traces          int   // TRACE records, the empty trace 1 included
	Roots           map[SubTag]int
	// PerClass is keyed by class name as the dump spells it
	// ("java/lang/String", "[B", "com/example/svc3/Class17").
	PerClass map[string]ClassStats
	// ListLengths are the lengths of the long java.util.LinkedList chains.
	ListLengths []int
}

// ClassStats counts the objects of one class.
type ClassStats struct {
	Instances    int64 // INSTANCE_DUMPs, or arrays for an array class
	FieldBytes   int64 // INSTANCE_DUMP field bytes, or array element bytes, in the dump
	ShallowBytes int64 // in-memory size under the Writer's Sizer (the address gaps)
}

// WriteRealistic writes to dst a "JAVA PROFILE 1.0.2" dump of about
// targetBytes bytes (within 1% from 1 MiB up; the classes alone take some
// tens of KiB) with idSize-byte identifiers, shaped like a JDK 17 HotSpot dump of a server
// heap: UTF8 and LOAD_CLASS records of the JDK core and of up to 3000
// application classes (com/example/svcN/ClassM, fields of mixed types,
// some subclasses, statics, singletons), per-thread FRAME and TRACE
// records, then one heap dump in segments of about 1 MiB: CLASS_DUMPs,
// objects, GC roots. Most objects are small (Strings with their byte[],
// HashMaps with nodes and tables, ArrayLists, application objects whose
// references point at earlier objects); a few are long linked lists and
// big arrays. The output depends only on the arguments.
func WriteRealistic(dst io.Writer, targetBytes int64, seed int64, idSize int) (Stats, error) {
	if idSize != 4 && idSize != 8 {
		return Stats{}, fmt.Errorf("hproftest: identifier size %d: must be 4 or 8", idSize)
	}
	g := &generator{
		w:      New(dst, Options{Version: "1.0.2", IDSize: idSize, ObjectTrace: 1}),
		rng:    rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)),
		target: targetBytes,
	}
	g.stats = Stats{IDSize: idSize, Roots: map[SubTag]int{}, PerClass: map[string]ClassStats{}}
	g.declare()
	g.threadTraces()
	g.w.BeginHeapDump()
	for _, c := range g.classes {
		g.w.DumpClass(c.c)
	}
	g.earlyObjects()
	g.bulk()
	g.roots()
	g.w.EndHeapDump()
	if err := g.w.Close(); err != nil {
		return Stats{}, err
	}
	g.stats.Bytes = g.w.Written()
	g.stats.HeapRecords = g.w.HeapRecords()
	for _, c := range g.classes {
		if c.st.Instances > 0 {
			g.stats.PerClass[c.c.Name] = c.st
		}
	}
	return g.stats, nil
}

// tracked is a class and the counts of what was written of it.
type tracked struct {
	c         *Class
	st        ClassStats
	shallow   int64 // instance size under the Sizer
	singleton ID    // address of the instance its INSTANCE static refers to, or 0
}

// generator holds the state of one WriteRealistic run.
type generator struct {
	w      *Writer
	rng    *rand.Rand
	target int64
	stats  Stats

	jdk     *JDK
	classes []*tracked // every class, in declaration order
	core    coreClasses
	domain  []*tracked // application classes
	loader  *tracked   // jdk/internal/loader/ClassLoaders$AppClassLoader
	loadID  ID         // the application class loader instance

	threads   []ID         // thread objects
	traces    [][]ID       // frame ids of each thread's trace
	handles   *IDAllocator // JNI handle addresses
	text      []byte       // random text the strings are cut from
	vals      []Value
	elems     []ID
	recent    [1 << 16]ID // ring of recent objects
	nRecent   int
	old       [4096]ID // uniform sample of all remembered objects
	nOld      int
	seen      int64
	globals   []ID   // objects to root with JNI globals
	randomBuf []byte // reused by randomBytes
}

var fieldWords = []string{"id", "name", "owner", "parent", "next", "prev", "items", "cache",
	"config", "session", "handler", "value", "count", "size", "flags", "created", "updated",
	"enabled", "ratio", "state", "kind", "version", "key", "data", "target", "source",
	"listener", "context", "buffer", "index"}

var primTypes = []Type{TypeInt, TypeInt, TypeInt, TypeLong, TypeLong, TypeBoolean, TypeBoolean,
	TypeByte, TypeChar, TypeShort, TypeFloat, TypeDouble}

var methodNames = []string{"run", "call", "invoke", "handle", "process", "execute", "doFilter",
	"service", "apply", "accept", "get", "lambda$0", "await", "park", "read", "poll"}

// coreClasses are the JDK classes the generator writes objects of.
type coreClasses struct {
	str, thread, hashMap, node, nodes, list, objects, linkedList, linkedNode *tracked
	bytes, chars, ints, longs                                                *tracked
}

func (g *generator) track(c *Class) *tracked {
	t := &tracked{c: c, shallow: g.w.Sizes().InstanceSize(c)}
	g.classes = append(g.classes, t)
	return t
}

// declare writes the UTF8 and LOAD_CLASS records of every class and
// allocates the class objects, the class loader and the singletons.
func (g *generator) declare() {
	w := g.w
	g.jdk = w.DeclareJDK()
	j := g.jdk
	tracks := map[*Class]*tracked{}
	for _, c := range j.Classes() {
		tracks[c] = g.track(c)
	}
	g.core = coreClasses{str: tracks[j.String], thread: tracks[j.Thread], hashMap: tracks[j.HashMap],
		node: tracks[j.HashMapNode], nodes: tracks[j.NodeArray], list: tracks[j.ArrayList],
		objects: tracks[j.ObjectArray], linkedList: tracks[j.LinkedList], linkedNode: tracks[j.LinkedListNode],
		bytes: tracks[j.ByteArray], chars: tracks[j.CharArray], ints: tracks[j.IntArray], longs: tracks[j.LongArray]}
	g.loader = g.track(w.DeclareClass(ClassSpec{Name: "jdk/internal/loader/ClassLoaders$AppClassLoader",
		Super: g.jdk.ClassLoader, Fields: []Field{{"ucp", TypeObject}}}))

	n := int(min(max(g.target/(128<<10), 40), 3000))
	perService := 25
	var withSingleton []*tracked
	for i := range n {
		svc, m := i/perService, i%perService
		var super *Class
		if m > 0 && g.rng.IntN(5) == 0 {
			super = g.domain[len(g.domain)-1-g.rng.IntN(m)].c
		}
		spec := ClassSpec{Name: fmt.Sprintf("com/example/svc%d/Class%d", svc, m), Super: super}
		if super == nil {
			spec.Super = g.jdk.Object
		}
		used := map[string]bool{}
		field := func(t Type) {
			name := fieldWords[g.rng.IntN(len(fieldWords))]
			for k := 2; used[name]; k++ {
				name = fmt.Sprintf("%s%d", fieldWords[g.rng.IntN(len(fieldWords))], k)
			}
			used[name] = true
			spec.Fields = append(spec.Fields, Field{name, t})
		}
		for range 2 + g.rng.IntN(5) {
			field(TypeObject)
		}
		for range g.rng.IntN(6) {
			field(primTypes[g.rng.IntN(len(primTypes))])
		}
		g.rng.Shuffle(len(spec.Fields), func(a, b int) { spec.Fields[a], spec.Fields[b] = spec.Fields[b], spec.Fields[a] })
		if g.rng.IntN(2) == 0 {
			spec.Statics = append(spec.Statics, Static{"serialVersionUID", Long(int64(g.rng.Uint64()))})
		}
		if g.rng.IntN(5) == 0 {
			spec.Statics = append(spec.Statics, Static{"counter", Int(int32(g.rng.IntN(1000)))})
		}
		singleton := g.rng.IntN(10) == 0
		if singleton {
			spec.Statics = append(spec.Statics, Static{"INSTANCE", Ref(0)})
		}
		t := g.track(w.DeclareClass(spec))
		g.domain = append(g.domain, t)
		if singleton {
			withSingleton = append(withSingleton, t)
		}
	}
	g.stats.Classes = len(g.classes)

	// The loader and the singletons get addresses only now, after every
	// class object, as they are the first objects written.
	g.loadID = w.Alloc(g.loader.shallow)
	for _, t := range g.domain {
		t.c.LoaderID = g.loadID
	}
	for _, t := range withSingleton {
		t.singleton = w.Alloc(t.shallow)
		t.c.Statics[len(t.c.Statics)-1].Value = Ref(t.singleton)
	}
}

// threadTraces writes HotSpot's empty trace 1 and, per thread, its FRAME
// records and a TRACE of serial thread serial + 1.
func (g *generator) threadTraces() {
	w := g.w
	w.StackTrace(0)
	g.stats.Traces = 1
	nThreads := int(min(8+g.target/(64<<20), 48))
	for i := range nThreads {
		depth := 6 + g.rng.IntN(25)
		frames := make([]ID, depth)
		for d := range frames {
			t := g.domain[g.rng.IntN(len(g.domain))]
			line := int32(10 + g.rng.IntN(900))
			if d == 0 && g.rng.IntN(4) == 0 {
				line = -3
			}
			sig := "()V"
			if g.rng.IntN(2) == 0 {
				sig = "(Ljava/lang/Object;)V"
			}
			source := t.c.Name[strings.LastIndexByte(t.c.Name, '/')+1:] + ".java"
			frames[d] = w.StackFrame(methodNames[g.rng.IntN(len(methodNames))], sig, source, t.c.Serial, line)
			g.stats.Frames++
		}
		w.StackTrace(uint32(i+1), frames...)
		g.stats.Traces++
		g.traces = append(g.traces, frames)
	}
	g.stats.Threads = nThreads
}

// earlyObjects writes the objects whose addresses were handed out before
// the heap dump (the class loader, the singletons), then the threads.
func (g *generator) earlyObjects() {
	g.text = make([]byte, 1<<16)
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-_/:"
	for i := range g.text {
		g.text[i] = letters[g.rng.IntN(len(letters))]
	}
	g.handles = NewIDAllocator(0x7f3b_0000_0000, 8)
	if g.w.IDSize() == 4 {
		g.handles = NewIDAllocator(0x0800_0000, 4)
	}
	g.instanceAt(g.loadID, g.loader, Ref(0), Ref(0), Ref(0))
	g.globals = append(g.globals, g.loadID)
	for _, t := range g.domain {
		if t.singleton != 0 {
			g.instanceAt(t.singleton, t, g.fieldValues(t.c)...)
			g.remember(t.singleton)
		}
	}
	for i := range g.stats.Threads {
		name, _ := g.string([]byte(fmt.Sprintf("worker-%d", i+1)))
		id := g.instance(g.core.thread, Ref(name), Long(int64(i+1)), Int(5),
			Boolean(i%3 == 0), Ref(g.loadID))
		g.threads = append(g.threads, id)
	}
}

// bulk writes small objects until the target size is nearly reached,
// with the linked lists and big arrays at fixed points of the way.
func (g *generator) bulk() {
	reserve := g.rootsEstimate()
	budget := max(g.target-reserve, 0)
	type milestone struct {
		at   float64
		emit func()
	}
	listLen := max(int(g.target/100/int64(25+4*g.w.IDSize())), 16)
	list := func() { g.linkedList(listLen - g.rng.IntN(listLen/4+1)) }
	big := g.target / 100
	idSize := int64(g.w.IDSize())
	milestones := []milestone{
		{0.1, list},
		{0.2, func() { g.bigObjectArray(int(big / 2 / idSize)) }},
		{0.3, list},
		{0.4, func() { g.bigPrimArray(TypeByte, int(big)) }},
		{0.5, list},
		{0.6, func() { g.bigPrimArray(TypeLong, int(big/2/8)) }},
		{0.7, list},
		{0.8, func() { g.bigPrimArray(TypeInt, int(big/2/4)) }},
		{0.9, list},
	}
	next := 0
	for g.w.Written() < budget && g.w.Err() == nil {
		if next < len(milestones) && float64(g.w.Written()) >= milestones[next].at*float64(budget) {
			milestones[next].emit()
			next++
			continue
		}
		switch u := g.rng.IntN(100); {
		case u < 30:
			s, _ := g.string(g.randomText())
			g.remember(s)
		case u < 60 || u >= 86:
			t := g.domain[int(float64(len(g.domain))*cube(g.rng.Float64()))]
			g.remember(g.instance(t, g.fieldValues(t.c)...))
		case u < 68:
			g.remember(g.hashMap(1 + g.rng.IntN(12)))
		case u < 76:
			g.remember(g.arrayList(g.rng.IntN(16)))
		default:
			g.remember(g.smallArray())
		}
	}
	for ; next < len(milestones); next++ {
		milestones[next].emit()
	}
}

func cube(x float64) float64 { return x * x * x }

// rootsEstimate is about the size of the roots written at the end.
func (g *generator) rootsEstimate() int64 {
	ids := int64(g.w.IDSize())
	n := int64(0)
	for _, f := range g.traces {
		n += int64(len(f)+2) * (1 + ids + 8)
	}
	return n + 200*(1+2*ids) + int64(len(g.classes))*(1+ids) + 64
}

func (g *generator) instance(t *tracked, vals ...Value) ID {
	id := g.w.Alloc(t.shallow)
	g.instanceAt(id, t, vals...)
	return id
}

func (g *generator) instanceAt(id ID, t *tracked, vals ...Value) {
	g.w.InstanceWithID(id, t.c, vals...)
	t.st.Instances++
	t.st.FieldBytes += int64(t.c.FieldBytes())
	t.st.ShallowBytes += t.shallow
	g.stats.Instances++
}

func (g *generator) primArray(t *tracked, typ Type, data []byte) ID {
	id := g.w.PrimArray(typ, data)
	n := len(data) / typ.Size(g.w.IDSize())
	t.st.Instances++
	t.st.FieldBytes += int64(len(data))
	t.st.ShallowBytes += g.w.Sizes().ArraySize(typ, n)
	g.stats.PrimitiveArrays++
	return id
}

func (g *generator) objArray(t *tracked, elems []ID) ID {
	id := g.w.ObjectArray(t.c, elems...)
	t.st.Instances++
	t.st.FieldBytes += int64(len(elems) * g.w.IDSize())
	t.st.ShallowBytes += g.w.Sizes().ArraySize(TypeObject, len(elems))
	g.stats.ObjectArrays++
	return id
}

// remember makes id a candidate for the references of later objects.
func (g *generator) remember(id ID) {
	g.recent[g.nRecent%len(g.recent)] = id
	g.nRecent++
	g.seen++
	if g.nOld < len(g.old) {
		g.old[g.nOld] = id
		g.nOld++
	} else if j := g.rng.Int64N(g.seen); j < int64(len(g.old)) {
		g.old[j] = id
	}
}

// pick returns an earlier object, mostly a recent one, or null.
func (g *generator) pick() ID {
	if g.nRecent == 0 {
		return 0
	}
	switch u := g.rng.IntN(100); {
	case u < 5:
		return 0
	case u < 20:
		return g.old[g.rng.IntN(g.nOld)]
	}
	return g.recent[g.rng.IntN(min(g.nRecent, len(g.recent)))]
}

func (g *generator) randomText() []byte {
	n := 1 + g.rng.IntN(12)
	if g.rng.IntN(4) == 0 {
		n += g.rng.IntN(64)
	}
	off := g.rng.IntN(len(g.text) - n)
	return g.text[off : off+n]
}

// string writes a Latin-1 java.lang.String and its byte[].
func (g *generator) string(text []byte) (str, value ID) {
	value = g.primArray(g.core.bytes, TypeByte, text)
	var h int32
	for _, c := range text {
		h = 31*h + int32(c)
	}
	str = g.instance(g.core.str, Ref(value), Byte(0), Int(h), Boolean(h == 0))
	return str, value
}

// fieldValues returns random values for an instance of c, references to
// earlier objects.
func (g *generator) fieldValues(c *Class) []Value {
	g.vals = g.vals[:0]
	for _, t := range c.InstanceTypes() {
		v := Value{Type: t}
		switch t {
		case TypeObject:
			v.Bits = g.pick()
		case TypeBoolean:
			v.Bits = g.rng.Uint64() & 1
		case TypeFloat:
			v = Float(g.rng.Float32() * 1000)
		case TypeDouble:
			v = Double(g.rng.Float64() * 1e6)
		default:
			v.Bits = g.rng.Uint64() >> (64 - 8*t.Size(8))
		}
		g.vals = append(g.vals, v)
	}
	return g.vals
}

// hashMap writes a java.util.HashMap of n String keys: keys and nodes,
// the table, then the map.
func (g *generator) hashMap(n int) ID {
	size := 16
	for size*3/4 < n {
		size *= 2
	}
	table := make([]ID, size)
	for range n {
		key, _ := g.string(g.randomText())
		h := g.rng.Int32()
		h ^= int32(uint32(h) >> 16)
		b := int(uint32(h)) & (size - 1)
		table[b] = g.instance(g.core.node, Int(h), Ref(key), Ref(g.pick()), Ref(table[b]))
	}
	tab := g.objArray(g.core.nodes, table)
	return g.instance(g.core.hashMap, Ref(tab), Ref(0), Int(int32(n)), Int(int32(n)),
		Int(int32(size*3/4)), Float(0.75), Ref(0), Ref(0))
}

// arrayList writes a java.util.ArrayList of n elements and its Object[].
func (g *generator) arrayList(n int) ID {
	g.elems = g.elems[:0]
	for i := range max(n, 10) {
		e := ID(0)
		if i < n {
			e = g.pick()
		}
		g.elems = append(g.elems, e)
	}
	data := g.objArray(g.core.objects, g.elems)
	return g.instance(g.core.list, Ref(data), Int(int32(n)), Int(int32(n)))
}

// smallArray writes a short int[], long[] or char[].
func (g *generator) smallArray() ID {
	switch g.rng.IntN(3) {
	case 0:
		return g.primArray(g.core.ints, TypeInt, g.randomBytes(4*(1+g.rng.IntN(32))))
	case 1:
		return g.primArray(g.core.longs, TypeLong, g.randomBytes(8*(1+g.rng.IntN(16))))
	}
	text := g.randomText()
	chars := g.randomBytes(2 * len(text))[:0]
	for _, c := range text {
		chars = append(chars, 0, c)
	}
	return g.primArray(g.core.chars, TypeChar, chars)
}

// randomBytes returns n random bytes in a buffer reused by the next call.
func (g *generator) randomBytes(n int) []byte {
	if cap(g.randomBuf) < n {
		g.randomBuf = make([]byte, n)
	}
	b := g.randomBuf[:n]
	for i := 0; i < n; i += 8 {
		v := g.rng.Uint64()
		for k := i; k < min(i+8, n); k++ {
			b[k] = byte(v)
			v >>= 8
		}
	}
	return b
}

// linkedList writes a java.util.LinkedList of n nodes, consecutive in
// memory so that each node knows the address of the next, then the list;
// a JNI global roots the list.
func (g *generator) linkedList(n int) {
	node := g.core.linkedNode
	var first, prev ID
	for i := range n {
		id := g.w.Alloc(node.shallow)
		next := ID(0)
		if i < n-1 {
			next = g.w.NextAddress()
		}
		if i == 0 {
			first = id
		}
		g.instanceAt(id, node, Ref(g.pick()), Ref(next), Ref(prev))
		prev = id
	}
	list := g.instance(g.core.linkedList, Int(int32(n)), Ref(first), Ref(prev), Int(int32(n)))
	g.globals = append(g.globals, list)
	g.remember(list)
	g.stats.ListLengths = append(g.stats.ListLengths, n)
}

func (g *generator) bigObjectArray(n int) {
	elems := make([]ID, n)
	for i := range elems {
		elems[i] = g.pick()
	}
	id := g.objArray(g.core.objects, elems)
	g.globals = append(g.globals, id)
}

func (g *generator) bigPrimArray(t Type, n int) {
	arrays := map[Type]*tracked{TypeByte: g.core.bytes, TypeInt: g.core.ints, TypeLong: g.core.longs}
	id := g.primArray(arrays[t], t, g.randomBytes(n*t.Size(g.w.IDSize())))
	g.globals = append(g.globals, id)
	g.remember(id)
}

// roots writes the GC roots: per thread its THREAD_OBJ, JAVA_FRAME roots
// for locals and one JNI_LOCAL; JNI globals; sticky JDK classes.
func (g *generator) roots() {
	root := func(r Root) {
		g.w.Root(r)
		g.stats.Roots[r.Kind]++
	}
	for i, obj := range g.threads {
		serial := uint32(i + 1)
		root(Root{Kind: RootThreadObj, ID: obj, ThreadSerial: serial, TraceSerial: serial + 1})
		for d := range g.traces[i] {
			for range g.rng.IntN(3) {
				if id := g.pick(); id != 0 {
					root(Root{Kind: RootJavaFrame, ID: id, ThreadSerial: serial, FrameDepth: int32(d)})
				}
			}
		}
		if id := g.pick(); id != 0 {
			root(Root{Kind: RootJNILocal, ID: id, ThreadSerial: serial, FrameDepth: int32(g.rng.IntN(len(g.traces[i])))})
		}
	}
	for range 64 {
		if id := g.pick(); id != 0 {
			g.globals = append(g.globals, id)
		}
	}
	for _, id := range g.globals {
		root(Root{Kind: RootJNIGlobal, ID: id, JNIRef: g.handles.Next(8)})
	}
	for _, t := range g.classes[:len(g.classes)-len(g.domain)] {
		root(Root{Kind: RootStickyClass, ID: t.c.ID})
	}
}
