package oql

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
)

// The tests of this package answer queries over the fixture dumps of
// testdata/jvm and compare the answers with what the fixture programs
// (testdata/java/src/fixture) put in the heap, as testdata/jvm/EXPECTED.md
// lists it, or with the JVM's class histogram taken beside each dump.

// inspectDumps are the dumps of fixture.Inspect before its growth step,
// one per JDK.
var inspectDumps = []string{"jdk17-inspect-before.hprof.gz", "jdk25-inspect-before.hprof.gz"}

// testDump is a dump of testdata/jvm loaded as the query command loads it:
// with its objects and its retention, field values read from the file.
type testDump struct {
	name string
	h    *model.Heap
	r    *graph.Retention
}

// testDumps keeps each dump loaded once for all the tests.
var testDumps = map[string]*testDump{}

// loadDump loads the dump name of testdata/jvm (once per test binary).
func loadDump(t *testing.T, name string) *testDump {
	t.Helper()
	return loadDumpAt(t, name, filepath.Join("..", "..", "testdata", "jvm", name))
}

// loadDumpAt loads the dump at path as the query command loads it, once
// per test binary under key.
func loadDumpAt(t *testing.T, key, path string) *testDump {
	t.Helper()
	if d := testDumps[key]; d != nil {
		return d
	}
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	dumpfile.Attach(h, path)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := &testDump{name: filepath.Base(path), h: h, r: r}
	testDumps[key] = d
	return d
}

// run parses and answers query with options o.
func (d *testDump) run(t *testing.T, query string, o Options) (*Result, error) {
	t.Helper()
	q, err := Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return Run(d.h, d.r, q, o)
}

// rows answers query; an error fails the test.
func (d *testDump) rows(t *testing.T, query string) [][]Value {
	t.Helper()
	res, err := d.run(t, query, Options{})
	if err != nil {
		t.Fatalf("%s: %s: %v", d.name, query, err)
	}
	return res.Rows
}

// count is the number of rows query gives.
func (d *testDump) count(t *testing.T, query string) int {
	t.Helper()
	return len(d.rows(t, query))
}

// one is the value of the one row and column query gives.
func (d *testDump) one(t *testing.T, query string) Value {
	t.Helper()
	rows := d.rows(t, query)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %s: %d rows, want one value", d.name, query, len(rows))
	}
	return rows[0][0]
}

// fails checks that query fails with an error that says msg.
func (d *testDump) fails(t *testing.T, query, msg string) {
	t.Helper()
	_, err := d.run(t, query, Options{})
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %s: error %v, want one saying %q", d.name, query, err, msg)
	}
}

// exprCase is an expression of a query and the value it must have.
type exprCase struct {
	expr string
	want Value
}

// checkExprs evaluates the expressions of cases as the columns of one
// query, SELECT … FROM from, which must give one row.
func (d *testDump) checkExprs(t *testing.T, from string, cases []exprCase) {
	t.Helper()
	d.checkExprsWith(t, from, Options{}, cases)
}

// checkExprsWith is checkExprs with the options o.
func (d *testDump) checkExprsWith(t *testing.T, from string, o Options, cases []exprCase) {
	t.Helper()
	exprs := make([]string, len(cases))
	for k, c := range cases {
		exprs[k] = c.expr
	}
	query := "SELECT " + strings.Join(exprs, ", ") + " FROM " + from
	res, err := d.run(t, query, o)
	if err != nil {
		t.Fatalf("%s: %s: %v", d.name, query, err)
	}
	rows := res.Rows
	if len(rows) != 1 {
		t.Fatalf("%s: %s: %d rows, want 1", d.name, query, len(rows))
	}
	for k, c := range cases {
		if got := rows[0][k]; !sameValue(got, c.want) {
			t.Errorf("%s: %s = %s, want %s", d.name, c.expr, describe(got), describe(c.want))
		}
	}
}

