package oql

import (
	"math"
	"testing"
)

// The target of fixture.Inspect (EXPECTED.md, "fixture.InspectTarget"):
// one object whose fields hold known values of every kind.
const targetFrom = "fixture.InspectTarget t"

// Fields read as their Java type says: booleans, chars as one-character
// strings, integers sign-extended, floats, references as objects; a
// field of another class and a null reference are null, and so is
// anything read through a null.
func TestFields(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, targetFrom, []exprCase{
			{"t.flag", Bool(true)},
			{"t.tiny", Int(-7)},
			{"t.letter", String("Q")},
			{"t.shortValue", Int(1234)},
			{"t.intValue", Int(0x12345678)},
			{"t.longValue", Int(0x1122334455667788)},
			{"t.floatValue", Float(1.5)},
			{"t.doubleValue", Float(-2.25)},
			{"t.nothing", Null()},
			{"t.nothing.value", Null()},
			{"intValue", Int(0x12345678)},
			{"t.text.coder", Int(0)},
			{"t.utf16Text.coder", Int(1)},
			{"t.boxedInt.value", Int(987654)},
			{"t.boxedLong.value", Int(-5000000000)},
			{"t.color.ordinal", Int(1)},
		})
		d.checkExprs(t, "fixture.InspectReferrerA a", []exprCase{{"a.order", Int(1)}, {"a.target.tiny", Int(-7)}})
		d.checkExprs(t, "fixture.InspectReferrerB b", []exprCase{{"b.weight", Int(42)}, {"b.held.letter", String("Q")}})
		d.fails(t, "SELECT t.intValue.x FROM "+targetFrom, "field x of a number 305419896: not an object")
		// A name no class declares is a mistake, not an empty column
		// (issue #23); a field another class declares is null.
		d.fails(t, "SELECT t.noSuchField FROM "+targetFrom, "unknown field noSuchField: no class of the dump declares it")
		d.checkExprs(t, targetFrom, []exprCase{{"t.weight", Null()}})
		// InspectGrowth.value = index * 1000003 for every object.
		if got := d.count(t, `SELECT * FROM fixture.InspectGrowth g WHERE g.value != g.index * 1000003`); got != 0 {
			t.Errorf("%s: %d growth objects with value != index * 1000003", name, got)
		}
		if got := d.count(t, `SELECT * FROM fixture.InspectGrowth g WHERE g.index < 10`); got != 10 {
			t.Errorf("%s: %d growth objects with index < 10, want 10", name, got)
		}
	}
}

// [k] is an element of an array (of its element type) or of a list;
// outside the bounds and on null it is null.
func TestIndex(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, targetFrom, []exprCase{
			{"t.ints[0]", Int(1)},
			{"t.ints[7]", Int(34)},
			{"t.ints[8]", Null()},
			{"t.ints[-1]", Null()},
			{"t.ints[t.ints[2]]", Int(5)},
			{"t.ints[t.nothing]", Null()},
			{"t.nothing[0]", Null()},
			{"t.chars[1]", String("p")},
			{"t.asciiBytes[0]", Int('h')},
			{"t.asciiBytes[14]", Int('!')},
			{"t.text.value[0]", Int('i')},
			{"t.latin1Text.value[3]", Int(-23)}, // 0xE9 as a Java byte
			{"toString(t.text.value)", String("inspect-target-text")},
			{"inbounds(t)[2]", Null()},
			{"(1, 2, 3)[1]", Int(2)},
		})
		d.fails(t, `SELECT t.ints["a"] FROM `+targetFrom, "index must be an integer, found a string")
		d.fails(t, `SELECT t.intValue[0] FROM `+targetFrom, "[0] of a number: not an array")
	}
}

