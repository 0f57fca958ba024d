package proguard_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/proguard"
)

// sample is a small mapping written by hand with each kind of line: R8's
// header comments, a JSON metadata comment indented under a member, a
// blank line, CRLF line ends, inner classes, methods with and without
// line ranges, a method inlined from another class and a synthesized
// one (0:0).
const sample = "# compiler: R8\n" +
	"# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n" +
	"com.example.Cache -> a.b:\n" +
	"# {\"id\":\"sourceFile\",\"fileName\":\"Cache.java\"}\n" +
	"    java.util.Map entries -> a\n" +
	"      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"Ljava/util/Map;\"}\n" +
	"    int size -> b\r\n" +
	"    com.example.Cache$Entry[][] table -> c\n" +
	"\n" +
	"    void clear() -> d\n" +
	"    1:4:void put(java.lang.String,java.lang.Object):31:34 -> e\n" +
	"    5:5:boolean com.example.Util.check(int):12:12 -> e\n" +
	"    5:5:void put(java.lang.String,java.lang.Object):35 -> e\n" +
	"    7:void <init>(a.c):0:0 -> <init>\n" +
	"com.example.Cache$Entry -> a.c:\n" +
	"    java.lang.Object value -> a\n"

// entry is the part of an Entry the tests compare.
type entry struct {
	kind                      proguard.Kind
	line                      int64
	orig, obf, typ, args, cls string
	start, end, ostart, oend  int
}

func readAll(t *testing.T, text string) ([]entry, error) {
	t.Helper()
	r := proguard.NewReader(strings.NewReader(text), proguard.Options{Name: "m.txt"})
	var got []entry
	for r.Next() {
		e := r.Entry()
		got = append(got, entry{e.Kind, e.Line, e.Original, e.Obfuscated, e.Type, e.Arguments, e.Class, e.Start, e.End, e.OriginalStart, e.OriginalEnd})
	}
	return got, r.Err()
}

func TestReaderSample(t *testing.T) {
	got, err := readAll(t, sample)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{proguard.Class, 3, "com.example.Cache", "a.b", "", "", "a.b", 0, 0, 0, 0},
		{proguard.Field, 5, "entries", "a", "java.util.Map", "", "a.b", 0, 0, 0, 0},
		{proguard.Field, 7, "size", "b", "int", "", "a.b", 0, 0, 0, 0},
		{proguard.Field, 8, "table", "c", "com.example.Cache$Entry[][]", "", "a.b", 0, 0, 0, 0},
		{proguard.Method, 10, "clear", "d", "void", "", "a.b", -1, -1, -1, -1},
		{proguard.Method, 11, "put", "e", "void", "java.lang.String,java.lang.Object", "a.b", 1, 4, 31, 34},
		{proguard.Method, 12, "com.example.Util.check", "e", "boolean", "int", "a.b", 5, 5, 12, 12},
		{proguard.Method, 13, "put", "e", "void", "java.lang.String,java.lang.Object", "a.b", 5, 5, 35, 35},
		{proguard.Method, 14, "<init>", "<init>", "void", "a.c", "a.b", 7, 7, 0, 0},
		{proguard.Class, 15, "com.example.Cache$Entry", "a.c", "", "", "a.c", 0, 0, 0, 0},
		{proguard.Field, 16, "value", "a", "java.lang.Object", "", "a.c", 0, 0, 0, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestReaderEmpty(t *testing.T) {
	for _, text := range []string{"", "\n\n", "# only a comment\n", "   \n\t\n"} {
		got, err := readAll(t, text)
		if err != nil || len(got) != 0 {
			t.Errorf("%q: %v, %v; want no entries and no error", text, got, err)
		}
	}
}

// TestReaderErrors checks that each malformed line stops the reader with
// a FormatError naming the file, its line and what was expected.
func TestReaderErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int64
		msg  string
	}{
		{"    int a -> b\n", 1, "before any class line"},
		{"# c\ncom.A -> a\n", 2, `expected a class line "ORIGINAL -> OBFUSCATED:"`},
		{"com.A a:\n", 1, "expected a class line"},
		{"com.A -> :\n", 1, "a class name is empty"},
		{"com.A B -> a:\n", 1, "a class name is empty or has spaces"},
		{"com.A -> a:\n    int a\n", 2, "expected a member line"},
		{"com.A -> a:\n    int a -> \n", 2, "expected a member line"},
		{"com.A -> a:\n    int a b -> c\n", 2, `expected a field line "TYPE NAME -> OBFUSCATED"`},
		{"com.A -> a:\n    a -> c\n", 2, "expected a field line"},
		{"com.A -> a:\n    x:2:void f() -> c\n", 2, "bad line range"},
		{"com.A -> a:\n    1:2:3:void f() -> c\n", 2, "bad line range"},
		{"com.A -> a:\n    1:2: f() -> c\n", 2, "expected a method line"},
		{"com.A -> a:\n    void f():x -> c\n", 2, "bad original line range"},
		{"com.A -> a:\n    void f()5 -> c\n", 2, "bad original line range"},
		{"com.A -> a:\n    void f():1:2:3 -> c\n", 2, "bad original line range"},
		{"com.A -> a:\n    void f():99999999999 -> c\n", 2, "bad original line range"},
		{"com.A -> a:\n    void f)( -> c\n", 2, "expected a method line"},
		{"com.A -> a:\n    void (int) -> c\n", 2, "expected a method line"},
		{"com.A -> a:\n    void f(in t) -> c\n", 2, "expected a method line"},
		{"com.A -> a:\n\n    int " + strings.Repeat("x", 70<<10) + " -> a\n", 3, "line is longer than 65536 bytes"},
	} {
		_, err := readAll(t, tc.text)
		var fe *proguard.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%.40q: error %v (%T), want a FormatError", tc.text, err, err)
			continue
		}
		if fe.File != "m.txt" || fe.Line != tc.line || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%.40q: %v; want m.txt line %d: ...%s...", tc.text, err, tc.line, tc.msg)
		}
		if !strings.HasPrefix(err.Error(), "m.txt: line ") {
			t.Errorf("%.40q: %q does not start with the file and line", tc.text, err)
		}
	}
}