// sameValue reports whether a and b are the same value: of one kind and
// equal, floats bit for bit, objects by index, lists element by element.
func sameValue(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindInt:
		return a.Int == b.Int
	case KindFloat:
		return math.Float64bits(a.Float) == math.Float64bits(b.Float)
	case KindBool:
		return a.Bool == b.Bool
	case KindString:
		return a.Str == b.Str
	case KindObject:
		return a.Obj == b.Obj
	case KindList:
		if len(a.List) != len(b.List) {
			return false
		}
		for k := range a.List {
			if !sameValue(a.List[k], b.List[k]) {
				return false
			}
		}
	}
	return true
}

// describe is v with its kind, for test messages.
func describe(v Value) string {
	return kindName(v.Kind) + " " + strconv.Quote(v.Text())
}

// objectOf is the one object query gives.
func (d *testDump) objectOf(t *testing.T, query string) model.ObjectIndex {
	t.Helper()
	v := d.one(t, query)
	if v.Kind != KindObject {
		t.Fatalf("%s: %s: %s, want an object", d.name, query, describe(v))
	}
	return v.Obj
}

// histogram reads the instance counts of the JVM's class histogram taken
// beside dump name (NAME.histo.txt), by the histogram's class names.
func histogram(t *testing.T, name string) map[string]int {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "jvm", strings.TrimSuffix(name, ".hprof.gz")+".histo.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasSuffix(fields[0], ":") {
			continue
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			continue
		}
		counts[fields[3]] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// FROM a class gives its instances as many as the JVM's histogram counts
// (class objects for java.lang.Class); INSTANCEOF adds those of the
// subclasses; FROM "regex" takes the classes whose whole name it matches.
func TestFromClasses(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		histo := histogram(t, name)
		for class, histoName := range map[string]string{
			"java.lang.String":       "java.lang.String",
			"java.lang.Class":        "java.lang.Class",
			"java.lang.Thread":       "java.lang.Thread",
			"long[]":                 "[J",
			"byte[]":                 "[B",
			"java.util.HashMap$Node": "java.util.HashMap$Node",
			"fixture.InspectGrowth":  "fixture.InspectGrowth",
			"fixture.InspectColor[]": "[Lfixture.InspectColor;",
		} {
			if got, want := d.count(t, "SELECT * FROM "+class), histo[histoName]; got != want || want == 0 {
				t.Errorf("%s: FROM %s: %d objects, the histogram counts %d", name, class, got, want)
			}
		}
		// EXPECTED.md: 1000 InspectGrowth, 3 InspectColor constants; no
		// instance of java.lang.Enum itself.
		for query, want := range map[string]int{
			`SELECT * FROM fixture.InspectGrowth`:                                                       1000,
			`SELECT * FROM java.lang.Enum`:                                                              0,
			`SELECT * FROM INSTANCEOF fixture.InspectColor`:                                             3,
			`SELECT * FROM INSTANCEOF java.lang.Enum e WHERE classof(e).@name = "fixture.InspectColor"`: 3,
			`SELECT * FROM "fixture\.InspectReferrer[AB]"`:                                              2,
			`SELECT * FROM "fixture\.InspectReferrer"`:                                                  0,
			`SELECT * FROM "fixture\.Inspect(Target|Color)"`:                                            4,
			// Target, two referrers, stack holder, 3 colors, 1000
			// growth objects, [Lfixture.InspectColor; and
			// [Lfixture.InspectGrowth; (one each).
			`SELECT * FROM "fixture\.Inspect.*"`: 1009,
		} {
			if got := d.count(t, query); got != want {
				t.Errorf("%s: %s: %d rows, want %d", name, query, got, want)
			}
		}
		// As in Eclipse MAT, a class the dump lacks has no instances.
		if got := d.count(t, `SELECT * FROM fixture.NoSuchClass`); got != 0 {
			t.Errorf("%s: FROM fixture.NoSuchClass: %d rows", name, got)
		}
		d.fails(t, `SELECT * FROM "fixture\.(Inspect"`, `FROM "fixture\\.(Inspect"`)
	}
}

