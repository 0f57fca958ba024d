package main

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// TestNativeSizesCommands checks what info, histo, dominators and show
// say of the native sizes in the dump of ahat's test program, from the
// dump and from its index: the program registers 50000 bytes to anObject
// (DumpedStuff.java; ahat's NativeAllocationTest expects 50000) and frees
// the allocation of aCleanedObject, and the runtime registers libcore's
// DEFAULT_SIZE, 98 bytes, to a CharsetEncoderICU. The map of the build
// names anObject "l" in the dump; the program's one DumpedStuff holds it,
// and nothing else strongly, so DumpedStuff retains those 50000 bytes.
func TestNativeSizesCommands(t *testing.T) {
	dump := testshared.Path(t, "corpus", "android", "test-dump-base.hprof.gz")
	for _, mode := range [][]string{{"--no-index"}, {"--index-dir", t.TempDir()}} {
		var info struct {
			NativeAllocations int64 `json:"native_allocations"`
			NativeBytes       int64 `json:"native_bytes"`
			Heaps             []struct {
				Name        string `json:"name"`
				NativeBytes int64  `json:"native_bytes"`
			} `json:"heaps"`
		}
		runJSON(t, &info, append(mode, "info", dump)...)
		if info.NativeAllocations != 2 || info.NativeBytes != 50098 || len(info.Heaps) != 1 || info.Heaps[0].NativeBytes != 50098 {
			t.Errorf("%s: info says %+v, want 2 allocations of 50098 bytes, all in heap app", mode[0], info)
		}
		var histo []struct {
			Class       string `json:"class"`
			NativeBytes int64  `json:"native_bytes"`
		}
		runJSON(t, &histo, append(mode, "histo", "--sort", "native", "--top", "3", dump)...)
		if len(histo) != 3 || histo[0].Class != "java.lang.Object" || histo[0].NativeBytes != 50000 ||
			histo[1].Class != "com.android.icu.charset.CharsetEncoderICU" || histo[1].NativeBytes != 98 || histo[2].NativeBytes != 0 {
			t.Errorf("%s: histo --sort native says %+v", mode[0], histo)
		}
		var rows []struct {
			ObjectID            string `json:"object_id"`
			Class               string `json:"class"`
			RetainedNativeBytes int64  `json:"retained_native_bytes"`
		}
		runJSON(t, &rows, append(mode, "dominators", "--class", "^DumpedStuff$", dump)...)
		if len(rows) != 1 || rows[0].RetainedNativeBytes != 50000 {
			t.Fatalf("%s: dominators --class DumpedStuff says %+v, want it to retain 50000 native bytes", mode[0], rows)
		}
		var stuff struct {
			Fields []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"fields"`
		}
		runJSON(t, &stuff, append(mode, "show", dump, rows[0].ObjectID)...)
		var anObject string
		for _, f := range stuff.Fields {
			if f.Name == "l" {
				anObject, _ = f.Value.(string)
			}
		}
		var shown struct {
			NativeBytes         int64 `json:"native_bytes"`
			RetainedNativeBytes int64 `json:"retained_native_bytes"`
		}
		runJSON(t, &shown, append(mode, "show", dump, anObject)...)
		if shown.NativeBytes != 50000 || shown.RetainedNativeBytes != 50000 {
			t.Errorf("%s: show %s (anObject) says %+v, want 50000 native bytes", mode[0], anObject, shown)
		}
	}
}

// TestNativeSizesAbsent checks that dumps showing no native size keep
// their output as it was: a Dalvik dump (Bitmap pixels in the Java heap)
// and a JVM dump name no native field and no native column.
func TestNativeSizesAbsent(t *testing.T) {
	dalvik := testshared.Path(t, "corpus", "android", "leak_service_binder_ignored.hprof.gz")
	for _, dump := range []string{dalvik, "../../testdata/jvm/jdk17-default.hprof.gz"} {
		for _, c := range [][]string{{"info"}, {"histo"}, {"dominators"}} {
			out, err := runCLI(t, append([]string{"--no-index"}, append(c, "-o", "json", dump)...)...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, `"native_`) || strings.Contains(out, `"retained_native_`) {
				t.Errorf("%s %s: the JSON names native sizes", c[0], dump)
			}
			table, err := runCLI(t, append([]string{"--no-index"}, append(c, dump)...)...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(table, "native bytes") || strings.Contains(table, "retained native") || strings.Contains(table, "native (registered)") {
				t.Errorf("%s %s: the table has a native column", c[0], dump)
			}
		}
	}
}