// The arrays of every element type that fixture.ArrayHolder keeps in its
// statics, the statics of every type of fixture.LayoutStaticOnly and the
// field values the HeapShapes program sets (EXPECTED.md, "Arrays",
// "Layout field values", fixture.Registry.MAP, StackOnly, WeakOnly).
func TestHeapShapesValues(t *testing.T) {
	d := loadDump(t, "jdk17-default.hprof.gz")
	d.checkExprs(t, "OBJECTS fixture.ArrayHolder a", []exprCase{
		{"a.BOOLEANS.@length", Int(9)},
		{"a.BOOLEANS[3]", Bool(true)},
		{"a.BOOLEANS[4]", Bool(false)},
		{"a.BYTES[1]", Int(1*15 - 100)},
		{"a.BYTES[16]", Int(16*15 - 100 - 256)}, // (byte) 140
		{"a.CHARS.@length", Int(0)},
		{"a.CHARS[0]", Null()},
		{"a.SHORTS[0]", Int(-1)},
		{"a.SHORTS[2]", Int(32767)},
		{"a.INTS[36]", Int(36 * 36)},
		{"a.LONGS[4]", Int(1<<60 + 4)},
		{"a.FLOATS[1]", Float(0.25)},
		{"a.DOUBLES[0]", Float(math.Pi)},
		{"a.DOUBLES[1]", Float(-math.E)},
		{"a.OBJECTS.@length", Int(7)},
		{"a.OBJECTS[2]", Null()},
		{"a.OBJECTS[3].index", Int(3)},
		{"toString(a.STRINGS[1])", String("beta")},
		{"a.GRID.@length", Int(2)},
		{"a.GRID[1].@length", Int(3)},
		{"a.GRID[1][2]", Null()},
	})
	d.checkExprs(t, "OBJECTS fixture.LayoutStaticOnly c", []exprCase{
		{"c.SZ", Bool(true)},
		{"c.SB", Int(-7)},
		{"c.SC", String("Z")},
		{"c.SS", Int(12345)},
		{"c.SI", Int(0x12345678)},
		{"c.SF", Float(1.5)},
		{"c.SL", Int(0x0123456789ABCDEF)},
		{"c.SD", Float(3.25)},
		{"toString(c.STR)", String("static-string")},
		{"c.SNULL", Null()},
	})
	d.checkExprs(t, "OBJECTS fixture.Registry r", []exprCase{
		{"r.MAP.size", Int(100)},
		{"r.MAP.table.@length", Int(256)},
	})
	d.checkExprs(t, "fixture.StackOnly s", []exprCase{{"s.value", Int(4242)}})
	d.checkExprs(t, "fixture.WeakOnly w", []exprCase{{"w.marker", Int(0x5745414B4F4E4C59)}, {"w.marker = 0x5745414B4F4E4C59", Bool(true)}})
	for query, want := range map[string]int{
		// Layout class k has 11 + k instances, 980 in all.
		`SELECT * FROM "fixture\.Layout.*"`: 980,
		`SELECT * FROM fixture.LayoutInt`:   16,
		// LayoutInt.i = 0x10000 + i.
		`SELECT DISTINCT x.i FROM fixture.LayoutInt x WHERE x.i >= 0x10000 AND x.i < 0x10000 + 16`: 16,
		// LayoutChar.c = 'A' + i for 14 instances.
		`SELECT * FROM fixture.LayoutChar x WHERE x.c = "A"`:        1,
		`SELECT * FROM fixture.LayoutChar x WHERE x.c LIKE "[A-N]"`: 14,
		// LayoutRef.r is null for the first instance, else itself.
		`SELECT * FROM fixture.LayoutRef x WHERE x.r = x`:    19,
		`SELECT * FROM fixture.LayoutRef x WHERE x.r = null`: 1,
		// Payload.data[j] = (byte) (id * 131 + j * 17 + (j >>> 4)).
		`SELECT * FROM fixture.Payload p WHERE p.data[0] = (p.id * 131 + 128) % 256 - 128`:                         100,
		`SELECT * FROM fixture.Payload p WHERE p.data[999] = (p.id * 131 + 999 * 17 + 999 / 16 + 128) % 256 - 128`: 100,
		`SELECT * FROM fixture.Payload p WHERE p.data.@length = 1000 AND p.id >= 0 AND p.id < 100`:                 100,
		`SELECT DISTINCT p.id FROM fixture.Payload p`:                                                              100,
	} {
		if got := d.count(t, query); got != want {
			t.Errorf("%s: %d rows, want %d", query, got, want)
		}
	}
}

