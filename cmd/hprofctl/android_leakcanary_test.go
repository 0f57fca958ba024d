package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// LeakCanary 1.x's own tests on leak_service_binder_ignored.hprof (see
// ../shared/corpus/SOURCES.md, square/leakcanary @ 44787a1733b6,
// leakcanary-analyzer/src/test/java/com/squareup/leakcanary/) state what
// these tests check through hprofctl's commands:
//
//   - TestUtil.java:30-31: the KeyedWeakReference watching the leak has
//     the key below;
//   - ServiceBinderLeakTest.java:33-36: the dump holds a "normal" leak of
//     a service through its binding; :61-72 (ignorableBinderLeak): the
//     leak is found, its trace's first element is an instance field held
//     by an object of class LeakyService$MyBinder; :74-80
//     (alwaysIgnorableBinderLeak): with every path from a GC root that is
//     an android.os.Binder excluded, no leak is found at all;
//   - RetainedSizeTest.java:31 (as SOURCES.md records it): the leaking
//     instance retains 378 bytes as LeakCanary 1.x, that is Android's
//     perflib (through HAHA), counted.
const (
	leakCanaryKey      = "6e524414-9581-4ce7-8690-e8ddf8b82454"
	leakCanaryBinder   = "com.example.leakcanary.LeakyService$MyBinder"
	leakCanaryService  = "com.example.leakcanary.LeakyService"
	leakCanaryRetained = 378
)

func leakCanaryDump(t *testing.T) string {
	t.Helper()
	return filepath.Join(sharedCorpus(t), "android", "leak_service_binder_ignored.hprof.gz")
}

// oqlRowsJSON runs an OQL query with -o json and returns its rows.
func oqlRowsJSON(t *testing.T, dump, query string) [][]any {
	t.Helper()
	var res struct {
		Rows [][]any `json:"rows"`
	}
	runJSON(t, &res, "query", dump, query)
	return res.Rows
}

// leakingInstance finds, as LeakCanary's HeapAnalyzer does, the
// KeyedWeakReference whose key is leakCanaryKey, and returns its referent.
func leakingInstance(t *testing.T, dump string) (id, class string) {
	t.Helper()
	rows := oqlRowsJSON(t, dump, `SELECT toString(r.key), r.referent, classof(r.referent).@name
		FROM com.squareup.leakcanary.KeyedWeakReference r WHERE toString(r.key) = '`+leakCanaryKey+`'`)
	if len(rows) != 1 || len(rows[0]) != 3 {
		t.Fatalf("KeyedWeakReference with key %s: rows %v, want one", leakCanaryKey, rows)
	}
	key, _ := rows[0][0].(string)
	id, _ = rows[0][1].(string)
	class, _ = rows[0][2].(string)
	if key != leakCanaryKey || id == "" {
		t.Fatalf("KeyedWeakReference row %v: want key %s and a referent", rows[0], leakCanaryKey)
	}
	return id, class
}

// TestLeakCanaryKeyedWeakReference finds the watched reference by its key
// (TestUtil.java:30-31) and checks that its referent is the leaked
// service: an instance of LeakyService, the class MyBinder is nested in,
// which extends android.app.Service (ServiceBinderLeakTest.java:33-36;
// the hierarchy as the dump's CLASS_DUMP records give it, read here
// without hprofctl).
func TestLeakCanaryKeyedWeakReference(t *testing.T) {
	dump := leakCanaryDump(t)
	_, class := leakingInstance(t, dump)
	if class != leakCanaryService {
		t.Fatalf("referent of class %s, want %s", class, leakCanaryService)
	}
	if d := readClassDumps(t, dump); !d.extends(class, "android.app.Service") {
		t.Errorf("%s does not extend android.app.Service: %v", class, d.superclasses(class))
	}
}

