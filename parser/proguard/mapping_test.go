package proguard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/proguard"
)

func readMapping(t *testing.T, text string) *proguard.Mapping {
	t.Helper()
	m, err := proguard.Read(strings.NewReader(text), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMappingClass(t *testing.T) {
	m := readMapping(t, sample)
	if m.Classes() != 2 || m.Fields() != 4 || m.Methods() != 5 {
		t.Errorf("%d classes, %d fields, %d methods; want 2, 4, 5", m.Classes(), m.Fields(), m.Methods())
	}
	for _, tc := range []struct {
		obf, want string
		ok        bool
	}{
		{"a.b", "com.example.Cache", true},
		{"a.c", "com.example.Cache$Entry", true},
		{"a.c[]", "com.example.Cache$Entry[]", true},
		{"a.c[][]", "com.example.Cache$Entry[][]", true},
		{"a.d", "a.d", false},
		{"int[]", "int[]", false},
		{"a.c][", "a.c][", false},
		{"a.c[[]]", "a.c[[]]", false},
		{"com.example.Cache", "com.example.Cache", false}, // an original name is no obfuscated one
		{"", "", false},
	} {
		if got, ok := m.Class(tc.obf); got != tc.want || ok != tc.ok {
			t.Errorf("Class(%q) = %q, %v; want %q, %v", tc.obf, got, ok, tc.want, tc.ok)
		}
	}
}

// TestMappingField checks that fields belong to the class that declares
// them, and that fields sharing an obfuscated name are told apart by type.
func TestMappingField(t *testing.T) {
	m := readMapping(t, sample+
		"com.example.Aggressive -> a.d:\n"+
		"    int count -> a\n"+
		"    java.lang.String label -> a\n"+
		"    long stamp -> b\n"+
		"    int[] counts -> b\n"+
		"    java.lang.Object one -> c\n"+
		"    java.lang.Object other -> c\n")
	for _, tc := range []struct {
		class, field, typ, want string
		ok                      bool
	}{
		{"a.b", "a", "", "entries", true},
		{"a.c", "a", "", "value", true},
		{"a.b", "b", "int", "size", true},
		{"a.b", "z", "", "z", false},
		{"a.x", "a", "", "a", false},
		{"com.example.Cache", "a", "", "a", false},
		{"a.d", "a", "int", "count", true},
		{"a.d", "a", "", "label", true},
		{"a.d", "b", "long", "stamp", true},
		{"a.d", "b", "", "counts", true},
		{"a.d", "a", "long", "a", false},
		{"a.d", "c", "", "c", false}, // two references: ambiguous
	} {
		if got, ok := m.Field(tc.class, tc.field, tc.typ); got != tc.want || ok != tc.ok {
			t.Errorf("Field(%q, %q, %q) = %q, %v; want %q, %v", tc.class, tc.field, tc.typ, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMappingFrame(t *testing.T) {
	m := readMapping(t, sample+
		"com.example.Plain -> a.e:\n"+
		"    void run() -> a\n"+
		"    void stop() -> b\n"+
		"    void halt() -> b\n")
	for _, tc := range []struct {
		class, method string
		line          int
		wantClass     string
		wantMethod    string
		wantLine      int
		ok            bool
	}{
		// 1:4:void put(...):31:34 -> e maps line by line.
		{"a.b", "e", 1, "com.example.Cache", "put", 31, true},
		{"a.b", "e", 4, "com.example.Cache", "put", 34, true},
		// Line 5 holds Util.check inlined into put: the last line of
		// the range is put itself, at its original line 35.
		{"a.b", "e", 5, "com.example.Cache", "put", 35, true},
		// A line outside every range: the names disagree.
		{"a.b", "e", 9, "com.example.Cache", "e", 9, false},
		// No range at all: the lines are kept.
		{"a.b", "d", 17, "com.example.Cache", "clear", 17, true},
		{"a.e", "a", -1, "com.example.Plain", "run", -1, true},
		// 7:void <init>(a.c):0:0: synthesized code has no source line.
		{"a.b", "<init>", 7, "com.example.Cache", "<init>", 0, true},
		// One name for the method, but the line is outside its range.
		{"a.b", "<init>", 8, "com.example.Cache", "<init>", 0, true},
		{"a.b", "<init>", -2, "com.example.Cache", "<init>", -2, true},
		// Two methods obfuscated alike, without ranges: ambiguous.
		{"a.e", "b", 3, "com.example.Plain", "b", 3, false},
		{"a.b", "zz", 3, "com.example.Cache", "zz", 3, false},
		{"a.x", "a", 3, "a.x", "a", 3, false},
	} {
		c, meth, line, ok := m.Frame(tc.class, tc.method, tc.line)
		if c != tc.wantClass || meth != tc.wantMethod || line != tc.wantLine || ok != tc.ok {
			t.Errorf("Frame(%q, %q, %d) = %s.%s:%d, %v; want %s.%s:%d, %v", tc.class, tc.method, tc.line,
				c, meth, line, ok, tc.wantClass, tc.wantMethod, tc.wantLine, tc.ok)
		}
	}
	// A method R8 moved into another class names its original class.
	m = readMapping(t, "com.example.Host -> a:\n    1:2:void com.example.Util.helper():7:8 -> b\n")
	if c, meth, line, ok := m.Frame("a", "b", 2); c != "com.example.Util" || meth != "helper" || line != 8 || !ok {
		t.Errorf("moved method: %s.%s:%d, %v; want com.example.Util.helper:8", c, meth, line, ok)
	}
}

func TestMappingDuplicateClass(t *testing.T) {
	_, err := proguard.Read(strings.NewReader("com.A -> a:\ncom.B -> b:\ncom.C -> a:\n"), "m.txt")
	var fe *proguard.FormatError
	if !errors.As(err, &fe) || fe.Line != 3 || err.Error() != "m.txt: line 3: class a is mapped to com.C here and to com.A on line 1" {
		t.Fatalf("error %v", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := proguard.ReadFile(t.TempDir() + "/none.map")
	if err == nil || !strings.Contains(err.Error(), "none.map") {
		t.Fatalf("error %v, want one naming the file", err)
	}
}
