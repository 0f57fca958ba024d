package oql

import (
	"testing"

	"github.com/hprofctl/hprofctl/model"
)

// toString gives a String's text whatever its coder, a char[] or byte[] as
// text, a box's value, an enum constant's or a Thread's name, a class's
// name, "" for other objects, and the text of a value that is no object.
func TestToString(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, targetFrom, []exprCase{
			{"toString(t.text)", String("inspect-target-text")},
			{"toString(t.latin1Text)", String("café")},
			{"toString(t.utf16Text)", String("utf16-Ω-text")},
			{"t.text.toString()", String("inspect-target-text")},
			{"toString(t.asciiBytes)", String("hello, inspect!")},
			{"toString(t.chars)", String("hprof")},
			{"toString(t.boxedInt)", String("987654")},
			{"toString(t.boxedLong)", String("-5000000000")},
			{"toString(t.color)", String("GREEN")},
			{"toString(t)", String("")},
			{"toString(t.ints)", String("")},
			{"toString(classof(t))", String("fixture.InspectTarget")},
			{"toString(t.intValue)", String("305419896")},
			{"toString(t.floatValue)", String("1.5")},
			{"toString(t.flag)", String("true")},
			{"toString(t.nothing)", Null()},
		})
		// The two threads the program names (EXPECTED.md).
		for _, thread := range []string{"main", "inspect-stack-holder"} {
			if got := d.count(t, `SELECT * FROM java.lang.Thread th WHERE toString(th) = "`+thread+`"`); got != 1 {
				t.Errorf("%s: %d threads named %s, want 1", name, got, thread)
			}
		}
		got := d.rows(t, `SELECT toString(c) FROM fixture.InspectColor c`)
		names := map[string]bool{}
		for _, row := range got {
			names[row[0].Str] = true
		}
		if len(names) != 3 || !names["RED"] || !names["GREEN"] || !names["BLUE"] {
			t.Errorf("%s: the colors' names: %v", name, got)
		}
	}
}

// toHex, sizeof and classof; the attributes of objects: sizes (the
// histogram's bytes per instance, EXPECTED.md's retained sizes), lengths,
// names, the class, the address and the GC roots.
func TestAttributes(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, targetFrom, []exprCase{
			{"toHex(255)", String("0xff")},
			{"toHex(t.intValue)", String("0x12345678")},
			{"toHex(-1)", String("0xffffffffffffffff")},
			{"toHex(t.@objectAddress) = toHex(t)", Bool(true)},
			{"sizeof(t)", Int(88)},
			{"sizeof(inbounds(t))", Int(2)},
			{"sizeof(t.nothing)", Null()},
			{"t.@usedHeapSize", Int(88)},
			{"@usedHeapSize", Int(88)},
			{"t.@USEDHEAPSIZE", Int(88)},
			{"t.ints.@usedHeapSize", Int(48)},
			{"t.utf16Text.value.@usedHeapSize", Int(40)},
			{"t.@retainedHeapSize", Int(416)},
			{"t.text.@retainedHeapSize", Int(24 + 40)},
			{"t.ints.@length", Int(8)},
			{"t.text.value.@length", Int(19)},
			{"t.utf16Text.value.@length", Int(24)},
			{"t.@length", Null()},
			{"classof(t.ints).@length", Null()},
			{"inbounds(t).@length", Int(2)},
			{"t.nothing.@length", Null()},
			{"classof(t).@name", String("fixture.InspectTarget")},
			{"classof(t.ints).@name", String("int[]")},
			{"classof(t.chars).@name", String("char[]")},
			{"classof(classof(t)).@name", String("java.lang.Class")},
			{"t.@name", Null()},
			{"t.@clazz = classof(t)", Bool(true)},
			{"t.@class.@name", String("fixture.InspectTarget")},
			{`t.@displayName = "fixture.InspectTarget @ " + toHex(t)`, Bool(true)},
			{`classof(t).@displayName = "class fixture.InspectTarget @ " + toHex(classof(t))`, Bool(true)},
			{"t.@GCRootInfo", Null()},
		})
		d.checkExprs(t, "fixture.InspectReferrerA a", []exprCase{
			{"a.@usedHeapSize", Int(24)},
			{"a.@retainedHeapSize", Int(24)},
		})
		// The stack frame's long[1 << 20]: its only GC root is a Java
		// frame; it retains only itself.
		d.checkExprs(t, "long[] b WHERE b.@length = 1048576", []exprCase{
			{"b.@usedHeapSize", Int(16 + 8*1048576)},
			{"b.@retainedHeapSize", Int(16 + 8*1048576)},
			{"b.@GCRootInfo", String(model.RootJavaFrame.String())},
			{"b[0]", Int(0x4649525354)},
			{"b[1048575]", Int(0x4C415354)},
			{"b[1]", Int(0)},
		})
		// --size fields counts the bytes the dump records: 30 bytes of
		// primitive fields and 10 references of 8 bytes.
		d.checkExprsWith(t, targetFrom, Options{Size: model.SizeFields}, []exprCase{
			{"t.@usedHeapSize", Int(30 + 10*8)},
			{"sizeof(t)", Int(30 + 10*8)},
			{"t.ints.@usedHeapSize", Int(8 * 4)},
			{"t.text.value.@usedHeapSize", Int(19)},
		})
		// @objectId is the object's index in the heap, @objectAddress
		// its id in the dump.
		rows := d.rows(t, "SELECT t, t.@objectId, t.@objectAddress FROM "+targetFrom)
		obj, id, addr := rows[0][0], rows[0][1], rows[0][2]
		if i, ok := d.h.Lookup(uint64(addr.Int)); !ok || i != obj.Obj || int64(i) != id.Int || obj.ID != uint64(addr.Int) {
			t.Errorf("%s: the target is object %d (id 0x%x); @objectId %d, @objectAddress 0x%x", name, obj.Obj, obj.ID, id.Int, addr.Int)
		}
		d.fails(t, "SELECT t.@frob FROM "+targetFrom, "unknown attribute @frob")
		d.fails(t, "SELECT t.intValue.@usedHeapSize FROM "+targetFrom, "@usedHeapSize of a number: not an object")
		d.fails(t, `SELECT toHex("a") FROM `+targetFrom, "toHex of a string")
		d.fails(t, `SELECT sizeof(t.flag) FROM `+targetFrom, "sizeof of a boolean")
		d.fails(t, `SELECT classof(1) FROM `+targetFrom, "classof of a number: not an object")
	}
}