// TestLeakCanaryBinderPath checks retainers' paths to the leaked service
// against ServiceBinderLeakTest: the shortest path starts at a
// LeakyService$MyBinder that is itself a GC root (the trace's first
// element is held by that object, :61-72) and steps into the service
// through one of the binder's instance fields; the root is a JNI global
// reference, which the dump records for that binder (read here without
// hprofctl) and which LeakCanary 1.x counts as a root (perflib's
// NATIVE_STATIC, enqueued by ShortestPathFinder.enqueueGcRoots at
// 12c69bb2f443). Every path starts at an android.os.Binder (:74-80: with
// Binder roots excluded nothing leaks; hprofctl counts more root kinds
// than LeakCanary, so this holds for at least as many paths), and none
// comes back to the service before its end.
func TestLeakCanaryBinderPath(t *testing.T) {
	dump := leakCanaryDump(t)
	target, _ := leakingInstance(t, dump)
	d := readClassDumps(t, dump)
	var r retainersJSON
	runJSON(t, &r, "retainers", dump, "--object", target, "--paths", "10")
	if r.Targets != 1 || r.Unreached != 0 || len(r.Paths) == 0 {
		t.Fatalf("%d targets, %d unreached, %d paths; want the service reached", r.Targets, r.Unreached, len(r.Paths))
	}
	first := r.Paths[0]
	if len(first.Chain) != 2 {
		t.Fatalf("shortest path %+v: want the binder root and the service", first.Chain)
	}
	binder, service := first.Chain[0], first.Chain[1]
	if binder.Class != leakCanaryBinder || service.ObjectID != target {
		t.Errorf("shortest path %+v: want %s then %s", first.Chain, leakCanaryBinder, target)
	}
	if fields := d.objectFields(leakCanaryBinder); !slices.Contains(fields, service.Via) {
		t.Errorf("step into the service via %q, want one of %s's instance fields %v", service.Via, leakCanaryBinder, fields)
	}
	binderID, err := hexObjectID(binder.ObjectID)
	if err != nil {
		t.Fatal(err)
	}
	if tags := d.roots[binderID]; first.RootKind != "jni-global" || !slices.Contains(tags, hprofRootJNIGlobal) {
		t.Errorf("binder root kind %q, dump's root records %v; want jni-global, ROOT_JNI_GLOBAL (%#x)", first.RootKind, tags, hprofRootJNIGlobal)
	}
	for k, p := range r.Paths {
		if !d.extends(p.Chain[0].Class, "android.os.Binder") {
			t.Errorf("path %d starts at %s, which is no android.os.Binder", k+1, p.Chain[0].Class)
		}
		for _, s := range p.Chain[:len(p.Chain)-1] {
			if s.ObjectID == target {
				t.Errorf("path %d passes through the service before its end: %+v", k+1, p.Chain)
			}
		}
	}
}

// TestLeakCanaryRetainedSize checks the objects the leaked service
// retains (hprofctl's dominator tree, through OQL's AS RETAINED SET)
// against LeakCanary 1.x's 378 bytes (RetainedSizeTest.java:31). hprofctl
// sizes objects otherwise (a JVM-like layout, or field bytes), so the
// bytes are summed here by perflib's rules as HAHA's copy of it has them:
// an instance counts its class's CLASS_DUMP instance size as the VM wrote
// it (ClassObj.addInstance sets it), an array its length times the
// element size, without header (ArrayInstance.getSize), object elements
// counting the dump's id size; a retained size adds every heap's share
// (Instance.getTotalRetainedSize), so zygote and app objects both count.
// The instance sizes are read from the dump here, without hprofctl.
func TestLeakCanaryRetainedSize(t *testing.T) {
	dump := leakCanaryDump(t)
	target, _ := leakingInstance(t, dump)
	d := readClassDumps(t, dump)
	rows := oqlRowsJSON(t, dump, `SELECT o, classof(o).@name, o.@length FROM OBJECTS (SELECT AS RETAINED SET * FROM OBJECTS `+target+`) o`)
	var total int64
	var self bool
	for _, row := range rows {
		id, _ := row[0].(string)
		class, _ := row[1].(string)
		self = self || id == target
		if elem, ok := strings.CutSuffix(class, "[]"); ok {
			length, ok := row[2].(float64)
			if !ok {
				t.Fatalf("array %s %s without a length: %v", id, class, row)
			}
			total += int64(length) * perflibElementSize(elem, d.idSize)
			continue
		}
		c, ok := d.classes[class]
		if !ok {
			t.Fatalf("retained object %s of class %q: no CLASS_DUMP of that name (a class object has no perflib rule here)", id, class)
		}
		total += int64(c.instanceSize)
	}
	if !self {
		t.Errorf("the retained set of %s does not hold the service itself: %v", target, rows)
	}
	if total != leakCanaryRetained {
		t.Errorf("the %d objects the service retains weigh %d bytes by perflib's rules, want LeakCanary's %d: %v", len(rows), total, leakCanaryRetained, rows)
	}
}