// Arithmetic on integers stays integer, with a float it is float; +
// joins when a side is a string; null, a division by zero and the one
// overflowing division give null.
func TestArithmetic(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	d.checkExprs(t, targetFrom, []exprCase{
		{"t.shortValue + 1", Int(1235)},
		{"t.shortValue - 2000", Int(-766)},
		{"t.shortValue * 2", Int(2468)},
		{"t.shortValue / 10", Int(123)},
		{"t.shortValue % 10", Int(4)},
		{"t.tiny / 2", Int(-3)},
		{"t.tiny % 2", Int(-1)},
		{"-t.tiny", Int(7)},
		{"1 + 2 * 3", Int(7)},
		{"(1 + 2) * 3", Int(9)},
		{"10 - 2 - 3", Int(5)},
		{"t.longValue - t.intValue", Int(0x1122334455667788 - 0x12345678)},
		{"t.shortValue / 0", Null()},
		{"t.shortValue % 0", Null()},
		{"(-9223372036854775807 - 1) / -1", Null()},
		{"t.floatValue * 2", Float(3)},
		{"t.floatValue + t.doubleValue", Float(-0.75)},
		{"t.shortValue + 0.5", Float(1234.5)},
		{"t.doubleValue / 0", Float(math.Inf(-1))},
		{"t.floatValue % 1", Float(0.5)},
		{"t.nothing + 1", Null()},
		{"1 - t.nothing", Null()},
		{`toString(t.text) + "/" + t.shortValue`, String("inspect-target-text/1234")},
		{`t.letter + t.letter`, String("QQ")},
		{`t.flag + "!"`, String("true!")},
		{`"x" + t.floatValue`, String("x1.5")},
	})
	d.fails(t, "SELECT t.flag * 2 FROM "+targetFrom, "* needs numbers, found a boolean and a number")
	d.fails(t, `SELECT t.text - 1 FROM `+targetFrom, "- needs numbers, found an object and a number")
}

// Comparisons order numbers with numbers (integers and floats together)
// and strings with strings; other pairs are unordered (false). = compares
// objects by identity; null equals only null.
func TestComparisons(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	d.checkExprs(t, targetFrom, []exprCase{
		{"t.intValue = 305419896", Bool(true)},
		{"t.intValue != 305419896", Bool(false)},
		{"t.intValue <> 305419896", Bool(false)},
		{"t.tiny < 0", Bool(true)},
		{"t.tiny <= -7", Bool(true)},
		{"t.tiny > -7", Bool(false)},
		{"t.tiny >= -7", Bool(true)},
		{"t.shortValue = 1234.0", Bool(true)},
		{"t.floatValue = 1.5", Bool(true)},
		{"t.floatValue > t.doubleValue", Bool(true)},
		{"t.longValue > t.intValue", Bool(true)},
		{`t.letter = "Q"`, Bool(true)},
		{`t.letter < "R"`, Bool(true)},
		{`toString(t.text) < toString(t.utf16Text)`, Bool(true)},
		{`toString(t.latin1Text) = "café"`, Bool(true)},
		{"t.flag = true", Bool(true)},
		{"t.flag != false", Bool(true)},
		{"t.nothing = null", Bool(true)},
		{"t.text = null", Bool(false)},
		{"t.text != null", Bool(true)},
		{"t = t", Bool(true)},
		{"t.text = t.latin1Text", Bool(false)},
		{"t.color = t.color", Bool(true)},
		{`t.intValue = "305419896"`, Bool(false)},
		{`t.intValue < "a"`, Bool(false)},
		{`t.intValue > "a"`, Bool(false)},
		{"t.text < t.utf16Text", Bool(false)},
		{"(1, 2) = (1, 2)", Bool(true)},
		{"(1, 2) = (2, 1)", Bool(false)},
	})
}

