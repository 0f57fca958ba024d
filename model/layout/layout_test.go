package layout

import (
	"fmt"
	"strings"
	"testing"
)

// sizeOf lays out a chain of classes (each extending the previous one) and
// returns the size of the last.
func sizeOf(c Config, names []string, chain ...[]FieldType) int {
	classes := make([]Class, len(chain))
	for i, f := range chain {
		classes[i] = Class{Name: "t.C" + string(rune('A'+i)), Super: i - 1, Fields: f}
		if i < len(names) && names[i] != "" {
			classes[i].Name = names[i]
		}
	}
	s := c.InstanceSizes(classes)
	return s[len(s)-1]
}

func withJDK(c Config, jdk int) Config {
	c.JDK = jdk
	if jdk >= 15 {
		c.Scheme = Compact15
	}
	return c
}

func TestLegacy(t *testing.T) {
	c64 := withJDK(VM64Compressed, 8)
	c32 := withJDK(VM32, 6)
	nc := withJDK(VM64, 6)
	tests := []struct {
		name  string
		c     Config
		names []string
		chain [][]FieldType
		want  int
	}{
		// Object alone: the 12-byte header rounded to 8.
		{"empty", c64, nil, [][]FieldType{nil}, 16},
		// 12-byte header, the int fills the gap at 12 before the long at 16: 24.
		{"int fills long gap", c64, nil, [][]FieldType{{Long, Int}}, 24},
		// No int: the two shorts fill 12..16, long 16..24, byte 24: 25 -> 32.
		{"shorts fill long gap", c64, nil, [][]FieldType{{Long, Short, Short, Byte}}, 32},
		// Only a reference: it takes the gap at 12, long 16..24: 24.
		{"ref fills long gap", c64, nil, [][]FieldType{{Long, Object}}, 24},
		// A1 byte at 12 (block rounded to 16); A2 short at 16 (to 20);
		// A3: reference in the gap 20..24, long 24..32: 32.
		{"super rounded to ref size", c64, nil, [][]FieldType{{Byte}, {Short}, {Long, Object}}, 32},
		// Without compressed oops the super's byte block is rounded to 8:
		// 16 + 1 -> 24, child long 24..32: 32.
		{"super rounded to 8", nc, nil, [][]FieldType{{Byte}, {Long}}, 32},
		// 32-bit: header 8, long 8..16, int 16..20, refs 20..28: 32.
		{"32-bit", c32, nil, [][]FieldType{{Object, Long, Int, Object}}, 32},
		// JDK 8 core class with hard-coded offsets: references first
		// (12..20), no gap filling: long 24..32, boolean 32: 40.
		{"oops first", c64, []string{"java.lang.Throwable"}, [][]FieldType{{Object, Object, Boolean, Long}}, 40},
		// The same fields elsewhere: boolean at 12, long 16..24, refs 24..32.
		{"same fields compacted", c64, []string{"t.Plain"}, [][]FieldType{{Object, Object, Boolean, Long}}, 32},
		// JDK 8 ClassLoader: one reference at 12 and the hidden 8-byte
		// loader_data at 16..24, oops first: 24.
		{"loader_data", c64, []string{"java.lang.ClassLoader"}, [][]FieldType{{Object}}, 24},
		// JDK 6 mirror: 3 hidden references after 1 declared: 12 + 16 = 28 -> 32.
		{"jdk6 mirror", withJDK(VM64Compressed, 6), []string{"java.lang.Class"}, [][]FieldType{{Object}}, 32},
		// Whole-class @Contended (JDK 8 Striped64$Cell): 12 + 128 padding,
		// long aligned to 144..152, 128 padding: 280 -> 280.
		{"contended class", c64, []string{"java.util.concurrent.atomic.Striped64$Cell"}, [][]FieldType{{Long}}, 280},
	}
	for _, tt := range tests {
		if got := sizeOf(tt.c, tt.names, tt.chain...); got != tt.want {
			t.Errorf("%s: size %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestLegacyContendedGroup(t *testing.T) {
	// JDK 8 Thread with one int and the three tlr fields: regular int at
	// 12 -> 16; padding 128 -> 144; long 144..152, ints 152..160; padding
	// 128 -> 288.
	c := withJDK(VM64Compressed, 8)
	classes := []Class{{
		Name:   "java.lang.Thread",
		Super:  -1,
		Fields: []FieldType{Int, Long, Int, Int},
		Names:  []string{"priority", "threadLocalRandomSeed", "threadLocalRandomProbe", "threadLocalRandomSecondarySeed"},
	}}
	if got := c.InstanceSizes(classes)[0]; got != 288 {
		t.Errorf("Thread: %d, want 288", got)
	}
	// Without names the fields are ordinary: int 12, long 16, ints 24..32.
	classes[0].Names = nil
	if got := c.InstanceSizes(classes)[0]; got != 32 {
		t.Errorf("Thread without names: %d, want 32", got)
	}
}

func TestCompact15(t *testing.T) {
	c := withJDK(VM64Compressed, 17)
	nc := withJDK(Config{Word: 8, Header: 16, Ref: 8, Align: 8}, 17)
	coh := withJDK(Config{Word: 8, Header: 8, Ref: 4, Align: 8}, 25)
	tests := []struct {
		name  string
		c     Config
		chain [][]FieldType
		want  int
	}{
		// Long appended at 16 leaves the hole 12..16; the child's byte
		// takes it: 24 (the legacy layout would give 32).
		{"child fills super hole", c, [][]FieldType{{Long}, {Byte}}, 24},
		// The super's end is not rounded: byte at 12 (end 13), child short
		// aligned to 14..16: 16.
		{"super end not rounded", c, [][]FieldType{{Byte}, {Short}}, 16},
		// A1 byte 12, A2 short 14..16, A3 long 16..24, ref 24..28: 32.
		{"three levels", c, [][]FieldType{{Byte}, {Short}, {Long, Object}}, 32},
		// Largest first: long 16..24, int in 12..16, short 24..26,
		// byte 26, refs 28..32, 32..36: 40.
		{"largest first", c, [][]FieldType{{Byte, Object, Short, Int, Object, Long}}, 40},
		// Super: long 16..24, int 12..16, byte 24 (end 25). Child: the
		// short is appended at 26..28 leaving the hole 25..26, which the
		// byte then fills: 28 -> 32.
		{"best fit", c, [][]FieldType{{Byte, Long, Int}, {Short, Byte}}, 32},
		// 16-byte header, 8-byte refs: int 16..20, ref aligned 24..32: 32.
		{"no compressed", nc, [][]FieldType{{Int, Object}}, 32},
		// Compact headers: fields from 8; long 8..16, int 16..20: 24.
		{"compact header", coh, [][]FieldType{{Long, Int}}, 24},
		// Empty class with compact headers: 8.
		{"compact header empty", coh, [][]FieldType{nil}, 8},
	}
	for _, tt := range tests {
		if got := sizeOf(tt.c, nil, tt.chain...); got != tt.want {
			t.Errorf("%s: size %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestCompact15Contended(t *testing.T) {
	c := withJDK(VM64Compressed, 17)
	thread := Class{
		Name:   "java.lang.Thread",
		Super:  -1,
		Fields: []FieldType{Byte, Long, Int, Int},
		Names:  []string{"daemon", "threadLocalRandomSeed", "threadLocalRandomProbe", "threadLocalRandomSecondarySeed"},
	}
	// Thread: byte 12 (end 13); padding 13..141; long 144..152, ints
	// 152..160; padding 160..288: 288.
	// Sub (byte, int) below it: fields only appended after a padding:
	// 160 + 128 = 288, int 288..292, byte 292: 293 -> 296.
	classes := []Class{thread, {Name: "t.Sub", Super: 0, Fields: []FieldType{Byte, Int}}}
	got := c.InstanceSizes(classes)
	if got[0] != 288 || got[1] != 296 {
		t.Errorf("sizes %v, want [288 296]", got)
	}
}

func TestArraySize(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		elem FieldType
		n    int64
		want int64
	}{
		// 32-bit: length at 8, ints from 12: 12 + 3*4 = 24.
		{"32-bit int[3]", withJDK(VM32, 6), Int, 3, 24},
		// 32-bit long elements aligned to 8: 16 + 8 = 24.
		{"32-bit long[1]", withJDK(VM32, 6), Long, 1, 24},
		// Compressed class pointers: length at 12, elements at 16.
		{"byte[0]", withJDK(VM64Compressed, 8), Byte, 0, 16},
		{"Object[3]", withJDK(VM64Compressed, 8), Object, 3, 32},
		// 16-byte header up to JDK 21: elements at 24: 24 + 4 -> 32.
		{"jdk17 int[1] no ccp", withJDK(VM64, 17), Int, 1, 32},
		// From JDK 22 ints start right after the length: 20 + 4 = 24.
		{"jdk22 int[1] no ccp", withJDK(VM64, 22), Int, 1, 24},
		{"jdk22 long[1] no ccp", withJDK(VM64, 22), Long, 1, 32},
		// Compact headers: length at 8, bytes from 12, longs from 16.
		{"coh byte[4]", withJDK(Config{Word: 8, Header: 8, Ref: 4, Align: 8}, 25), Byte, 4, 16},
		{"coh long[1]", withJDK(Config{Word: 8, Header: 8, Ref: 4, Align: 8}, 25), Long, 1, 24},
		// 16-byte alignment: 16 + 1 -> 32.
		{"align 16", withJDK(Config{Word: 8, Header: 12, Ref: 4, Align: 16}, 17), Byte, 1, 32},
	}
	for _, tt := range tests {
		if got := tt.c.ArraySize(tt.elem, tt.n); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestBrokenChains(t *testing.T) {
	classes := []Class{
		{Name: "a", Super: 1, Fields: []FieldType{Int}},
		{Name: "b", Super: 0, Fields: []FieldType{Int}},
		{Name: "c", Super: 7, Fields: []FieldType{Long}},
		{Name: "int[]", Super: -1, Elem: Int},
	}
	for _, c := range []Config{withJDK(VM64Compressed, 8), withJDK(VM64Compressed, 17)} {
		s := c.InstanceSizes(classes)
		if s[2] != 24 || s[3] != 0 || s[0] == 0 || s[1] == 0 {
			t.Errorf("%v: sizes %v", c, s)
		}
	}
}

// synthetic builds a class hierarchy and the observations a dump made by
// config c would show: every instance followed contiguously.
func synthetic(c Config) ([]Class, []Observation) {
	classes := []Class{
		{Name: "java.lang.Object", Super: -1},
		{Name: "java.lang.String", Super: 0, Fields: []FieldType{Object, Byte, Int, Boolean}},
		{Name: "java.lang.Thread$FieldHolder", Super: 0, Fields: []FieldType{Object}},
		{Name: "byte[]", Super: 0, Elem: Byte},
		{Name: "long[]", Super: 0, Elem: Long},
		{Name: "java.lang.Object[]", Super: 0, Elem: Object},
	}
	shapes := [][]FieldType{
		{Byte}, {Long}, {Int, Long}, {Object}, {Object, Object, Object}, {Short, Byte},
		{Long, Byte, Object}, {Double, Boolean, Object, Object, Int},
	}
	for i, f := range shapes {
		classes = append(classes, Class{Name: "t.S" + string(rune('a'+i)), Super: 0, Fields: f})
		classes = append(classes, Class{Name: "t.D" + string(rune('a'+i)), Super: len(classes) - 1, Fields: []FieldType{Byte, Int}})
	}
	sizes := c.InstanceSizes(classes)
	var obs []Observation
	for i, cl := range classes {
		if cl.Elem != 0 {
			for n := int64(0); n < 5; n++ {
				obs = append(obs, Observation{Class: i, Length: n, Gap: c.ArraySize(cl.Elem, n)})
			}
			continue
		}
		obs = append(obs, Observation{Class: i, Gap: int64(sizes[i])})
	}
	return classes, obs
}

func TestInferFindsLayout(t *testing.T) {
	for _, want := range []Config{
		withJDK(VM64Compressed, 19),
		withJDK(VM64, 19),
		withJDK(Config{Word: 8, Header: 16, Ref: 4, Align: 8}, 19),
		withJDK(Config{Word: 8, Header: 12, Ref: 4, Align: 16}, 19),
		withJDK(Config{Word: 8, Header: 8, Ref: 4, Align: 8}, 24),
	} {
		classes, obs := synthetic(want)
		got, reason := Infer(8, classes, obs)
		if got.Header != want.Header || got.Ref != want.Ref || got.Align != want.Align || got.Scheme != want.Scheme {
			t.Errorf("Infer = %v (%s), want %v", got, reason, want)
		}
	}
}

func TestInferFallback(t *testing.T) {
	classes, obs := synthetic(withJDK(VM64Compressed, 19))
	for i := range obs {
		obs[i].Gap = 1 // agent-style ids: consecutive numbers
	}
	got, reason := Infer(4, classes, obs)
	if got.Word != 4 || got.Header != 8 || !strings.Contains(reason, "not addresses") {
		t.Errorf("agent ids: %v (%s)", got, reason)
	}
	got, reason = Infer(8, classes, nil)
	if got.Header != 12 || got.Ref != 4 || got.Scheme != Compact15 || !strings.Contains(reason, "no object addresses") {
		t.Errorf("no observations: %v (%s)", got, reason)
	}
}

// manyClasses returns 30,000 classes three deep with a few fields each, and
// the address gaps a JDK 17 VM with compressed oops leaves between their
// instances.
func manyClasses() ([]Class, []Observation) {
	classes := []Class{{Name: "java.lang.Object", Super: -1}}
	for i := 0; i < 10000; i++ {
		base := len(classes)
		classes = append(classes,
			Class{Name: "p.A", Super: 0, Fields: []FieldType{Long, Byte, Object, Int}},
			Class{Name: "p.B", Super: base, Fields: []FieldType{Short, Object, Object}},
			Class{Name: "p.C", Super: base + 1, Fields: []FieldType{Double, Boolean, Int, Object}})
	}
	sizes := withJDK(VM64Compressed, 17).InstanceSizes(classes)
	obs := make([]Observation, len(classes))
	for i := range classes {
		obs[i] = Observation{Class: i, Gap: int64(sizes[i])}
	}
	return classes, obs
}

// TestInferManyClasses: the gaps of 30,000 classes lead Infer to the
// layout that made them.
func TestInferManyClasses(t *testing.T) {
	classes, obs := manyClasses()
	got, reason := Infer(8, classes, obs)
	if got.Word != 8 || got.Header != 12 || got.Ref != 4 || got.Align != 8 || got.Scheme != Compact15 {
		t.Errorf("Infer = %v (%s), want 8-byte words, 12-byte headers, 4-byte references, 8-byte alignment, JDK 15+ packing", got, reason)
	}
}

func BenchmarkInfer(b *testing.B) {
	classes, obs := manyClasses()
	for b.Loop() {
		Infer(8, classes, obs)
	}
}

func TestFieldOffsets(t *testing.T) {
	j8 := withJDK(VM64Compressed, 8)
	j17 := withJDK(VM64Compressed, 17)
	j25 := withJDK(VM64Compressed, 25)
	oopsFirst := j8
	oopsFirst.Scheme = LegacyOopsFirst
	mixed := []FieldType{Long, Int, Int, Object, Short}
	tests := []struct {
		name    string
		c       Config
		classes []Class
		want    []int // offsets of the last class's fields
	}{
		// Legacy: the first int fills the gap at 12 before the long at
		// 16; the second int follows the long, the short the ints, the
		// reference comes last, aligned: [16 12 24 32 28].
		{"legacy", j8, []Class{{Name: "t.A", Super: -1, Fields: mixed}}, []int{16, 12, 24, 32, 28}},
		// FieldsAllocationStyle=0: the reference first at 12, then the
		// long at 16, ints at 24 and 28, the short at 32.
		{"oops first", oopsFirst, []Class{{Name: "t.A", Super: -1, Fields: mixed}}, []int{16, 24, 28, 12, 32}},
		// JDK 8 String has hard-coded offsets: value at 12, hash at 16.
		{"special", j8, []Class{{Name: "java.lang.String", Super: -1, Fields: []FieldType{Object, Int}}}, []int{12, 16}},
		// JDK 15+: long appended at 16, the int takes the hole at 12,
		// the byte goes to 24, the reference to 28.
		{"compact", j17, []Class{{Name: "t.A", Super: -1, Fields: []FieldType{Byte, Long, Object, Int}}}, []int{24, 16, 28, 12}},
		// Below a superclass ending with a reference, JDK 25 puts the
		// references first: the reference at 16, the int at 20.
		{"jdk25 oops lead", j25, []Class{
			{Name: "t.P", Super: -1, Fields: []FieldType{Object}},
			{Name: "t.C", Super: 0, Fields: []FieldType{Int, Object}},
		}, []int{20, 16}},
		// JDK 17 places the int first: 16, the reference at 20.
		{"jdk17 prims lead", j17, []Class{
			{Name: "t.P", Super: -1, Fields: []FieldType{Object}},
			{Name: "t.C", Super: 0, Fields: []FieldType{Int, Object}},
		}, []int{16, 20}},
		// A dump listing fields last to first (String's value comes last):
		// the declared order is a, b, so a is at 12 and b at 16.
		{"reversed dump order", j17, []Class{
			{Name: "java.lang.String", Super: -1, Fields: []FieldType{Int, Object}, Names: []string{"hash", "value"}},
			{Name: "t.A", Super: -1, Fields: []FieldType{Int, Int}, Names: []string{"b", "a"}},
		}, []int{16, 12}},
	}
	for _, tt := range tests {
		offs := tt.c.FieldOffsets(tt.classes)
		got := offs[len(offs)-1]
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: offsets %v, want %v", tt.name, got, tt.want)
		}
	}
}

// mirrorClasses is java.lang.Class as JDK 8 declares it (ten references
// and an int), a class with static fields and an array class.
func mirrorClasses(statics []Static) []Class {
	class := Class{Name: "java.lang.Class", Super: -1}
	for i := 0; i < 10; i++ {
		class.Fields = append(class.Fields, Object)
	}
	class.Fields = append(class.Fields, Int)
	return []Class{
		class,
		{Name: "t.S", Super: -1, Statics: statics},
		{Name: "t.S[]", Super: -1, Elem: Object},
	}
}

func TestMirrorSizes(t *testing.T) {
	statics := []Static{
		{Name: "a", Type: Object}, {Name: "b", Type: Object}, {Name: "c", Type: Object},
		{Name: "l", Type: Long}, {Name: "i", Type: Int}, {Name: "z", Type: Boolean},
		{Name: "<resolved_references>", Type: Object},
	}
	tests := []struct {
		name string
		c    Config
		want []int
	}{
		// JDK 8, compressed oops: java.lang.Class is laid out references
		// first: 12 + 13 * 4 = 64, klass and array_klass 64..80, three
		// ints 80..92: 96. Statics from 96: references 96..108, the long
		// aligned to 112..120, int 120..124, boolean 124: 29 bytes, 32
		// rounded to the word: 128. The array class has no statics.
		{"jdk8", withJDK(VM64Compressed, 8), []int{96, 128, 96}},
		// 32-bit JDK 8: klass and array_klass are ints: 8 + 13 * 4 = 60,
		// five ints: 80. Statics: 80..92, long 96..104, int, boolean: 29
		// bytes, 32 rounded to the word: 112.
		{"jdk8 32-bit", withJDK(VM32, 8), []int{80, 112, 80}},
		// JDK 6 mirrors have a fixed size: 12 + 13 references (3 hidden)
		// and an int, 68: 72.
		{"jdk6", withJDK(VM64Compressed, 6), []int{72, 72, 72}},
		// 16-byte alignment: the statics start at 96, the mirror is
		// rounded to 128.
		{"align 16", func() Config { c := withJDK(VM64Compressed, 8); c.Align = 16; return c }(), []int{96, 128, 96}},
	}
	for _, tt := range tests {
		got := tt.c.MirrorSizes(mirrorClasses(statics))
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: mirror sizes %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := withJDK(VM64Compressed, 8).MirrorSizes([]Class{{Name: "t.S", Super: -1}}); got[0] != 0 {
		t.Errorf("without java.lang.Class: %v, want 0", got)
	}
}

// concurrencyClasses mimics the JDK 6 classes whose statics record field
// offsets, with the values the given layout gives them.
func concurrencyClasses(valueOff, stateOff, headOff, tailOff, waitOff, nextOff, objBase, objScale uint64) []Class {
	long := func(name string, v uint64) Static { return Static{Name: name, Type: Long, Value: v} }
	return []Class{
		{Name: "java.lang.Object", Super: -1},
		{Name: "java.util.concurrent.atomic.AtomicInteger", Super: 0, Fields: []FieldType{Int}, Names: []string{"value"},
			Statics: []Static{long("valueOffset", valueOff), long("serialVersionUID", 6214790243416807050)}},
		{Name: "java.util.concurrent.locks.AbstractOwnableSynchronizer", Super: 0, Fields: []FieldType{Object}, Names: []string{"exclusiveOwnerThread"}},
		{Name: "java.util.concurrent.locks.AbstractQueuedSynchronizer", Super: 2,
			Fields: []FieldType{Object, Object, Int}, Names: []string{"head", "tail", "state"},
			Statics: []Static{long("stateOffset", stateOff), long("headOffset", headOff), long("tailOffset", tailOff),
				long("waitStatusOffset", waitOff), long("nextOffset", nextOff), {Name: "VALUES", Type: Int, Value: 1}}},
		{Name: "java.util.concurrent.locks.AbstractQueuedSynchronizer$Node", Super: 0,
			Fields: []FieldType{Int, Object, Object, Object, Object}, Names: []string{"waitStatus", "prev", "next", "thread", "nextWaiter"}},
		{Name: "sun.misc.Unsafe", Super: 0, Statics: []Static{
			{Name: "ARRAY_OBJECT_BASE_OFFSET", Type: Int, Value: objBase},
			{Name: "ARRAY_OBJECT_INDEX_SCALE", Type: Int, Value: objScale},
			{Name: "INVALID_FIELD_OFFSET", Type: Int, Value: 0xFFFFFFFF}}},
	}
}

func TestFindClues(t *testing.T) {
	classes := concurrencyClasses(12, 16, 20, 24, 12, 20, 16, 4)
	clues := findClues(classes)
	var got []string
	for _, k := range clues {
		got = append(got, fmt.Sprintf("%s:%d", k.name, k.kind))
	}
	want := "[valueOffset:1 stateOffset:1 headOffset:1 tailOffset:1 waitStatusOffset:1 nextOffset:1 ARRAY_OBJECT_BASE_OFFSET:2 ARRAY_OBJECT_INDEX_SCALE:3]"
	if fmt.Sprint(got) != want {
		t.Fatalf("clues %v, want %s", got, want)
	}
	// waitStatusOffset and nextOffset name fields of the nested Node.
	if node := clues[4].class; classes[node].Name != "java.util.concurrent.locks.AbstractQueuedSynchronizer$Node" {
		t.Errorf("waitStatusOffset found in %s", classes[node].Name)
	}
	// Array bases and shifts, typed by the class that holds them; under
	// the layout that made them, every clue is predicted.
	classes = append(classes,
		Class{Name: "java.util.concurrent.atomic.AtomicLongArray", Super: 0, Statics: []Static{
			{Name: "base", Type: Int, Value: 16}, {Name: "shift", Type: Int, Value: 3}}},
		Class{Name: "java.util.concurrent.ConcurrentHashMap", Super: 0, Statics: []Static{
			{Name: "ABASE", Type: Long, Value: 16}, {Name: "ASHIFT", Type: Int, Value: 2}, {Name: "base", Type: Int, Value: 99}}})
	clues = findClues(classes)
	c := withJDK(VM64Compressed, 8)
	offs := c.FieldOffsets(classes)
	if len(clues) != 12 {
		t.Errorf("%d clues, want 12", len(clues))
	}
	for i := range clues {
		if got := c.predict(&clues[i], offs); got != clues[i].value {
			t.Errorf("%s: predicted %d", clues[i].describe(classes), got)
		}
	}
	for _, tt := range []struct {
		name  string
		field string
	}{
		{"valueOffset", "value"}, {"WAIT_STATUS_OFFSET", "waitstatus"}, {"SIZECTL", "sizectl"},
		{"serialVersionUID", ""}, {"Offset", ""}, {"ab", ""},
	} {
		if got := offsetFieldName(tt.name); got != tt.field {
			t.Errorf("offsetFieldName(%q) = %q, want %q", tt.name, got, tt.field)
		}
	}
}

func TestInferFromStatics(t *testing.T) {
	for _, tt := range []struct {
		name    string
		classes []Class
		want    Config
	}{
		// The values of the 64-bit JDK 6u31 agent dumps of the corpus.
		{"compressed oops", concurrencyClasses(12, 16, 20, 24, 12, 20, 16, 4), VM64Compressed},
		{"no compressed oops", concurrencyClasses(16, 24, 32, 40, 16, 32, 24, 8), VM64},
		{"32-bit", concurrencyClasses(8, 12, 16, 20, 8, 16, 12, 4), VM32},
	} {
		// Agent ids: consecutive numbers, no addresses.
		obs := []Observation{{Class: 1, Gap: 1}, {Class: 3, Gap: 1}, {Class: 4, Gap: 1}}
		got, reason := Infer(4, tt.classes, obs)
		if got.Word != tt.want.Word || got.Header != tt.want.Header || got.Ref != tt.want.Ref {
			t.Errorf("%s: Infer = %v (%s)", tt.name, got, reason)
		}
		if !strings.Contains(reason, "not addresses") || !strings.Contains(reason, "8 of 8 offset statics agree") {
			t.Errorf("%s: reason %q", tt.name, reason)
		}
	}
	// Statics no layout predicts: the usual layout for the id size.
	classes := concurrencyClasses(44, 44, 44, 44, 44, 44, 44, 4)
	got, reason := Infer(4, classes[:5], nil)
	if got.Word != 4 || !strings.Contains(reason, "no layout predicts") {
		t.Errorf("contradictory statics: %v (%s)", got, reason)
	}
}