// perflibElementSize is the bytes perflib gives one array element: the
// JVM's size of the primitive type, the dump's id size for references.
func perflibElementSize(elem string, idSize int) int64 {
	switch elem {
	case "boolean", "byte":
		return 1
	case "char", "short":
		return 2
	case "int", "float":
		return 4
	case "long", "double":
		return 8
	}
	return int64(idSize)
}

// hexObjectID reads an object id as hprofctl prints it (0x-hex).
func hexObjectID(s string) (uint64, error) {
	var id uint64
	if _, err := fmt.Sscanf(s, "0x%x", &id); err != nil {
		return 0, fmt.Errorf("object id %q: %w", s, err)
	}
	return id, nil
}

// hprofRootJNIGlobal is the HPROF heap dump sub-record of a JNI global
// reference root.
const hprofRootJNIGlobal = 0x01

// classDumps is what the test needs of a dump's classes and roots, read
// by hprofReference straight from the HPROF records.
type classDumps struct {
	idSize  int
	classes map[string]classDump
	// roots lists, per object id, the tags of its root sub-records.
	roots map[uint64][]byte
}

type classDump struct {
	super        string
	instanceSize uint32
	// fields are the instance fields the class itself declares.
	fields []fieldDecl
}

type fieldDecl struct {
	name string
	typ  byte
}

// hprofObjectType is the HPROF basic type of an object reference.
const hprofObjectType = 2

func (d classDumps) superclasses(class string) []string {
	var out []string
	for c, ok := d.classes[class]; ok && c.super != ""; c, ok = d.classes[c.super] {
		out = append(out, c.super)
	}
	return out
}

func (d classDumps) extends(class, super string) bool {
	return class == super || slices.Contains(d.superclasses(class), super)
}

// objectFields names the reference-typed instance fields of class and of
// its superclasses.
func (d classDumps) objectFields(class string) []string {
	var out []string
	for _, c := range append([]string{class}, d.superclasses(class)...) {
		for _, f := range d.classes[c].fields {
			if f.typ == hprofObjectType {
				out = append(out, f.name)
			}
		}
	}
	return out
}