// AND and OR take booleans, null as false, and evaluate their right side
// only when the left does not decide; NOT negates.
func TestLogic(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	d.checkExprs(t, targetFrom, []exprCase{
		{"t.flag AND t.tiny < 0", Bool(true)},
		{"t.flag AND t.tiny > 0", Bool(false)},
		{"t.tiny > 0 OR t.flag", Bool(true)},
		{"t.tiny > 0 OR t.intValue < 0", Bool(false)},
		{"NOT t.flag", Bool(false)},
		{"NOT (t.tiny > 0)", Bool(true)},
		{"NOT NOT t.flag", Bool(true)},
		{"t.nothing AND true", Bool(false)},
		{"t.nothing OR true", Bool(true)},
		{"NOT t.nothing", Bool(true)},
		{"true OR false AND false", Bool(true)},
		{"(true OR false) AND false", Bool(false)},
		// The right side is not evaluated: no error for a number.
		{"t.flag OR t.intValue", Bool(true)},
		{"NOT t.flag AND t.intValue", Bool(false)},
	})
	// An object compared with a number or a string is a mistake.
	d.fails(t, "SELECT * FROM "+targetFrom+" WHERE t.text = 0", "= compares an object with a number 0")
	d.fails(t, "SELECT * FROM "+targetFrom+` WHERE "x" < t`, "< compares an object with a string x")
	// Numbers are conditions, as in Eclipse MAT: 0 is false.
	d.checkExprs(t, targetFrom, []exprCase{
		{"t.intValue AND t.flag", Bool(true)},
		{"t.flag AND (t.intValue - t.intValue)", Bool(false)},
		{"t.floatValue OR false", Bool(true)},
	})
	d.fails(t, "SELECT * FROM "+targetFrom+" WHERE t.text", "expected a condition (true or false), found an object")
	if got := d.count(t, "SELECT * FROM "+targetFrom+" WHERE t.nothing"); got != 0 {
		t.Errorf("WHERE null: %d rows, want 0", got)
	}
}

// LIKE matches a whole string against a regular expression; IN looks in a
// list (or compares with one value).
func TestLikeAndIn(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	d.checkExprs(t, targetFrom, []exprCase{
		{`toString(t.text) LIKE "inspect-.*"`, Bool(true)},
		{`toString(t.text) LIKE "target"`, Bool(false)},
		{`toString(t.text) LIKE ".*target.*"`, Bool(true)},
		{`toString(t.text) NOT LIKE "x.*"`, Bool(true)},
		{`toString(t.utf16Text) LIKE "utf16-Ω-.*"`, Bool(true)},
		{`toString(t.utf16Text) LIKE "utf16-.-text"`, Bool(true)},
		{`t.letter LIKE "[A-Z]"`, Bool(true)},
		{`t.intValue LIKE ".*"`, Bool(false)},
		{`t.nothing LIKE ".*"`, Bool(false)},
		{"t.tiny IN (-7, 3)", Bool(true)},
		{"t.tiny IN (1, 2)", Bool(false)},
		{"t.tiny NOT IN (1, 2)", Bool(true)},
		{"t.shortValue IN 1234", Bool(true)},
		{"t.floatValue IN (1, 1.5)", Bool(true)},
		{`toString(t.color) IN ("RED", "GREEN")`, Bool(true)},
		{"t.text IN outbounds(t)", Bool(true)},
		{"t IN outbounds(t)", Bool(false)},
		{"t.nothing IN (1, null)", Bool(true)},
	})
	d.fails(t, `SELECT toString(t.text) LIKE 5 FROM `+targetFrom, "LIKE needs a regular expression string, found a number")
	d.fails(t, `SELECT toString(t.text) LIKE "(" FROM `+targetFrom, `LIKE "(":`)
}
