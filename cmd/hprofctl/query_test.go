package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// queryRows runs an OQL query from an index and with --no-index (the
// same JSON both ways) and returns its rows, each as compact JSON.
func queryRows(t *testing.T, dump, query string) []string {
	t.Helper()
	out := runBoth(t, "query", "-o", "json", dump, query)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var res struct {
		Columns []string
		Rows    []json.RawMessage
	}
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%s: %v\n%s", query, err, out)
	}
	rows := make([]string, len(res.Rows))
	for k, r := range res.Rows {
		var b bytes.Buffer
		if err := json.Compact(&b, r); err != nil {
			t.Fatal(err)
		}
		rows[k] = b.String()
	}
	return rows
}

// TestQueryInspect answers OQL queries on the fixture.Inspect dumps with
// what the program put in the heap (testdata/jvm/EXPECTED.md).
func TestQueryInspect(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			dump := fixturePath(t, jdk+"-inspect-before.hprof.gz")
			check := func(query string, want ...string) {
				t.Helper()
				if got := queryRows(t, dump, query); !slices.Equal(got, want) {
					t.Errorf("%s:\n got %v\nwant %v", query, got, want)
				}
			}
			// The target's fields with known primitives, its Strings,
			// arrays, boxes and enum, sizes (88 shallow, 416 retained)
			// and class.
			check(`SELECT t.flag, t.tiny, t.letter, t.shortValue, t.intValue, t.longValue, t.floatValue, t.doubleValue,
				toString(t.text), toString(t.latin1Text), toString(t.utf16Text), t.ints.@length, t.ints[7],
				toString(t.asciiBytes), toString(t.chars), toString(t.boxedInt), toString(t.boxedLong), toString(t.color),
				t.nothing, t.@usedHeapSize, t.@retainedHeapSize, classof(t).@name FROM fixture.InspectTarget t`,
				`[true,-7,"Q",1234,305419896,1234605616436508552,1.5,-2.25,"inspect-target-text","café","utf16-Ω-text",8,34,"hello, inspect!","hprof","987654","-5000000000","GREEN",null,88,416,"fixture.InspectTarget"]`)
			// Lists by size and capacity, maps by table length, through
			// the statics of the class object.
			check(`SELECT c.listOversized.size, c.listOversized.elementData.@length, c.listGrown.size, c.listGrown.elementData.@length,
				c.map1024.table.@length, c.mapGrown.size, c.mapGrown.table.@length, c.mapNeverPut.table FROM OBJECTS fixture.InspectCollections c`,
				`[5,1000,11,15,1024,13,32,null]`)
			// The referrers retain only themselves; the target has two.
			check(`SELECT r.@retainedHeapSize, r.@usedHeapSize FROM "fixture\.InspectReferrer[AB]" r`, `[24,24]`, `[24,24]`)
			check(`SELECT DISTINCT classof(i).@name FROM OBJECTS (SELECT OBJECTS inbounds(t) FROM fixture.InspectTarget t) i`,
				`["fixture.InspectReferrerA"]`, `["fixture.InspectReferrerB"]`)
			// The target retains 12 objects.
			if got := queryRows(t, dump, `SELECT AS RETAINED SET * FROM fixture.InspectTarget`); len(got) != 12 {
				t.Errorf("retained set of the target: %d objects, want 12", len(got))
			}
			// The stack frame's long[1 << 20] with its two set elements.
			check(`SELECT b.@length, b[0], b[1048575], toHex(b[0]) FROM long[] b WHERE b.@length = 1048576`,
				`[1048576,301877842772,1279349588,"0x4649525354"]`)
			if got := queryRows(t, dump, `SELECT * FROM fixture.InspectGrowth`); len(got) != 1000 {
				t.Errorf("fixture.InspectGrowth: %d instances, want 1000", len(got))
			}
			check(`SELECT DISTINCT OBJECTS classof(g) FROM INSTANCEOF fixture.InspectGrowth g WHERE g.index < 10 AND NOT g.value IN (7, 8)`,
				queryRows(t, dump, `SELECT OBJECTS c FROM OBJECTS fixture.InspectGrowth c`)...)
			// Strings by value: the duplicated copies, each value once
			// with DISTINCT.
			copies := queryRows(t, dump, `SELECT toString(s) FROM java.lang.String s WHERE toString(s) LIKE "duplicate-(value|Ω)-[0-9]+"`)
			counts := map[string]int{}
			for _, c := range copies {
				counts[c]++
			}
			want := map[string]int{`["duplicate-value-42"]`: 5000, `["duplicate-value-7"]`: 300, `["duplicate-value-1234"]`: 20, `["duplicate-Ω-9"]`: 50}
			if len(counts) != len(want) {
				t.Errorf("duplicated strings: %v, want %v", counts, want)
			}
			for v, n := range want {
				if counts[v] != n {
					t.Errorf("%s: %d copies, want %d", v, counts[v], n)
				}
			}
			distinct := queryRows(t, dump, `SELECT DISTINCT toString(s) FROM java.lang.String s WHERE toString(s) LIKE "duplicate-.*[0-9]" AND toString(s) NOT LIKE ".*-7"`)
			slices.Sort(distinct)
			if w := []string{`["duplicate-value-1234"]`, `["duplicate-value-42"]`, `["duplicate-Ω-9"]`}; !slices.Equal(distinct, w) {
				t.Errorf("DISTINCT strings: %v, want %v", distinct, w)
			}
			if got := queryRows(t, dump, `SELECT * FROM java.lang.String s WHERE toString(s) LIKE "duplicate-value-42" UNION (SELECT * FROM fixture.InspectTarget)`); len(got) != 5001 {
				t.Errorf("UNION: %d rows, want 5001", len(got))
			}
		})
	}
}