// The dominator tree and the references: the target alone references its
// Strings, arrays and boxes, so it dominates them, and each String its
// value array; the color is shared with InspectColor's statics; the
// referrers A and B, held by statics of fixture.Inspect, are the
// target's only referrers (EXPECTED.md).
func TestGraphFunctions(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, targetFrom, []exprCase{
			{"dominatorof(t.text) = t", Bool(true)},
			{"dominatorof(t.text.value) = t.text", Bool(true)},
			{"dominatorof(t.boxedLong) = t", Bool(true)},
			{"dominatorof(t.color) != t", Bool(true)},
			{"toString(dominatorof(t))", String("fixture.Inspect")},
			{"dominatorof(t.nothing)", Null()},
			{"dominators(t).@length", Int(8)},
			{"t.text IN dominators(t)", Bool(true)},
			{"t.ints IN dominators(t)", Bool(true)},
			{"t.color IN dominators(t)", Bool(false)},
			{"t.text.value IN dominators(t)", Bool(false)},
			{"dominators(t.text).@length", Int(1)},
			{"dominators(t.text)[0] = t.text.value", Bool(true)},
			{"dominators(t.ints).@length", Int(0)},
			{"t.text IN outbounds(t)", Bool(true)},
			{"t.boxedInt IN outbounds(t)", Bool(true)},
			{"t.color IN outbounds(t)", Bool(true)},
			{"t.text.value IN outbounds(t)", Bool(false)},
			{"t.text.value IN outbounds(t.text)", Bool(true)},
			{"inbounds(t).@length", Int(2)},
			{"inbounds(t.text).@length", Int(1)},
			{"inbounds(t.text)[0] = t", Bool(true)},
			{"t IN inbounds(t.color)", Bool(true)},
		})
		d.checkExprs(t, "fixture.InspectReferrerA a", []exprCase{
			{"a IN inbounds(a.target)", Bool(true)},
			{"a.target IN outbounds(a)", Bool(true)},
			{"dominatorof(a) = dominatorof(a.target)", Bool(true)},
		})
		classes := map[string]bool{}
		for _, row := range d.rows(t, `SELECT classof(r).@name FROM OBJECTS (SELECT OBJECTS inbounds(t) FROM fixture.InspectTarget t) r`) {
			classes[row[0].Str] = true
		}
		if len(classes) != 2 || !classes["fixture.InspectReferrerA"] || !classes["fixture.InspectReferrerB"] {
			t.Errorf("%s: the target's referrers: %v", name, classes)
		}
	}
}

