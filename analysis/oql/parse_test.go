package oql

import (
	"errors"
	"math"
	"testing"
	"time"
)

// The examples of MAT's OQL documentation (syntax reference, FROM and
// WHERE clauses, property accessors, built-in functions) parse.
func TestParseDocumentedExamples(t *testing.T) {
	for _, q := range []string{
		`SELECT * FROM java.lang.String`,
		`SELECT toString(s), s.count, s.value FROM java.lang.String s`,
		`SELECT toString(s), s.@usedHeapSize, s.@retainedHeapSize FROM java.lang.String s`,
		`SELECT toString(s) AS Value, s.@usedHeapSize AS "Shallow Size", s.@retainedHeapSize AS "Retained Size" FROM java.lang.String s`,
		`SELECT AS RETAINED SET * FROM java.lang.String`,
		`SELECT OBJECTS dominators(s) FROM java.lang.String s`,
		`SELECT DISTINCT OBJECTS classof(s) FROM java.lang.String s`,
		`SELECT DISTINCT classof(s) FROM java.lang.String s`,
		`SELECT * FROM "java\.lang\..*"`,
		`SELECT * FROM 0xe14a100`,
		`SELECT * FROM 3022`,
		`SELECT * FROM ( SELECT * FROM java.lang.Class c )`,
		`SELECT * FROM INSTANCEOF java.lang.ref.Reference`,
		`SELECT * FROM OBJECTS java.lang.String`,
		`SELECT * FROM OBJECTS 0xcafebabe`,
		`SELECT v, v.@length FROM OBJECTS ( SELECT OBJECTS s.value FROM java.lang.String s ) v`,
		`SELECT * FROM java.lang.String s WHERE s.count >= 100`,
		`SELECT * FROM java.lang.String s WHERE toString(s) LIKE ".*day"`,
		`SELECT * FROM java.lang.String s WHERE s.value != null`,
		`SELECT * FROM java.util.Vector v WHERE v.elementData.@length > 15 AND v.@retainedHeapSize > 1000`,
		`SELECT * FROM char[] s WHERE s.@length > 10`,
		`SELECT toString(f.path.value) FROM java.io.File f`,
		`SELECT f.path.value FROM java.io.File f`,
		`SELECT toString(x), x.value, x.@usedHeapSize, toHex(x.@objectAddress), outbounds(x) FROM java.lang.Integer x`,
		`SELECT s.@objectId, s.@objectAddress, s.@displayName, s.@clazz, s.@GCRootInfo FROM java.lang.String s`,
		`SELECT c.@name FROM OBJECTS java.lang.String c`,
		`SELECT inbounds(s), dominatorof(s), sizeof(s) FROM java.lang.String s`,
		`SELECT s AS String, s.value AS "characters", inbounds(s), inbounds(s).@length FROM java.lang.String s`,
		`SELECT exceptions.@displayName, exceptions.detailMessage.toString() FROM INSTANCEOF java.lang.Exception exceptions`,
		`SELECT * FROM java.util.HashMap h WHERE h.table.@length > 256 OR h.size < 0`,
		`SELECT * FROM java.lang.String s WHERE toString(s) NOT LIKE "a.*" AND NOT (s.@usedHeapSize = 24)`,
		`SELECT * FROM java.lang.Object o WHERE o IN (SELECT OBJECTS dominators(s) FROM java.lang.String s)`,
		`SELECT * FROM java.lang.String s WHERE s.@length IN (1, 2, 3) AND (s.count + 1) * 2 - 3 / 4 % 5 > -1`,
		`SELECT * FROM java.lang.String UNION (SELECT * FROM java.lang.Integer)`,
		`SELECT e[0], e.@length FROM java.lang.Object[] e`,
		`select * from java.util.HashMap$Node n where n.key = null`,
	} {
		if _, err := Parse(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// Syntax errors name the column and what was expected there.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		q   string
		col int
		msg string
	}{
		{`SELECT`, 7, `column 7: expected an expression, found the end of the query`},
		{`SELECT * java.lang.String`, 10, `column 10: expected FROM, found "java"`},
		{`SELECT * FROM`, 14, `column 14: expected a class name, a "regex", object ids or a (subquery), found the end of the query`},
		{`SELECT * FROM a WHERE (x = 1`, 29, `column 29: expected ")", found the end of the query`},
		{`SELECT * FROM a WHERE x = "open`, 32, `column 32: expected " to end the string started at column 27, found the end of the query`},
		{`SELECT frob(x) FROM a`, 8, `column 8: expected a built-in function (toString, toHex, classof, dominators, dominatorof, outbounds, inbounds, sizeof, eval), found "frob"`},
		{`SELECT x FROM a b c`, 19, `column 19: expected the end of the query, found "c"`},
		{`SELECT # FROM a`, 8, `column 8: expected a token, found '#'`},
		{`SELECT x. FROM a`, 11, `column 11: expected a field name or @attribute after ".", found "FROM"`},
	} {
		_, err := Parse(c.q)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a syntax error", c.q, err)
			continue
		}
		if se.Col != c.col || se.Error() != c.msg {
			t.Errorf("%s:\n got %v (column %d)\nwant %s", c.q, err, se.Col, c.msg)
		}
	}
}

// FuzzParse: the parser never panics and ends quickly on any input.
func FuzzParse(f *testing.F) {
	f.Add(`SELECT toString(s), s.@retainedHeapSize AS r FROM INSTANCEOF java.lang.String s WHERE s.value.@length > 10 AND toString(s) NOT LIKE "a.*"`)
	f.Add(`SELECT DISTINCT OBJECTS classof(s) FROM "java\.util\..*" s UNION (SELECT * FROM OBJECTS 0x10, 20)`)
	f.Add(`SELECT * FROM (SELECT * FROM a) x WHERE x IN (1, 2, -3.5) OR NOT x.@length * 2 % 3 <= 4`)
	f.Add(`SELECT e[0].toString() FROM int[][] e WHERE (((((1)))))`)
	f.Add(`SELECT m[0:-1].get(1).getKey(), eval((SELECT t FROM OBJECTS (m[1:3]) t)) FROM OBJECTS INSTANCEOF (1E-3D + 1024L) m WHERE m IMPLEMENTS a.B`)
	f.Fuzz(func(t *testing.T, q string) {
		start := time.Now()
		_, _ = Parse(q)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("took %v", d)
		}
	})
}

// Numbers take Java's suffixes: L for a long, F or D for a fraction; a
// fraction too large for a double is infinite, as Java reads it.
func TestParseNumberSuffixes(t *testing.T) {
	for text, want := range map[string]Value{
		"1024L": Int(1024), "1024": Int(1024), "0x1F": Int(31), "0x1FL": Int(31),
		"12.25d": Float(12.25), "1.5F": Float(1.5), "2D": Float(2), "1E-3": Float(0.001),
		"1E308D": Float(1e308), "1E309D": Float(math.Inf(1)),
	} {
		got, ok := parseNumber(text)
		if !ok || !sameValue(got, want) {
			t.Errorf("%s: %s (%v), want %s", text, describe(got), ok, describe(want))
		}
	}
	for _, bad := range []string{"1LL", "1x", "0xZ", "1_000"} {
		if _, ok := parseNumber(bad); ok {
			t.Errorf("%s parses", bad)
		}
	}
}