// FROM OBJECTS takes the class objects themselves, whose fields are the
// class's statics (fixture.InspectCollections, EXPECTED.md).
func TestFromObjects(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		d.checkExprs(t, "OBJECTS fixture.InspectCollections c", []exprCase{
			{"c.@name", String("fixture.InspectCollections")},
			{"classof(c).@name", String("java.lang.Class")},
			{"c.sevens.@length", Int(1000)},
			{"c.sevens[0]", Int(7)},
			{"c.sevens[999]", Int(7)},
			{"c.nullArray.@length", Int(100)},
			{"c.nullArray[50]", Null()},
			{"c.emptyArray.@length", Int(0)},
			{"c.listOversized.size", Int(5)},
			{"c.listOversized.elementData.@length", Int(1000)},
			{"toString(c.listOversized.elementData[4])", String("4")},
			{"c.listOversized.elementData[5]", Null()},
			{"c.map1024.size", Int(3)},
			{"c.map1024.table.@length", Int(1024)},
			{"c.mapNeverPut.table", Null()},
			{"c.vector.elementData.@length", Int(10)},
			{"c.copyOnWrite.array.@length", Int(14)},
		})
		got := d.rows(t, `SELECT r.@name FROM OBJECTS "fixture\.InspectReferrer[AB]" r`)
		names := map[string]bool{}
		for _, row := range got {
			names[row[0].Str] = true
		}
		if len(got) != 2 || !names["fixture.InspectReferrerA"] || !names["fixture.InspectReferrerB"] {
			t.Errorf("%s: OBJECTS of the referrer classes: %v", name, got)
		}
	}
}

// FROM ids takes the objects of those ids in the order written; the id of
// a class object stands for the class's instances, unless with OBJECTS.
func TestFromIDs(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		hex := func(query string) string {
			t.Helper()
			v := d.one(t, query)
			if v.Kind != KindString {
				t.Fatalf("%s: %s: %s", name, query, describe(v))
			}
			return v.Str
		}
		target := hex(`SELECT toHex(t) FROM fixture.InspectTarget t`)
		referrerA := hex(`SELECT toHex(a.@objectAddress) FROM fixture.InspectReferrerA a`)
		colorClass := hex(`SELECT toHex(c) FROM OBJECTS fixture.InspectColor c`)
		enumClass := hex(`SELECT toHex(c) FROM OBJECTS java.lang.Enum c`)

		if got := d.one(t, "SELECT toString(x.text) FROM "+target+" x"); !sameValue(got, String("inspect-target-text")) {
			t.Errorf("%s: FROM %s (the target): %s", name, target, describe(got))
		}
		rows := d.rows(t, "SELECT classof(x).@name FROM "+referrerA+", "+target+" x")
		if len(rows) != 2 || rows[0][0].Str != "fixture.InspectReferrerA" || rows[1][0].Str != "fixture.InspectTarget" {
			t.Errorf("%s: FROM %s, %s: %v, want the referrer then the target", name, referrerA, target, rows)
		}
		// A decimal number is an object id as @objectId gives it
		// (issue #23: what query prints can be fed back).
		id := d.one(t, `SELECT t.@objectId FROM fixture.InspectTarget t`)
		if got := d.one(t, "SELECT x.intValue FROM "+strconv.FormatInt(id.Int, 10)+" x"); !sameValue(got, Int(0x12345678)) {
			t.Errorf("%s: FROM %d: %s", name, id.Int, describe(got))
		}
		addr, err := strconv.ParseUint(strings.TrimPrefix(target, "0x"), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		d.fails(t, "SELECT * FROM "+strconv.FormatUint(addr, 10), "the object at address "+strconv.FormatUint(addr, 10)+" is written "+target)
		for query, want := range map[string]int{
			"SELECT * FROM " + colorClass:            3,
			"SELECT * FROM OBJECTS " + colorClass:    1,
			"SELECT * FROM " + enumClass:             0,
			"SELECT * FROM INSTANCEOF " + colorClass: 3,
		} {
			if got := d.count(t, query); got != want {
				t.Errorf("%s: %s: %d rows, want %d", name, query, got, want)
			}
		}
		if got := d.count(t, "SELECT * FROM INSTANCEOF "+enumClass+" e WHERE toHex(classof(e)) = \""+colorClass+"\""); got != 3 {
			t.Errorf("%s: INSTANCEOF java.lang.Enum by id: %d InspectColor constants, want 3", name, got)
		}
		d.fails(t, "SELECT * FROM 0x3", "FROM: no object 0x3 in the dump")
	}
}

