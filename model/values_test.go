package model

import (
	"math"
	"path/filepath"
	"testing"
)

// TestReadValuesInspectTarget decodes fixture.InspectTarget and the
// objects it references, as fixture.Inspect built them
// (testdata/jvm/EXPECTED.md, "fixture.InspectTarget"), from the committed
// single-member gzip (streamed) and from a plain copy (read at offsets).
func TestReadValuesInspectTarget(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		gz := filepath.Join("..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz")
		plain := filepath.Join(t.TempDir(), jdk+".hprof")
		unzip(t, gz, plain)
		for _, path := range []string{gz, plain} {
			t.Run(filepath.Base(path), func(t *testing.T) {
				h, err := loadPath(t, path)
				if err != nil {
					t.Fatal(err)
				}
				checkTargetValues(t, h)
			})
		}
	}
}

func checkTargetValues(t *testing.T, h *Heap) {
	targets := instancesOf(h, classNamed(t, h, "fixture.InspectTarget"))
	if len(targets) != 1 {
		t.Fatalf("%d InspectTarget objects, want 1", len(targets))
	}
	target := targets[0]
	vals, err := ReadValues(h, []ObjectIndex{target}, ValueOptions{Elements: 3})
	if err != nil {
		t.Fatal(err)
	}
	tv := vals[target]
	if tv == nil || tv.Length != -1 {
		t.Fatalf("target values: %+v", tv)
	}
	field := func(name string) Value {
		v, ok := tv.Field(name)
		if !ok {
			t.Fatalf("no field %s", name)
		}
		return v
	}
	prims := []struct {
		name string
		typ  Type
		want uint64
	}{
		{"flag", TypeBoolean, 1},
		{"tiny", TypeByte, 0xF9},
		{"letter", TypeChar, 'Q'},
		{"shortValue", TypeShort, 1234},
		{"intValue", TypeInt, 0x12345678},
		{"longValue", TypeLong, 0x1122334455667788},
		{"floatValue", TypeFloat, uint64(math.Float32bits(1.5))},
		{"doubleValue", TypeDouble, math.Float64bits(-2.25)},
	}
	for _, p := range prims {
		if v := field(p.name); v.Type != p.typ || v.Bits != p.want || v.Ref != NoObject {
			t.Errorf("%s = %+v, want type %d bits 0x%x", p.name, v, p.typ, p.want)
		}
	}
	if v := field("nothing"); v.Type != TypeObject || v.Bits != 0 || v.Ref != NoObject {
		t.Errorf("nothing = %+v, want null", v)
	}
	if len(tv.Fields) != 18 {
		t.Errorf("%d fields, want the 18 InspectTarget declares", len(tv.Fields))
	}
	var next []ObjectIndex
	for _, f := range tv.Fields {
		if f.Ref != NoObject {
			next = append(next, f.Ref, f.Ref)
			next = append(next, h.Refs(f.Ref)...)
		}
	}
	all, err := ReadValues(h, next, ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"text": "inspect-target-text", "latin1Text": "café", "utf16Text": "utf16-Ω-text"} {
		if got, ok := StringText(all, field(name).Ref); !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", name, got, ok, want)
		}
	}
	ints := all[field("ints").Ref]
	want := []uint64{1, 2, 3, 5, 8, 13, 21, 34}
	if ints == nil || ints.Length != 8 || ints.Elem != TypeInt || len(ints.Elements) != 8 {
		t.Fatalf("ints = %+v", ints)
	}
	for k, e := range ints.Elements {
		if e.Bits != want[k] || e.Type != TypeInt {
			t.Errorf("ints[%d] = %+v, want %d", k, e, want[k])
		}
	}
	if b := all[field("asciiBytes").Ref]; b == nil || string(b.Data) != "hello, inspect!" {
		t.Errorf("asciiBytes = %+v", b)
	}
	if c := all[field("chars").Ref]; c == nil || len(c.Elements) != 5 || rune(c.Elements[1].Bits) != 'p' {
		t.Errorf("chars = %+v", c)
	}
	if v, ok := all[field("boxedInt").Ref].Field("value"); !ok || int32(v.Bits) != 987654 {
		t.Errorf("boxedInt.value = %+v", v)
	}
	if v, ok := all[field("boxedLong").Ref].Field("value"); !ok || int64(v.Bits) != -5000000000 {
		t.Errorf("boxedLong.value = %+v", v)
	}
	color := all[field("color").Ref]
	if v, ok := color.Field("ordinal"); !ok || v.Bits != 1 {
		t.Errorf("color.ordinal = %+v", v)
	}

	// Elements are cut to what was asked; the length stays.
	cut, err := ReadValues(h, []ObjectIndex{field("ints").Ref}, ValueOptions{Elements: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c := cut[field("ints").Ref]; c == nil || c.Length != 8 || len(c.Elements) != 3 || len(c.Data) != 12 || c.Elements[2].Bits != 3 {
		t.Errorf("ints cut to 3 = %+v", c)
	}

	// A class object's values are its statics.
	inspect := h.Classes[classNamed(t, h, "fixture.Inspect")].Object
	cls, err := ReadValues(h, []ObjectIndex{inspect}, ValueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cls[inspect].Field("referrerA"); !ok || v.Ref == NoObject || h.Classes[h.ClassOf(v.Ref)].Name != "fixture.InspectReferrerA" {
		t.Errorf("Inspect.referrerA = %+v", v)
	}
}
