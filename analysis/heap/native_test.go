package heap

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// gunzipTo decompresses the gzip file src into a temporary file and
// returns its path, so that EachValues reads it at the objects' offsets.
func gunzipTo(t *testing.T, src string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
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

// obfuscatedFields reads, from the ProGuard map of the ahat test program,
// what each field of class DumpedStuff is called in the dump.
func obfuscatedFields(t *testing.T, mapPath string) map[string]string {
	t.Helper()
	f, err := os.Open(mapPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			in = strings.HasPrefix(line, "DumpedStuff -> ")
			continue
		}
		// "    TYPE NAME -> OBFUSCATED"; methods have parentheses.
		fields := strings.Fields(line)
		if in && len(fields) == 4 && fields[2] == "->" && !strings.Contains(fields[1], "(") {
			out[fields[1]] = fields[3]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpedStuff finds the test program's one DumpedStuff instance (the map
// keeps its name) and the objects its fields named want reference.
func dumpedStuff(t *testing.T, h *model.Heap, names map[string]string, want ...string) (model.ObjectIndex, map[string]model.ObjectIndex) {
	t.Helper()
	class := classByName(h, "DumpedStuff")
	if class == model.NoClass {
		t.Fatal("no class DumpedStuff")
	}
	stuff := model.NoObject
	for i := range h.NumObjects() {
		if h.ClassOf(model.ObjectIndex(i)) == class {
			stuff = model.ObjectIndex(i)
		}
	}
	vals, err := model.ReadValues(h, []model.ObjectIndex{stuff}, model.ValueOptions{})
	if err != nil || vals[stuff] == nil {
		t.Fatalf("reading DumpedStuff: %v", err)
	}
	out := map[string]model.ObjectIndex{}
	for _, w := range want {
		ref := fieldRef(vals[stuff], names[w])
		if ref == model.NoObject {
			t.Fatalf("DumpedStuff.%s (%q in the dump) references nothing", w, names[w])
		}
		out[w] = ref
	}
	return stuff, out
}

// TestRegisteredNativeAhatDump checks the native sizes of the dump of
// ahat's test program (AOSP tools/ahat/src/test-dump/DumpedStuff.java):
// it registers 50000 bytes to anObject through a NativeAllocationRegistry
// of that size, and as much to aCleanedObject whose allocation it then
// frees by running the returned Runnable. ahat's NativeAllocationTest
// expects 50000 and 0 for them. The runtime registers one allocation of
// its own: a CharsetEncoderICU, through NativeConverter's registry, which
// is createMalloced without a size, that is libcore's DEFAULT_SIZE (98)
// with the malloced bit set. Only DumpedStuff reaches anObject, so it
// retains those 50000 bytes. The gzip file is streamed, the plain copy
// read at offsets: both must agree.
func TestRegisteredNativeAhatDump(t *testing.T) {
	gz := testshared.Path(t, "corpus", "android", "test-dump-base.hprof.gz")
	names := obfuscatedFields(t, testshared.Path(t, "corpus", "android", "test-dump.map"))
	for _, path := range []string{gz, gunzipTo(t, gz)} {
		h := testload.Heap(t, path)
		stuff, objs := dumpedStuff(t, h, names, "anObject", "aCleanedObject")
		n, err := RegisteredNative(h)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Of(objs["anObject"]); got != 50000 {
			t.Errorf("%s: anObject has %d native bytes, want 50000", path, got)
		}
		if got := n.Of(objs["aCleanedObject"]); got != 0 {
			t.Errorf("%s: aCleanedObject has %d native bytes, want 0 (its allocation was freed)", path, got)
		}
		icu := classByName(h, "com.android.icu.charset.CharsetEncoderICU")
		var icuBytes int64
		for k, o := range n.Owners {
			if h.ClassOf(o) == icu {
				icuBytes += n.Bytes[k]
			}
		}
		if icuBytes != 98 {
			t.Errorf("%s: CharsetEncoderICU owns %d native bytes, want 98", path, icuBytes)
		}
		if n.Allocations != 2 || n.Total != 50098 || len(n.Owners) != 2 {
			t.Errorf("%s: %d allocations of %d bytes over %d owners, want 2 of 50098 over 2", path, n.Allocations, n.Total, len(n.Owners))
		}
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		retained := RetainedNative(r, &n)
		if got := retained[stuff]; got != 50000 {
			t.Errorf("%s: DumpedStuff retains %d native bytes, want 50000", path, got)
		}
		if got := retained[objs["anObject"]]; got != 50000 {
			t.Errorf("%s: anObject retains %d native bytes, want its own 50000", path, got)
		}
	}
}

// TestRegisteredNativeDalvik checks that a Dalvik dump (Android 4, where
// a Bitmap's pixels are a byte[] of the Java heap and no
// NativeAllocationRegistry exists) shows no native size.
func TestRegisteredNativeDalvik(t *testing.T) {
	path := testshared.Path(t, "corpus", "android", "leak_service_binder_ignored.hprof.gz")
	h := testload.Heap(t, path)
	if classByName(h, "android.graphics.Bitmap") == model.NoClass {
		t.Fatal("the dump has no Bitmap class")
	}
	n, err := RegisteredNative(h)
	if err != nil {
		t.Fatal(err)
	}
	if n.Any() || n.Total != 0 || n.Allocations != 0 {
		t.Errorf("native sizes %+v, want none", n)
	}
}

// TestRegisteredNativeDamaged builds the registry's shape with every
// kind of damage a dump may hold and checks that only the sound
// registrations count: a Cleaner whose thunk is of another class, whose
// thunk names no registry, whose registry's size is negative or no long,
// whose referent dangles, one that has run (next is itself), and two
// sound ones on one owner, whose sizes add up, one with the malloced bit.
func TestRegisteredNativeDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "damaged.hprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var owner, lone hproftest.ID
	w := hproftest.New(f, hproftest.Options{})
	w.BeginHeapDump()
	ref := func(name string) hproftest.Field { return hproftest.Field{Name: name, Type: hproftest.TypeObject} }
	object := w.Class("java.lang.Object", nil)
	reference := w.Class("java.lang.ref.Reference", object, ref("referent"))
	phantom := w.Class("java.lang.ref.PhantomReference", reference)
	cleaner := w.Class(cleanerClass, phantom, ref("next"), ref("prev"), ref("thunk"))
	registry := w.Class(registryClass, object, hproftest.Field{Name: "size", Type: hproftest.TypeLong})
	oddRegistry := w.Class("com.example.OddRegistry", object, hproftest.Field{Name: "size", Type: hproftest.TypeInt})
	thunk := w.Class(thunkClass, object, ref("this$0"))
	other := w.Class("com.example.Other", object, ref("this$0"))
	sound := w.Instance(registry, hproftest.Long(1000))
	malloced := w.Instance(registry, hproftest.Long(24|1))
	negative := w.Instance(registry, hproftest.Long(-5000))
	odd := w.Instance(oddRegistry, hproftest.Int(7000))
	owner = w.Instance(object)
	lone = w.Instance(object)
	add := func(referent, next, th hproftest.ID) hproftest.ID {
		c := w.Alloc(32)
		w.InstanceWithID(c, cleaner, hproftest.Ref(next), hproftest.Ref(0), hproftest.Ref(th), hproftest.Ref(referent))
		return c
	}
	add(owner, 0, w.Instance(thunk, hproftest.Ref(sound)))
	add(owner, 0, w.Instance(thunk, hproftest.Ref(malloced)))
	add(lone, 0, w.Instance(other, hproftest.Ref(sound)))
	add(lone, 0, w.Instance(thunk, hproftest.Ref(0)))
	add(lone, 0, w.Instance(thunk, hproftest.Ref(negative)))
	add(lone, 0, w.Instance(thunk, hproftest.Ref(odd)))
	add(0xdead0, 0, w.Instance(thunk, hproftest.Ref(sound)))
	ran := w.Alloc(32)
	w.InstanceWithID(ran, cleaner, hproftest.Ref(ran), hproftest.Ref(ran), hproftest.Ref(w.Instance(thunk, hproftest.Ref(sound))), hproftest.Ref(lone))
	w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: owner})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	h := testload.Heap(t, path)
	n, err := RegisteredNative(h)
	if err != nil {
		t.Fatal(err)
	}
	o := analysistest.Lookup(t, h, owner)
	if len(n.Owners) != 1 || n.Owners[0] != o || n.Bytes[0] != 1024 || n.Allocations != 2 || n.Total != 1024 {
		t.Errorf("native sizes %+v, want 1000+24 bytes in 2 allocations on the owner alone", n)
	}
	if got := n.Of(analysistest.Lookup(t, h, lone)); got != 0 {
		t.Errorf("the object of the damaged registrations has %d native bytes, want 0", got)
	}
}