// readClassDumps reads a gzipped HPROF file's class dumps and root
// records with a reader of its own, so that the facts the tests compare
// hprofctl with do not come from hprofctl's parser. It knows only what
// this dump holds: one id size, Android's extra root sub-records and
// HEAP_DUMP_INFO.
func readClassDumps(t *testing.T, path string) classDumps {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hprofReference(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// hprofReference parses an HPROF file by the format's description: the
// header, then records (tag, time, length); strings (0x01) and LOAD_CLASS
// (0x02) give class names, heap dump segments (0x0c, 0x1c) the class
// dumps and roots.
func hprofReference(b []byte) (classDumps, error) {
	end := bytes.IndexByte(b, 0)
	if end < 0 || len(b) < end+13 {
		return classDumps{}, fmt.Errorf("no HPROF header")
	}
	d := classDumps{idSize: int(binary.BigEndian.Uint32(b[end+1:])), classes: map[string]classDump{}, roots: map[uint64][]byte{}}
	if d.idSize != 4 && d.idSize != 8 {
		return classDumps{}, fmt.Errorf("id size %d", d.idSize)
	}
	r := &hprofCursor{b: b, p: end + 13, idSize: d.idSize}
	strs := map[uint64]string{}
	classNames := map[uint64]uint64{} // class object id -> name string id
	root := func(tag byte) {
		id := r.id()
		d.roots[id] = append(d.roots[id], tag)
	}
	type rawClass struct {
		id, super uint64
		c         classDump
		names     []uint64
	}
	var raw []rawClass
	for r.p < len(b) && r.err == nil {
		tag := r.u1()
		r.u4()
		n := int(r.u4())
		body := r.p
		switch tag {
		case 0x01:
			id := r.id()
			strs[id] = string(r.bytes(n - d.idSize))
		case 0x02:
			r.u4()
			obj := r.id()
			r.u4()
			classNames[obj] = r.id()
		case 0x0c, 0x1c:
			for r.p < body+n && r.err == nil {
				sub := r.u1()
				switch sub {
				case 0xff, 0x05, 0x07, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x90:
					// unknown, sticky class, monitor used, interned
					// string, finalizing, debugger, reference cleanup,
					// VM internal, unreachable: an id
					root(sub)
				case 0x01:
					root(sub)
					r.id()
				case 0x02, 0x03, 0x8e: // JNI local, Java frame, JNI monitor
					root(sub)
					r.u4()
					r.u4()
				case 0x04, 0x06: // native stack, thread block
					root(sub)
					r.u4()
				case 0x08: // thread object
					root(sub)
					r.u4()
					r.u4()
				case 0xfe: // Android HEAP_DUMP_INFO: heap type, name
					r.u4()
					r.id()
				case 0x20:
					var c rawClass
					c.id = r.id()
					r.u4()
					c.super = r.id()
					for range 5 {
						r.id()
					}
					c.c.instanceSize = r.u4()
					for range r.u2() {
						r.u2()
						r.skip(r.valueSize(r.u1()))
					}
					for range r.u2() {
						r.id()
						r.skip(r.valueSize(r.u1()))
					}
					for range r.u2() {
						c.names = append(c.names, r.id())
						c.c.fields = append(c.c.fields, fieldDecl{typ: r.u1()})
					}
					raw = append(raw, c)
				case 0x21:
					r.id()
					r.u4()
					r.id()
					r.skip(int(r.u4()))
				case 0x22:
					r.id()
					r.u4()
					k := int(r.u4())
					r.id()
					r.skip(k * d.idSize)
				case 0x23, 0xc3: // primitive array, Android's without data
					r.id()
					r.u4()
					k := int(r.u4())
					size := r.valueSize(r.u1())
					if sub == 0x23 {
						r.skip(k * size)
					}
				default:
					return classDumps{}, fmt.Errorf("heap dump sub-record %#x at %d", sub, r.p-1)
				}
			}
		default:
			r.skip(n)
		}
		if r.err == nil && r.p != body+n {
			return classDumps{}, fmt.Errorf("record %#x at %d: read %d of %d bytes", tag, body, r.p-body, n)
		}
	}
	if r.err != nil {
		return classDumps{}, r.err
	}
	name := func(class uint64) string { return strings.ReplaceAll(strs[classNames[class]], "/", ".") }
	for _, c := range raw {
		if c.super != 0 {
			c.c.super = name(c.super)
		}
		for k, s := range c.names {
			c.c.fields[k].name = strs[s]
		}
		d.classes[name(c.id)] = c.c
	}
	return d, nil
}

// hprofCursor reads big-endian values from b at p; the first read past
// the end sets err and every later one reads zeros.
type hprofCursor struct {
	b      []byte
	p      int
	idSize int
	err    error
}

func (r *hprofCursor) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.p+n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("truncated at %d", r.p)
		}
		return make([]byte, max(n, 0))
	}
	out := r.b[r.p : r.p+n]
	r.p += n
	return out
}

func (r *hprofCursor) skip(n int) { r.bytes(n) }
func (r *hprofCursor) u1() byte   { return r.bytes(1)[0] }
func (r *hprofCursor) u2() uint16 { return binary.BigEndian.Uint16(r.bytes(2)) }
func (r *hprofCursor) u4() uint32 { return binary.BigEndian.Uint32(r.bytes(4)) }

// id reads an object id.
func (r *hprofCursor) id() uint64 {
	if r.idSize == 4 {
		return uint64(r.u4())
	}
	return binary.BigEndian.Uint64(r.bytes(8))
}

// valueSize is the size of a value of HPROF basic type typ.
func (r *hprofCursor) valueSize(typ byte) int {
	switch typ {
	case hprofObjectType:
		return r.idSize
	case 4, 8: // boolean, byte
		return 1
	case 5, 9: // char, short
		return 2
	case 6, 10: // float, int
		return 4
	case 7, 11: // double, long
		return 8
	}
	if r.err == nil {
		r.err = fmt.Errorf("basic type %d at %d", typ, r.p)
	}
	return 0
}