// FROM (subquery) takes the objects of the subquery's first column;
// SELECT OBJECTS flattens lists, skips nulls and refuses other values.
func TestSelectObjectsAndSubqueries(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		got := d.one(t, `SELECT toString(s) FROM (SELECT OBJECTS t.utf16Text FROM fixture.InspectTarget t) s`)
		if !sameValue(got, String("utf16-Ω-text")) {
			t.Errorf("%s: FROM (SELECT OBJECTS t.utf16Text …): %s", name, describe(got))
		}
		// The target immediately dominates its 3 Strings, 3 arrays and
		// 2 boxes (EXPECTED.md: only the target references them).
		for query, want := range map[string]int{
			`SELECT OBJECTS dominators(t) FROM fixture.InspectTarget t`:                       8,
			`SELECT OBJECTS t.nothing FROM fixture.InspectTarget t`:                           0,
			`SELECT OBJECTS t.text, t.ints, t.nothing, t.color FROM fixture.InspectTarget t`:  3,
			`SELECT * FROM OBJECTS (SELECT OBJECTS inbounds(t) FROM fixture.InspectTarget t)`: 2,
			// The class objects of the growth objects: one.
			`SELECT DISTINCT OBJECTS classof(g) FROM fixture.InspectGrowth g`: 1,
			// A subquery in WHERE: the one color the target holds.
			`SELECT * FROM fixture.InspectColor c WHERE c IN (SELECT OBJECTS t.color FROM fixture.InspectTarget t)`:                 1,
			`SELECT * FROM fixture.InspectColor c WHERE c IN (SELECT * FROM fixture.InspectReferrerA)`:                              0,
			`SELECT * FROM fixture.InspectGrowth g WHERE g.index IN (SELECT c.sevens[0] FROM OBJECTS fixture.InspectCollections c)`: 1,
		} {
			if got := d.count(t, query); got != want {
				t.Errorf("%s: %s: %d rows, want %d", name, query, got, want)
			}
		}
		if got := d.one(t, `SELECT toString(c) FROM fixture.InspectColor c WHERE c IN (SELECT OBJECTS t.color FROM fixture.InspectTarget t)`); !sameValue(got, String("GREEN")) {
			t.Errorf("%s: the target's color: %s", name, describe(got))
		}
		// A subquery of several columns gives rows whose columns are
		// read by name.
		got = d.one(t, `SELECT (SELECT a.order AS o, a.@usedHeapSize FROM fixture.InspectReferrerA a).o FROM fixture.InspectTarget t`)
		if !sameValue(got, Int(1)) {
			t.Errorf("%s: column o of a subquery's row: %s", name, describe(got))
		}
		// SELECT OBJECTS reads numbers as object ids.
		d.fails(t, `SELECT OBJECTS t.intValue FROM fixture.InspectTarget t`, "SELECT OBJECTS: no object id 305419896 in the dump")
		if got := d.one(t, `SELECT * FROM (SELECT t.tiny FROM fixture.InspectTarget t)`); !sameValue(got, Int(-7)) {
			t.Errorf("%s: FROM a subquery of numbers: %s", name, describe(got))
		}
	}
}

