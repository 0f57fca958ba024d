package model_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/proguard"
)

// testMapping is a mapping written by hand: a class and its subclass that
// both have a field obfuscated as a, a static field, an inner class and a
// method with line ranges.
const testMapping = `com.example.Base -> a:
    int count -> a
    1:3:void run():10:12 -> b
com.example.Derived -> b:
    java.lang.String label -> a
    java.util.List ITEMS -> b
com.example.Derived$Entry -> c:
    long stamp -> a
`

func readTestMapping(t *testing.T) *proguard.Mapping {
	t.Helper()
	m, err := proguard.Read(strings.NewReader(testMapping), "test.map")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeobfuscate(t *testing.T) {
	fields := []model.Field{{Name: "a", Type: model.TypeObject}, {Name: "z", Type: model.TypeInt}}
	h := &model.Heap{
		Classes: []model.Class{
			{Name: "a", Super: model.NoClass, Fields: []model.Field{{Name: "a", Type: model.TypeInt}}},
			{Name: "b", Super: 0, Fields: fields, Statics: []model.Static{{Name: "b", Type: model.TypeObject, Value: 7}}},
			{Name: "c[]", Super: model.NoClass, Elem: model.TypeObject},
			{Name: "c", Super: model.NoClass, Fields: []model.Field{{Name: "a", Type: model.TypeLong}}},
			{Name: "java.lang.String", Super: model.NoClass, Fields: []model.Field{{Name: "a", Type: model.TypeObject}}},
			{Name: "int[]", Super: model.NoClass, Elem: model.TypeInt},
		},
		Traces: []model.Trace{{Serial: 1, Frames: []thread.Frame{
			{Class: "a", Method: "b", Line: 2},
			{Class: "a", Method: "b", Line: thread.LineNative},
			{Class: "a", Method: "b", Line: 9},
			{Class: "java.lang.Thread", Method: "run", Line: 5},
		}}},
	}
	h.Deobfuscate(readTestMapping(t))
	var names []string
	for _, c := range h.Classes {
		names = append(names, c.Name)
	}
	if want := []string{"com.example.Base", "com.example.Derived", "com.example.Derived$Entry[]", "com.example.Derived$Entry", "java.lang.String", "int[]"}; !reflect.DeepEqual(names, want) {
		t.Errorf("classes %v, want %v", names, want)
	}
	// Each class's fields as the class that declares them maps them.
	for i, want := range [][]string{{"count"}, {"label", "z"}, nil, {"stamp"}, {"a"}, nil} {
		var got []string
		for _, f := range h.Classes[i].Fields {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s fields %v, want %v", h.Classes[i].Name, got, want)
		}
	}
	if s := h.Classes[1].Statics; len(s) != 1 || s[0].Name != "ITEMS" || s[0].Value != 7 {
		t.Errorf("statics %+v, want ITEMS = 7", s)
	}
	if fields[0].Name != "a" {
		t.Error("Deobfuscate wrote into the heap's field slice instead of replacing it")
	}
	want := []thread.Frame{
		{Class: "com.example.Base", Method: "run", Line: 11},
		{Class: "com.example.Base", Method: "run", Line: thread.LineNative},
		{Class: "com.example.Base", Method: "run", Line: thread.LineUnknown},
		{Class: "java.lang.Thread", Method: "run", Line: 5},
	}
	if got := h.Traces[0].Frames; !reflect.DeepEqual(got, want) {
		t.Errorf("frames\n%+v, want\n%+v", got, want)
	}

	// A second call maps nothing again: "com.example.Base" is no
	// obfuscated name, but a mapping could make it one.
	h.Deobfuscate(readTestMapping(t))
	if h.Classes[0].Name != "com.example.Base" || h.Classes[1].Fields[0].Name != "label" {
		t.Errorf("second call changed the names: %s, %s", h.Classes[0].Name, h.Classes[1].Fields[0].Name)
	}
	h.Deobfuscate(nil)
}

func TestDeobfuscateProfile(t *testing.T) {
	p := &model.Profile{
		Traces: []model.Trace{{Serial: 3, Frames: []thread.Frame{{Class: "a", Method: "b", Line: 1}}}},
		Sites:  &model.SiteTable{Sites: []model.AllocSite{{Class: "c[]"}, {Class: "java.lang.Object"}}},
	}
	sites := p.Sites
	p.Deobfuscate(readTestMapping(t))
	if f := p.Traces[0].Frames[0]; f.Class != "com.example.Base" || f.Method != "run" || f.Line != 10 {
		t.Errorf("frame %+v, want com.example.Base.run:10", f)
	}
	if got := []string{p.Sites.Sites[0].Class, p.Sites.Sites[1].Class}; got[0] != "com.example.Derived$Entry[]" || got[1] != "java.lang.Object" {
		t.Errorf("sites %v", got)
	}
	if sites.Sites[0].Class != "c[]" {
		t.Error("Deobfuscate wrote into the profile's site table instead of replacing it")
	}
	var none *model.Profile
	none.Deobfuscate(readTestMapping(t))
}