// A query that does not parse fails before the dump is read, naming the
// column.
func TestQuerySyntaxError(t *testing.T) {
	_, err := runCLI(t, "query", "no-such-dump.hprof", "SELECT * FROM java.lang.String s WHERE")
	if err == nil || err.Error() != "query: column 39: expected an expression, found the end of the query" {
		t.Fatalf("got %v", err)
	}
}

// --timeout gives a query up, saying so; --max-memory gives up one whose
// kept rows would take more (a table's rows, a subquery's); JSON and CSV
// rows are streamed, so a big answer needs no memory for its rows. The
// fixture's program made 100 fixture.Payload objects.
func TestQueryBounds(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	const all = "SELECT * FROM java.lang.String"
	if _, err := runCLI(t, "query", "--timeout", "1ns", dump, all); err == nil || !strings.Contains(err.Error(), "gave up after 1ns (--timeout)") {
		t.Errorf("--timeout 1ns: error %v, want one saying it gave up", err)
	}
	for _, args := range [][]string{
		{all},
		{"-o", "json", "SELECT * FROM fixture.Payload p WHERE p IN (" + all + ")"},
	} {
		_, err := runCLI(t, append([]string{"query", "--max-memory", "4KiB", dump}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "more than 4096 bytes of memory") || !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("--max-memory 4KiB %q: error %v, want one naming the bound", args, err)
		}
	}
	out, err := runCLI(t, "query", "--max-memory", "4KiB", "-o", "csv", dump, "SELECT p FROM fixture.Payload p")
	if n := strings.Count(out, "\n"); err != nil || n != 101 {
		t.Errorf("streamed CSV under 4 KiB: %d lines, error %v, want a header and 100 rows", n, err)
	}
	for _, bad := range [][]string{{"--max-memory", "lots"}, {"--max-memory", "0"}, {"--timeout", "-1s"}} {
		if _, err := runCLI(t, append(append([]string{"query"}, bad...), dump, all)...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%q: error %v, want one naming the flag", bad, err)
		}
	}
}