// Columns are named by AS or the expression as written; SELECT * gives one
// object column; DISTINCT keeps each row once, numbers equal by value.
func TestColumnsAndDistinct(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		res, err := d.run(t, `SELECT t.intValue AS "int value", t.tiny  FROM fixture.InspectTarget t`, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Columns, "|"); got != "int value|t.tiny" {
			t.Errorf("%s: columns %q", name, got)
		}
		res, err = d.run(t, `SELECT * FROM fixture.InspectColor`, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Columns, "|"); got != "object" || len(res.Rows) != 3 {
			t.Errorf("%s: SELECT *: columns %q, %d rows", name, got, len(res.Rows))
		}
		// EXPECTED.md: 5000, 300 and 20 copies of three LATIN1 values,
		// 50 of one UTF16 value (the prefixes they were built from are
		// literals of their own); InspectGrowth.index is 0 .. 999.
		for query, want := range map[string]int{
			`SELECT toString(s) FROM java.lang.String s WHERE toString(s) LIKE "duplicate-value-[0-9]+"`:                        5320,
			`SELECT DISTINCT toString(s) FROM java.lang.String s WHERE toString(s) LIKE "duplicate-value-[0-9]+"`:               3,
			`SELECT DISTINCT toString(s), s.value.@length FROM java.lang.String s WHERE toString(s) LIKE "duplicate-.*-[0-9]+"`: 4,
			`SELECT DISTINCT classof(c) FROM fixture.InspectColor c`:                                                            1,
			`SELECT DISTINCT c FROM fixture.InspectColor c`:                                                                     3,
			`SELECT DISTINCT g.index / 100 FROM fixture.InspectGrowth g`:                                                        10,
			// 2.0 and 2 are one number.
			`SELECT DISTINCT g.index % 2 * 1.0 FROM fixture.InspectGrowth g`:          2,
			`SELECT DISTINCT (g.index % 3, g.index % 2) FROM fixture.InspectGrowth g`: 6,
		} {
			if got := d.count(t, query); got != want {
				t.Errorf("%s: %s: %d rows, want %d", name, query, got, want)
			}
		}
	}
}

// UNION appends the rows of each query in turn; Options.Limit stops after
// that many rows, across UNIONs and for AS RETAINED SET too.
func TestUnionAndLimit(t *testing.T) {
	for _, name := range inspectDumps {
		d := loadDump(t, name)
		union := `SELECT * FROM fixture.InspectReferrerA UNION (SELECT * FROM fixture.InspectReferrerB) UNION (SELECT * FROM fixture.InspectColor)`
		rows := d.rows(t, union)
		if len(rows) != 5 {
			t.Fatalf("%s: UNION: %d rows, want 5", name, len(rows))
		}
		a := d.objectOf(t, `SELECT * FROM fixture.InspectReferrerA`)
		b := d.objectOf(t, `SELECT * FROM fixture.InspectReferrerB`)
		if rows[0][0].Obj != a || rows[1][0].Obj != b {
			t.Errorf("%s: UNION: %v, want referrer A, then B, then the colors", name, rows)
		}
		for _, c := range []struct {
			query string
			limit int
			want  int
		}{
			{union, 2, 2},
			{union, 4, 4},
			{union, 0, 5},
			{`SELECT * FROM fixture.InspectGrowth`, 10, 10},
			{`SELECT DISTINCT g.index / 100 FROM fixture.InspectGrowth g`, 3, 3},
			{`SELECT AS RETAINED SET * FROM fixture.InspectTarget`, 5, 5},
		} {
			res, err := d.run(t, c.query, Options{Limit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.want {
				t.Errorf("%s: %s limit %d: %d rows, want %d", name, c.query, c.limit, len(res.Rows), c.want)
			}
		}
		d.fails(t, `SELECT t.flag, t.tiny FROM fixture.InspectTarget t UNION (SELECT * FROM fixture.InspectColor)`, "UNION of 2 columns with 1 columns")
	}
}