// AS RETAINED SET gives what the selected objects dominate, themselves
// included: the target's 12 objects, 416 bytes (EXPECTED.md); a referrer
// only itself.
func TestRetainedSet(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		rows := d.rows(t, `SELECT x.@usedHeapSize FROM (SELECT AS RETAINED SET * FROM fixture.InspectTarget) x`)
		var bytes int64
		for _, row := range rows {
			bytes += row[0].Int
		}
		if len(rows) != 12 || bytes != 416 {
			t.Errorf("%s: retained set of the target: %d objects, %d bytes; want 12, 416", name, len(rows), bytes)
		}
		a := d.objectOf(t, `SELECT * FROM fixture.InspectReferrerA`)
		if got := d.objectOf(t, `SELECT AS RETAINED SET * FROM fixture.InspectReferrerA`); got != a {
			t.Errorf("%s: retained set of referrer A: object %d, want itself (%d)", name, got, a)
		}
		for query, want := range map[string]int{
			`SELECT AS RETAINED SET t.text FROM fixture.InspectTarget t`:               2,
			`SELECT AS RETAINED SET t.text, t.text.value FROM fixture.InspectTarget t`: 2,
			`SELECT AS RETAINED SET t.nothing FROM fixture.InspectTarget t`:            0,
			`SELECT AS RETAINED SET dominators(t) FROM fixture.InspectTarget t`:        11,
			`SELECT AS RETAINED SET * FROM "fixture\.InspectReferrer[AB]"`:             2,
			`SELECT DISTINCT AS RETAINED SET t.ints FROM fixture.InspectTarget t`:      1,
		} {
			if got := d.count(t, query); got != want {
				t.Errorf("%s: %s: %d rows, want %d", name, query, got, want)
			}
		}
	}
}

// x[0:-1] lists what a collection holds: its elements, or its entries
// with getKey() and getValue(). The sizes and contents are those
// fixture.InspectCollections made (EXPECTED.md, "Collections and
// arrays"): elements Integer i, map values 100 + i.
func TestCollectionRanges(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		sizes := []exprCase{}
		for field, n := range map[string]int64{
			"map1024": 3, "mapNeverPut": 0, "mapGrown": 13, "listEmpty": 0, "listOversized": 5, "listFull": 10,
			"listGrown": 11, "deque": 6, "linkedMap": 4, "set": 7, "concurrentMap": 8, "treeMap": 9, "vector": 2,
			"hashtable": 1, "copyOnWrite": 14, "priorityQueue": 5, "weakMap": 2, "identityMap": 3, "linkedList": 4,
		} {
			sizes = append(sizes, exprCase{"c." + field + "[0:-1].size()", Int(n)})
		}
		d.checkExprs(t, "OBJECTS fixture.InspectCollections c", sizes)
		d.checkExprs(t, "OBJECTS fixture.InspectCollections c", []exprCase{
			{"c.listGrown[0:-1][10].value", Int(10)},
			{"c.listGrown[-2:-1].size()", Int(2)},
			{"c.listGrown[-1:-1][0].value", Int(10)},
			{"c.linkedList[0:-1][3].value", Int(3)},
			{"c.treeMap[0:-1][8].getKey().value", Int(8)},
			{"c.treeMap[0:-1][8].getValue().value", Int(108)},
			{"c.sevens[2:4]", Value{Kind: KindList, List: []Value{Int(7), Int(7), Int(7)}}},
			{"c.map1024[0:-1].size()", Int(3)},
		})
		// Each entry of mapGrown maps i to 100 + i.
		if got := d.count(t, `SELECT * FROM OBJECTS (SELECT OBJECTS c.mapGrown FROM OBJECTS fixture.InspectCollections c) m WHERE (SELECT e FROM OBJECTS (m[0:-1]) e WHERE e.getValue().value != e.getKey().value + 100) = null`); got != 1 {
			t.Errorf("%s: mapGrown's entries are not i -> 100 + i", name)
		}
	}
}
