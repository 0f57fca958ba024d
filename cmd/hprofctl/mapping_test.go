package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// mappedObject is what the mapping tests read of `show -o json`.
type mappedObject struct {
	ObjectID string `json:"object_id"`
	Class    string `json:"class"`
	Fields   []struct {
		Name   string `json:"name"`
		Value  any    `json:"value"`
		Class  string `json:"class"`
		Text   string `json:"text"`
		Static bool   `json:"static"`
	} `json:"fields"`
	Length   *int64                `json:"length"`
	Elements []struct{ Value any } `json:"elements"`
	Path     *struct {
		Chain []struct{ ObjectID, Class, Via string }
	} `json:"path"`
}

// field returns the value, class and text of o's field name, failing the
// test when o has no such field.
func (o *mappedObject) field(t *testing.T, name string) (value any, class, text string) {
	t.Helper()
	for _, f := range o.Fields {
		if f.Name == name {
			return f.Value, f.Class, f.Text
		}
	}
	t.Fatalf("%s %s has no field %q", o.Class, o.ObjectID, name)
	return nil, "", ""
}

// hasField reports whether o has a field called name.
func (o *mappedObject) hasField(name string) bool {
	for _, f := range o.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// ref returns the object id o's reference field name holds.
func (o *mappedObject) ref(t *testing.T, name string) string {
	t.Helper()
	v, _, _ := o.field(t, name)
	id, ok := v.(string)
	if !ok {
		t.Fatalf("%s.%s = %v, not a reference", o.Class, name, v)
	}
	return id
}

// TestMappingAhatBaseline reads ahat's baseline test dump through the R8
// mapping of the same build (../shared/corpus/android, SOURCES.md): the
// dump of ahat's test program run with --base, obfuscated, so that only
// the mapping gives its classes and fields their names. Every fact below
// is stated by the program's source or by ahat's own tests, cited as
// File.java:line; the sources are AOSP art tools/ahat/src/test-dump/ and
// tools/ahat/src/test/com/android/ahat/, at the revision whose line
// numbers the mapping's method lines record (GrapheneOS/platform_art
// bc849cc46a8b: DumpedStuff.java's <init>(boolean) starts on line 45 and
// its static initializer is on line 256, as the map says). In that
// source baseline is true. ahat's InstanceTest reads the later dump (no
// --base); the facts cited from it do not depend on --base.
//
// Each command runs on the dump itself and from its index: the index
// keeps the obfuscated names, and the mapping applies on every open.
func TestMappingAhatBaseline(t *testing.T) {
	dump := testshared.Path(t, "corpus", "android", "test-dump-base.hprof.gz")
	mapping := testshared.Path(t, "corpus", "android", "test-dump.map")
	for _, mode := range []string{"--no-index", "--index-dir=" + t.TempDir()} {
		t.Run(strings.TrimPrefix(strings.Split(mode, "=")[0], "--"), func(t *testing.T) {
			mapped := []string{mode, "--mapping", mapping}
			show := func(id string, args ...string) *mappedObject {
				t.Helper()
				var o mappedObject
				runJSON(t, &o, append(append(append(mapped, "show"), args...), dump, id)...)
				return &o
			}

			// Classes by their original names. DumpedStuff.java:81-84:
			// the baseline builds one chain of 10000 StackSmashers
			// (the second chain, lines 87-90, only without --base);
			// lines 208-212: four ObjectTrees in gcPathArray; line 70:
			// addedObject is null in the baseline and line 71
			// removedObject is set; lines 72 and 219 make one
			// ModifiedObject and one UnchangedObject.
			histo := histoByClass(t, append(mapped, dump)...)
			for class, want := range map[string]int64{
				"DumpedStuff":                 1,
				"DumpedStuff$StackSmasher":    10000,
				"DumpedStuff$ObjectTree":      4,
				"DumpedStuff$ObjectTree[]":    1,
				"DumpedStuff$RemovedObject":   1,
				"DumpedStuff$UnchangedObject": 1,
				"DumpedStuff$ModifiedObject":  1,
				"DumpedStuff$AddedObject":     0,
			} {
				if got := histo[class].Instances; got != want {
					t.Errorf("histo: %d instances of %s, want %d", got, class, want)
				}
			}
			// The mapping's own lines: "DumpedStuff$StackSmasher -> o:",
			// "DumpedStuff$ObjectTree -> l:"; no class keeps those names.
			for _, obfuscated := range []string{"o", "l", "l[]", "n", "k"} {
				if r, ok := histo[obfuscated]; ok {
					t.Errorf("histo through the mapping still has class %s (%d instances)", obfuscated, r.Instances)
				}
			}

			// The one DumpedStuff, found by its name (Main.java:44
			// allocates it once).
			var rows struct{ Rows [][]string }
			runJSON(t, &rows, append(mapped, "query", dump, "SELECT s FROM DumpedStuff s")...)
			if len(rows.Rows) != 1 || len(rows.Rows[0]) != 1 {
				t.Fatalf("query: %v, want one DumpedStuff", rows.Rows)
			}
			stuff := show(rows.Rows[0][0])
			for _, tc := range []struct{ field, text, source string }{
				{"basicString", "hello, world", "DumpedStuff.java:187, InstanceTest.asStringBasic"},
				{"nonAscii", "Sigma (Ʃ) is not ASCII", "DumpedStuff.java:188, InstanceTest.asStringNonAscii"},
				{"charArray", "char thing", "DumpedStuff.java:190, InstanceTest.asStringCharArray"},
			} {
				if _, _, text := stuff.field(t, tc.field); text != tc.text {
					t.Errorf("DumpedStuff.%s text %s, want %s (%s)", tc.field, text, tc.text, tc.source)
				}
			}
			for _, tc := range []struct{ field, class, source string }{
				{"nullString", "", "DumpedStuff.java:194, InstanceTest.asStringNull"},
				{"addedObject", "", "DumpedStuff.java:70, null with --base"},
				{"stackSmasherAdded", "", "DumpedStuff.java:87-90, only set without --base"},
				{"removedObject", "DumpedStuff$RemovedObject", "DumpedStuff.java:71, set with --base"},
				{"unchangedObject", "DumpedStuff$UnchangedObject", "DumpedStuff.java:219"},
				{"basicStringRef", "java.lang.Object[]", "Main.java:52-53 sets it to an Object[]"},
				{"gcPathArray", "DumpedStuff$ObjectTree[]", "DumpedStuff.java:208"},
				// A field DumpedStuff inherits: SuperDumpedStuff's own
				// field a, unlike DumpedStuff's (mapping: "java.lang.Object
				// objectAllocatedAtObfSuperSite -> a" under SuperDumpedStuff).
				{"objectAllocatedAtObfSuperSite", "java.lang.Object", "DumpedStuff.java:32 calls SuperDumpedStuff's allocateObjectAtObfSuperSite, line 22 by the mapping"},
			} {
				v, class, _ := stuff.field(t, tc.field)
				if tc.class == "" && v != nil || class != tc.class {
					t.Errorf("DumpedStuff.%s = %v of class %q, want class %q (%s)", tc.field, v, class, tc.class, tc.source)
				}
			}

			// DumpedStuff.java:73-75: the baseline's ModifiedObject.
			modified := show(stuff.ref(t, "modifiedObject"))
			if v, _, _ := modified.field(t, "value"); v != float64(5) {
				t.Errorf("ModifiedObject.value = %v, want 5 (DumpedStuff.java:73)", v)
			}
			for field, want := range map[string]string{"modifiedRefField": "A1", "unmodifiedRefField": "B"} {
				if _, _, text := modified.field(t, field); text != want {
					t.Errorf("ModifiedObject.%s text %s, want %s (DumpedStuff.java:74-75)", field, text, want)
				}
			}

			// Arrays: DumpedStuff.java:77 modifiedArray is {0, 1, 2, 3}
			// with --base; lines 48-51 bigArray has 400000 bytes, byte i
			// being i*i & 0xFF; lines 208-212 (and
			// InstanceTest.arrayInstanceToString, "[4]") gcPathArray has
			// 4 elements, only [2] set.
			for _, tc := range []struct {
				field  string
				length int64
				first  []float64 // of gcPathArray: -1 null, else an object
			}{
				{"modifiedArray", 4, []float64{0, 1, 2, 3}},
				{"bigArray", 400000, []float64{0, 1, 4, 9, 16, 25, 36, 49, 64, 81}},
				{"gcPathArray", 4, []float64{-1, -1, 2, -1}},
			} {
				a := show(stuff.ref(t, tc.field))
				if a.Length == nil || *a.Length != tc.length || len(a.Elements) != len(tc.first) {
					t.Errorf("%s: length %v, %d elements shown; want %d, %d", tc.field, a.Length, len(a.Elements), tc.length, len(tc.first))
					continue
				}
				for k, want := range tc.first {
					v := a.Elements[k].Value
					switch {
					case tc.field == "gcPathArray" && (want == -1) != (v == nil):
						t.Errorf("%s[%d] = %v, want %s", tc.field, k, v, map[bool]string{true: "null", false: "an object"}[want == -1])
					case tc.field != "gcPathArray" && v != want:
						t.Errorf("%s[%d] = %v, want %v", tc.field, k, v, want)
					}
				}
			}

			// A static field, on DumpedStuff's class object (ART's
			// shadow$_klass_ points an object at it): DumpedStuff.java:76
			// sets modifiedStaticField to "C1" with --base.
			class := show(stuff.ref(t, "shadow$_klass_"))
			if class.Class != "class DumpedStuff" {
				t.Fatalf("shadow$_klass_ of DumpedStuff is %s", class.Class)
			}
			if _, _, text := class.field(t, "modifiedStaticField"); text != "C1" {
				t.Errorf("DumpedStuff.modifiedStaticField text %s, want C1 (DumpedStuff.java:76)", text)
			}

			// InstanceTest.gcRootPath: the path from a GC root to
			// gcPathArray[2].left.right is the class Main, its static
			// .stuff (Main.java:27), .gcPathArray, [2], then .left and
			// .right or .right and .left (DumpedStuff.java:93 links the
			// target from both sides): 6 steps.
			tree := show(stuff.ref(t, "gcPathArray"), "--elements", "4").Elements[2].Value.(string)
			target := show(show(tree).ref(t, "left")).ref(t, "right")
			p := show(target, "--path").Path
			if p == nil || len(p.Chain) != 6 {
				t.Fatalf("path to gcPathArray[2].left.right: %+v, want 6 steps", p)
			}
			var vias, classes []string
			for _, s := range p.Chain {
				vias = append(vias, s.Via)
				classes = append(classes, s.Class)
			}
			got := strings.Join(vias, " ")
			if got != " static stuff gcPathArray [2] left right" && got != " static stuff gcPathArray [2] right left" {
				t.Errorf("path goes through %q", got)
			}
			if want := "class Main,DumpedStuff,DumpedStuff$ObjectTree[],DumpedStuff$ObjectTree,DumpedStuff$ObjectTree,DumpedStuff$ObjectTree"; strings.Join(classes, ",") != want {
				t.Errorf("path classes %s, want %s", strings.Join(classes, ","), want)
			}

			// Without the mapping the same fields have the names R8
			// gave them (mapping: "java.lang.Object[] basicStringRef ->
			// D", "java.lang.String basicString -> d",
			// "DumpedStuff$StackSmasher -> o:").
			var plain mappedObject
			runJSON(t, &plain, mode, "show", dump, stuff.ObjectID)
			if _, class, _ := plain.field(t, "D"); class != "java.lang.Object[]" {
				t.Errorf("unmapped DumpedStuff.D is of class %q, want java.lang.Object[]", class)
			}
			if _, _, text := plain.field(t, "d"); text != "hello, world" {
				t.Errorf("unmapped DumpedStuff.d text %s, want hello, world", text)
			}
			if plain.hasField("basicString") || plain.hasField("basicStringRef") {
				t.Error("without --mapping, DumpedStuff has deobfuscated field names")
			}
			if _, class, _ := plain.field(t, "I"); class != "o" {
				t.Errorf("unmapped DumpedStuff.I (stackSmasher) is of class %q, want o", class)
			}
			if n := histoByClass(t, mode, dump)["o"].Instances; n != 10000 {
				t.Errorf("unmapped histo: %d instances of o, want 10000", n)
			}
		})
	}
}

// TestMappingErrors checks that a mapping that cannot be used stops the
// command with an error naming it, and that one naming classes the dump
// lacks changes nothing.
func TestMappingErrors(t *testing.T) {
	dump := filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-default.hprof.gz")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.map")
	if err := os.WriteFile(bad, []byte("# R8\ncom.example.A -> a:\n    int count\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ mapping, want string }{
		{filepath.Join(dir, "none.map"), "--mapping: open " + filepath.Join(dir, "none.map") + ": no such file or directory"},
		{bad, "--mapping: " + bad + ": line 3: expected a member line"},
	} {
		for _, mode := range []string{"--no-index", "--index-dir=" + dir} {
			_, err := runCLI(t, mode, "--mapping", tc.mapping, "histo", dump)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %s...", mode, err, tc.want)
			}
		}
	}
	unrelated := filepath.Join(dir, "unrelated.map")
	if err := os.WriteFile(unrelated, []byte("com.example.Missing -> zz:\n    int count -> a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, err := runCLI(t, "--no-index", "histo", "-o", "json", dump)
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := runCLI(t, "--no-index", "--mapping", unrelated, "histo", "-o", "json", dump)
	if err != nil || mapped != plain {
		t.Errorf("a mapping of classes the dump lacks changed histo (error %v)", err)
	}
}