// TestReaderLastLineWithoutNewline reads a file whose last line has no
// line end.
func TestReaderLastLineWithoutNewline(t *testing.T) {
	got, err := readAll(t, "com.A -> a:\n    int b -> c")
	if err != nil || len(got) != 2 || got[1].orig != "b" || got[1].obf != "c" {
		t.Fatalf("%v, %v", got, err)
	}
}

// TestReaderRealMapping reads the R8 mapping of ahat's test program (AOSP
// art tools/ahat/etc/test-dump.map, ../shared/corpus/SOURCES.md). The
// counts come from the file itself, not from this reader:
//
//	grep -c -- ' -> .*:$' test-dump.map                       # 26 class lines
//	grep -E '^ +[^ #(]+ [^ (]+ -> ' test-dump.map | wc -l     # 75 field lines
//	grep -E '^ +[^#].*\(.* -> ' test-dump.map | wc -l         # 84 method lines
//	grep -cE '^ *#' test-dump.map                             # 65 comment lines
//
// and 26+75+84+65 = 250 = wc -l, so no line is left unaccounted for.
func TestReaderRealMapping(t *testing.T) {
	path := testshared.Path(t, "corpus", "android", "test-dump.map")
	m, err := proguard.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Classes() != 26 || m.Fields() != 75 || m.Methods() != 84 {
		t.Errorf("%d classes, %d fields, %d methods; want 26, 75, 84", m.Classes(), m.Fields(), m.Methods())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := proguard.NewReader(f, proguard.Options{Name: path})
	for r.Next() {
	}
	if r.Err() != nil || r.Line() != 250 {
		t.Errorf("read %d lines, %v; want 250 and no error", r.Line(), r.Err())
	}
	// Lines of the file, as written there.
	for _, tc := range []struct{ obf, want string }{
		{"DumpedStuff", "DumpedStuff"},                           // line 9
		{"a", "DumpedStuff$AddedObject"},                         // line 104
		{"f", "DumpedStuff$IBinderInterfaceImpostor$Stub"},       // line 128
		{"e", "DumpedStuff$IBinderInterfaceImpostor$Stub$Proxy"}, // line 131
		{"l[]", "DumpedStuff$ObjectTree[]"},                      // line 158, as an array
		{"android.graphics.b", "android.graphics.Bitmap"},        // line 216
		{"a.c", "android.os.IBinder"},                            // line 249
	} {
		if got, ok := m.Class(tc.obf); !ok || got != tc.want {
			t.Errorf("Class(%q) = %q, %v; want %q", tc.obf, got, ok, tc.want)
		}
	}
	for _, tc := range []struct{ class, field, typ, want string }{
		{"DumpedStuff", "D", "", "basicStringRef"},                     // line 14
		{"DumpedStuff", "d", "", "basicString"},                        // line 45
		{"DumpedStuff", "Y", "", "modifiedStaticField"},                // line 44
		{"k", "a", "int", "value"},                                     // line 154
		{"SuperDumpedStuff", "a", "", "objectAllocatedAtObfSuperSite"}, // line 209
		{"android.graphics.b", "c", "int", "mHeight"},                  // line 220
	} {
		if got, ok := m.Field(tc.class, tc.field, tc.typ); !ok || got != tc.want {
			t.Errorf("Field(%q, %q) = %q, %v; want %q", tc.class, tc.field, got, ok, tc.want)
		}
	}
	// Lines 102-103: "1:39:void shouldNotGc():245:245 -> e" and
	// "40:47:void shouldNotGc():252:252 -> e".
	if c, meth, line, ok := m.Frame("DumpedStuff", "e", 41); !ok || c != "DumpedStuff" || meth != "shouldNotGc" || line != 252 {
		t.Errorf("Frame(DumpedStuff, e, 41) = %s.%s:%d, %v; want DumpedStuff.shouldNotGc:252", c, meth, line, ok)
	}
}
