package oql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// These tests port the assertions of Eclipse MAT's OQLTest
// (github.com/eclipse-mat/mat, plugins/org.eclipse.mat.tests/src/org/
// eclipse/mat/tests/snapshot/OQLTest.java at 26cff26c) on the dumps MAT's
// tests use, read from ../shared/corpus/eclipse-mat_mat. Each case names
// the line of OQLTest.java whose assertion it ports and MAT's expected
// value. The queries run with Options.Reachable, MAT's default of
// counting only the objects it keeps (graph.MATKept). Where a convention
// documented in docs/mat-conventions.md makes hprofctl's number differ,
// the case asserts ours and says why, with MAT's beside it, and where
// MAT's rule can be applied to our rows, that it gives MAT's number
// (mat_conventions_test.go).

// matTest is OQLTest.java, the file the line numbers refer to.
const matTest = "OQLTest.java"

// loadMATDump loads dump name of ../shared/corpus/eclipse-mat_mat once per
// test binary; the test is skipped where the corpus is absent (failed
// where CI requires it: testshared).
func loadMATDump(t *testing.T, name string) *testDump {
	t.Helper()
	return loadDumpAt(t, "mat/"+name, testshared.Path(t, "corpus", "eclipse-mat_mat", name))
}

// matDefault is the dump OQLTest's execute uses unless told another.
const matDefault = "sun_jdk5_64bit.hprof.gz"

// matCount is a ported assertion on the number of rows a query gives.
type matCount struct {
	line  int // of OQLTest.java
	query string
	mat   int // MAT's expected count
	// ours, when why is set, is hprofctl's count under the convention
	// why names.
	ours int
	why  *matConvention
}

// matConvention is a documented convention (docs/mat-conventions.md)
// under which hprofctl's count differs from MAT's.
type matConvention struct {
	why string
	// mat, when set, is MAT's count computed by MAT's rule from the rows
	// hprofctl gives.
	mat func(t *testing.T, d *testDump, rows [][]Value) int
}

// checkMATCount checks the rows hprofctl gives for c: MAT's count, or
// under c's convention ours and the count MAT's rule makes of them. MAT's
// number always passes: a convention that stops applying (another branch
// changes a rule) is no failure.
func checkMATCount(t *testing.T, d *testDump, c matCount, rows [][]Value) {
	t.Helper()
	got := len(rows)
	switch {
	case got == c.mat:
	case c.why == nil:
		t.Errorf("%s:%d: %s: %d rows, MAT %d", matTest, c.line, c.query, got, c.mat)
	case got != c.ours:
		t.Errorf("%s:%d: %s: %d rows, want %d (MAT %d: %s)", matTest, c.line, c.query, got, c.ours, c.mat, c.why.why)
	case c.why.mat != nil:
		if mat := c.why.mat(t, d, rows); mat != c.mat {
			t.Errorf("%s:%d: %s: MAT's rule makes %d of our %d rows, MAT %d (%s)", matTest, c.line, c.query, mat, got, c.mat, c.why.why)
		}
	}
}

// matSnapshotCounts are OQLTest's assertions on queries that reach
// MAT's Java API through ${snapshot}, which hprofctl does not have, with
// each question asked the OQL way (docs/oql.md).
var matSnapshotCounts = []matCount{
	// getClassesByName("java.lang.String", false) is the class object.
	{163, "SELECT AS RETAINED SET s FROM OBJECTS java.lang.String s", 3, 0, nil},
	{171, "SELECT AS RETAINED SET * FROM OBJECTS java.lang.String", 3, 0, nil},
	{229, "select objects dominators(s) from objects java.lang.String s", 2, 0, nil},
	// getClassesByName(…, true) takes the subclasses.
	{591, "SELECT * FROM INSTANCEOF java.lang.ref.Reference", 21, 0, nil},
	{1057, "SELECT * FROM byte[]", 21, 0, nil},
	{1077, "SELECT * FROM (SELECT OBJECTS s FROM OBJECTS byte[] s)", 21, 0, nil},
	{1166, "select * from instanceof (select * from objects java.util.AbstractMap)", 25, 0, nil},
	{1174, "select * from objects instanceof (select * from objects java.util.AbstractMap)", 10, 0, nil},
	// ${snapshot}.@GCRoots and getGCRootInfo(r).@type = 8 (a JNI
	// global): @GCRootInfo names the kinds of an object's roots.
	{1416, `SELECT OBJECTS r FROM ".*" r WHERE r.@GCRootInfo LIKE ".*jni-global.*"`, 23, 0, nil},
	{1427, `SELECT OBJECTS r FROM ".*" r WHERE (SELECT s FROM dummy s UNION (SELECT s FROM OBJECTS ( r ) s WHERE s.@GCRootInfo LIKE ".*jni-global.*")) != null`, 23, 0, nil},
	{1440, `SELECT OBJECTS r FROM ".*" r WHERE r.@GCRootInfo != null AND (SELECT s FROM INSTANCEOF java.lang.Object s WHERE (SELECT t FROM INSTANCEOF java.lang.String t) != null) != null`, 354, 362, whyRoots},
	{1252, "SELECT v, v.@objectId FROM OBJECTS 123 v WHERE v.@objectId = 123", 1, 0, nil},
}

// TestMATOQLSnapshotCounts ports the ${snapshot} assertions the OQL way.
func TestMATOQLSnapshotCounts(t *testing.T) {
	d := loadMATDump(t, matDefault)
	for _, c := range matSnapshotCounts {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %s: %v", matTest, c.line, c.query, err)
			continue
		}
		checkMATCount(t, d, c, res.Rows)
	}
}

// TestMATOQLCounts ports OQLTest's row counts.
func TestMATOQLCounts(t *testing.T) {
	d := loadMATDump(t, matDefault)
	for _, c := range matCounts {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %s: %v", matTest, c.line, c.query, err)
			continue
		}
		checkMATCount(t, d, c, res.Rows)
	}
}

// matCounts are OQLTest's assertions on row counts over sun_jdk5_64bit.
// Queries that name objects by MAT's object ids (objects 0, 1, 2) keep
// them where only the count matters; hprofctl's ids name other objects
// (docs/oql.md). MAT's id 120 is java.util.AbstractMap (0x128da800),
// hprofctl's 464.
var matCounts = []matCount{
	{108, "select * from java.lang.String", 492, 0, nil},
	{118, "select s.@objectId, s.value, s.count, s.offset from java.lang.String s", 492, 0, nil},
	{134, "select as retained set * from java.lang.String", 963, 955, whyDominators},
	{141, "SELECT AS RETAINED SET * FROM OBJECTS ( SELECT * FROM java.lang.String  ) s ", 963, 955, whyDominators},
	{148, "SELECT AS RETAINED SET OBJECTS s FROM OBJECTS ( SELECT * FROM java.lang.String  ) s ", 963, 955, whyDominators},
	{155, "SELECT AS RETAINED SET s FROM OBJECTS ( SELECT * FROM java.lang.String  ) s ", 963, 955, whyDominators},
	{226, "select objects dominators(s) from objects 0x1295e2f8 s", 7, 0, nil},
	{232, "select objects dominators(s) from objects (select * from java.lang.String) s", 465, 464, whyDominators},
	{239, "select distinct objects classof(s) from java.lang.String s", 1, 0, nil},
	{248, "select distinct classof(s) from java.lang.String s", 1, 0, nil},
	{259, "SELECT DISTINCT z FROM OBJECTS ( SELECT classof(s) FROM java.lang.String s  ) z", 1, 0, nil},
	{326, "select * from objects 0 union (select * from objects 1)", 2, 0, nil},
	{329, `select toString(s) from objects 0x17c180b8 s union (select toHex(s.@objectAddress) from objects 1 s)`, 2, 0, nil},
	{343, "select * from objects 0,1 union (select * from objects 1,2)", 4, 0, nil},
	{374, "select s from objects 0,1 s union (select t from objects 1,2 t)", 4, 0, nil},
	{388, "select * from notfound union (select * from objects 1,2)", 2, 0, nil},
	{415, "select s from notfound s union (select t from objects 1,2 t)", 2, 0, nil},
	{427, "select * from objects 0,1 union (select * from notfound)", 2, 0, nil},
	{455, "select s from objects 0,1 s union (select t from notfound t)", 2, 0, nil},
	{463, "select distinct * from objects 0,0,1 union (select * from objects 1,1,2,2)", 6, 0, nil},
	{470, "select * from objects 0,0,1 union (select distinct * from objects 1,1,2,2)", 5, 0, nil},
	{477, "select distinct * from objects 0,0,1 union (select distinct * from objects 1,1,2,2)", 4, 0, nil},
	{485, "SELECT s FROM missing s  UNION (SELECT s FROM missing s ) UNION (SELECT s FROM java.lang.String s )", 492, 0, nil},
	{495, "SELECT s FROM java.lang.String[] s  UNION (SELECT s FROM missing s ) UNION (SELECT s FROM java.lang.String s )", 28 + 492, 0, nil},
	{505, "SELECT * FROM missing  UNION (SELECT * FROM missing ) UNION (SELECT * FROM java.lang.String )", 492, 0, nil},
	{513, "SELECT * FROM java.lang.String[]  UNION (SELECT * FROM missing ) UNION (SELECT * FROM java.lang.String )", 28 + 492, 0, nil},
	{524, "SELECT c.@objectIds as objs FROM OBJECTS java.lang.String c UNION (SELECT c.@objectIds as objs FROM OBJECTS java.lang.Integer c )", 2, 0, nil},
	{537, "SELECT c.@objectIds FROM OBJECTS java.lang.String c  UNION (SELECT c.@objectIds FROM OBJECTS java.lang.Integer c )", 2, 0, nil},
	{550, "SELECT @objectIds FROM OBJECTS java.lang.String UNION (SELECT @objectIds FROM OBJECTS java.lang.Integer)", 2, 0, nil},
	{563, "SELECT @objectIds, @clazz FROM OBJECTS java.lang.String  UNION (SELECT @objectIds, 1.0 FROM OBJECTS java.lang.Integer )", 2, 0, nil},
	{573, `select * from "java.lang.*"`, 1198, 1197, whyLoaderOf(`SELECT * FROM OBJECTS "java.lang.*" c WHERE c.@name = "java.lang.ClassLoader"`)},
	{668, "SELECT * FROM ( SELECT * FROM java.lang.Class c WHERE c implements org.eclipse.mat.snapshot.model.IClass )", 2058, 2057,
		whyLoaderOf(`SELECT * FROM java.lang.Class c WHERE c implements org.eclipse.mat.snapshot.model.IClass AND c.@name = "java.lang.ClassLoader"`)},
	// MAT's 383 classes: the 411 of the dump less the 28 bootstrap array
	// classes MAT drops as unreachable (TestMATDroppedClasses).
	{760, "SELECT * FROM java.lang.Class c WHERE c implements org.eclipse.mat.snapshot.model.IClass ", 383, 0, nil},
	{767, "SELECT * FROM INSTANCEOF java.lang.ref.Reference", 21, 0, nil},
	{787, "SELECT * FROM java.lang.String s WHERE s.count > 51", 16, 0, nil},
	{790, "SELECT * FROM java.lang.String s WHERE s.count >= 51", 19, 0, nil},
	{793, "SELECT * FROM java.lang.String s WHERE s.count < 51", 473, 0, nil},
	{796, "SELECT * FROM java.lang.String s WHERE s.count <= 51", 476, 0, nil},
	{799, `SELECT * FROM java.lang.String s WHERE toString(s) LIKE "java.*"`, 27, 0, nil},
	{802, `SELECT * FROM java.lang.String s WHERE toString(s) NOT LIKE "java.*"`, 492 - 27, 0, nil},
	{805, "SELECT * FROM java.lang.String s WHERE s.value IN dominators(s)", 492 - 27, 464, whyDominators},
	{808, "SELECT * FROM java.lang.String s WHERE s.value NOT IN dominators(s)", 27, 28, whyDominators},
	{811, `SELECT * FROM java.lang.String s WHERE toString(s) = "file.separator"`, 1, 0, nil},
	{814, "SELECT * FROM java.lang.String s WHERE s.count > 100 AND s.@retainedHeapSize > s.@usedHeapSize", 6, 0, nil},
	{817, "SELECT * FROM java.lang.String s WHERE s.count > 1000 OR s.value.@length > 1000", 3, 0, nil},
	{828, "select * from instanceof java.util.Vector s where s.elementCount < 10", 11, 0, nil},
	{839, `select * from java.lang.Class s where s.serialVersionUID.toString().contains("-")`, 52, 0, nil},
	{846, "SELECT * FROM java.lang.String s WHERE s.count < s.value.@length * 0.5", 16, 0, nil},
	{849, "SELECT * FROM java.lang.String s WHERE s.count < s.value.@length / 2", 16, 0, nil},
	{852, "SELECT * FROM java.lang.String s WHERE s.count < s.value.@length - 20", 16, 0, nil},
	{855, "SELECT * FROM java.lang.String s WHERE s.count + 20 < s.value.@length", 16, 0, nil},
	{873, "SELECT * FROM java.lang.String s WHERE ( s.count > 1000 ) = true", 3, 0, nil},
	{876, "SELECT * FROM java.lang.String s WHERE dominators(s).size() = 0", 27, 28, whyDominators},
	{879, "SELECT * FROM java.lang.String s WHERE dominators(s).length = 0", 27, 28, whyDominators},
	{882, "SELECT * FROM java.lang.String s WHERE s.@retainedHeapSize > 1024L", 4, 0, nil},
	{885, "SELECT * FROM java.lang.Thread s WHERE s.@GCRootInfo != null", 4, 0, nil},
	{1021, "SELECT s.value FROM INSTANCEOF java.lang.Number s WHERE (s.value and true)", 3, 0, nil},
	{1029, "SELECT OBJECTS @referenceArray.get(0) FROM OBJECTS 0x17c17128", 1, 0, nil},
	{1037, "SELECT OBJECTS @referenceArray FROM OBJECTS 0x17c17128", 3, 0, nil},
	{1101, "select * from instanceof java.util.AbstractMap", 25, 0, nil},
	{1109, "select * from instanceof 0x128da800", 25, 0, nil},
	{1117, "select * from instanceof 464", 25, 0, nil},
	{1125, "select * from objects instanceof java.util.AbstractMap", 10, 0, nil},
	{1133, "select * from objects instanceof 0x128da800", 10, 0, nil},
	{1141, "select * from objects instanceof 464", 10, 0, nil},
	{1149, "select * from instanceof (select * from objects java.util.AbstractMap)", 25, 0, nil},
	{1157, "select * from objects instanceof (select * from objects java.util.AbstractMap)", 10, 0, nil},
	{1181, `SELECT * FROM ".....i.*"`, 80, 0, nil},
	{1190, `SELECT * FROM ".*" c WHERE (c.@clazz.@name.indexOf("i") = 5)`, 80, 0, nil},
	{1199, `SELECT * FROM ".*" c WHERE (c.@clazz.@name.indexOf('i') = 5)`, 80, 0, nil},
	{1208, `SELECT * FROM ".*" c WHERE (c.@clazz.@name.indexOf(105) = 5)`, 80, 0, nil},
	{1215, "SELECT s[2] FROM int[] s", 5, 0, nil},
	{1223, "SELECT OBJECTS s[2] FROM byte[][] s", 2, 0, nil},
	{1260, "SELECT s[1:3][1] FROM int[] s", 5, 0, nil},
	{1268, "SELECT OBJECTS s[1:3][1] FROM byte[][] s", 2, 0, nil},
	{1306, "SELECT s[(1 - s.@length):(3 - s.@length)][1] FROM int[] s", 5, 0, nil},
	{1452, `SELECT s AS HashMap, eval((SELECT t, t.getKey(), t.getValue() as value FROM OBJECTS ( s[0:-1] ) t WHERE (toString(t.getKey()) = "META-INF")))[0].value AS "Value for META-INF" FROM java.util.HashMap s WHERE ((SELECT t FROM OBJECTS ( s[0:-1] ) t WHERE (toString(t.getKey()) = "META-INF")) != null)`, 3, 0, nil},
	{1472, `SELECT v.t, v.get("t[0:-1]")[0].getKey(), v.t[0:-1], v.get("t[0:-1]") FROM OBJECTS ( eval(( SELECT t, t[0:-1] FROM java.util.HashSet t UNION ( SELECT s, s[0:-1] FROM java.util.Hashtable s  ) ) )) v `, 11, 0, nil},
	{1485, `SELECT v.t, v.get("t[0:-1]")[0].getKey(), v.t[0:-1], v.get("t[0:-1]") FROM OBJECTS ( eval(( SELECT t, t[0:-1] FROM java.util.HashSet t ) )) v`, 5, 0, nil},
	{1493, "SELECT map, map[0:-1] FROM OBJECTS ( SELECT * FROM java.util.HashSet t  )", 5, 0, nil},
	{1527, "SELECT v, v[0:-1][0].getKey(), v[0:-1] FROM OBJECTS ( SELECT * FROM java.util.HashSet t  ) v  UNION (SELECT v, v[0:-1][0].getKey(), v[0:-1] FROM OBJECTS ( SELECT * FROM java.util.Hashtable t  ) v )", 11, 0, nil},
	{1540, "SELECT toString(v[0].getKey()) AS Key FROM OBJECTS ( SELECT * FROM java.util.HashSet t  UNION ( SELECT * FROM java.util.Hashtable s  ) ) v ", 11, 0, nil},
	{1616, `SELECT 'c', "String", 1, 1234567890123456789L, 1.23456, 1.23456F, 1.23456789, 1.23456789D, true, false, null FROM OBJECTS 0`, 1, 0, nil},
	{1708, "SELECT e FROM OBJECTS (1234567890123456789L) e", 1, 0, nil},
	{1718, "SELECT e FROM OBJECTS (1234567) e", 1, 0, nil},
	{1729, `SELECT e FROM OBJECTS ("1234567") e`, 1, 0, nil},
	{1740, "SELECT e FROM OBJECTS ('d') e", 1, 0, nil},
	{1750, "SELECT e FROM OBJECTS (12.25) e", 1, 0, nil},
	{1760, "SELECT e FROM OBJECTS (12.25d) e", 1, 0, nil},
	{1770, "SELECT e FROM OBJECTS (true) e", 1, 0, nil},
	{1780, "SELECT e FROM OBJECTS (1.0 / 0.0) e", 1, 0, nil},
	{1790, "SELECT e FROM OBJECTS (-1.0 / 0.0) e", 1, 0, nil},
	{1800, "SELECT e FROM OBJECTS (0.0 / 0.0) e", 1, 0, nil},
	{1809, "SELECT e.floatValue() FROM OBJECTS (1.0 / 0.0) e", 1, 0, nil},
	{1932, "SELECT e FROM OBJECTS (1E40) e", 1, 0, nil},
	{1960, "SELECT e FROM OBJECTS (1E308D) e", 1, 0, nil},
	{1974, "SELECT e FROM OBJECTS (-1E308D) e", 1, 0, nil},
	{1988, "SELECT e FROM OBJECTS (1E-320D) e", 1, 0, nil},
	{2002, "SELECT e FROM OBJECTS (-1E320D) e", 1, 0, nil},
	{2016, "SELECT e FROM OBJECTS (1E309D) e", 1, 0, nil},
	{2030, "SELECT e FROM OBJECTS (-1E309D) e", 1, 0, nil},
	{2706, `SELECT * FROM java.lang.ThreadGroup s WHERE ((SELECT t FROM OBJECTS ( s.threads[0:-1] ) t WHERE t.name.toString().startsWith("R")) != null)`, 1, 0, nil},
}

// matValue is a ported assertion on the value of a query's first row.
type matValue struct {
	line  int
	query string
	mat   Value
}

// TestMATOQLValues ports OQLTest's assertions on values.
func TestMATOQLValues(t *testing.T) {
	d := loadMATDump(t, matDefault)
	for _, c := range []matValue{
		{269, "select * from objects ((1+2+3--2-2)*-4/-3)", Int(8)},
		{276, "select * from objects ((1L+2L+3L--2L-2L)*-4L/-3L)", Int(8)},
		{283, "select * from objects ((1.0+2.0+3.0--2.0-2.0)*-4.0/-3.0)", Float(8)},
		{290, "select * from objects (1=1 AND 3<2 OR 4>3 AND 4>=4 AND 4 <= 4 AND 4 < 5)", Bool(true)},
		{298, "select * from objects (1L=1L AND 3L<2L OR 4L>3L AND 4L>=4L AND 4L <= 4L AND 4L < 5L)", Bool(true)},
		{306, "select * from objects (1.0=1.0 AND 3.0<2.0 OR 4.0>3.0 AND 4.0>=4.0 AND 4.0 <= 4.0 AND 4.0 < 5.0)", Bool(true)},
		{895, "select toString(s) from objects 0x17c38b80 s", String("little")},
		{898, "select toHex(s.@objectAddress) from objects 0x17c38b80 s", String("0x17c38b80")},
		{901, "select dominators(s).length from objects 0x17c38b80 s", Int(1)},
		{905, "select outbounds(s).length from objects 0x17c38b80 s", Int(2)},
		{910, "select inbounds(s).length from objects 0x17c38b80 s", Int(1)},
		{915, "select classof(s).@name from objects 0x17c38b80 s", String("java.lang.String")},
		{918, "select dominatorof(s) != null from objects 0x17c38b80 s", Bool(true)},
		{1320, `SELECT "ABC"+s FROM OBJECTS (123) s`, String("ABC123")},
		{1331, `SELECT eval("ABC"+s) FROM OBJECTS (123) s`, String("ABC123")},
		{2721, "select MAX_VALUE from OBJECTS java.lang.Integer", Int(2147483647)},
		{2847, "SELECT eval(123).intValue() FROM OBJECTS 1 s", Int(123)},
		{2895, "SELECT toString(s).equals(null) FROM OBJECTS 1 s", Bool(false)},
		// MAT refuses these Java calls; hprofctl has no reflection, and a
		// method outside its fixed set gives null.
		{2760, `SELECT s.@class.forName("java.lang.ClassLoader").getSystemClassLoader() FROM OBJECTS 1 s`, Null()},
		{2772, `SELECT s.@class.forName("java.lang.ProcessBuilder").getConstructor(s.@class.forName("[Ljava.lang.String;")).newInstance("calc") FROM OBJECTS 1 s`, Null()},
		{2784, `SELECT s.@class.forName("java.lang.Runtime").getRuntime() FROM OBJECTS 1 s`, Null()},
		{2796, `SELECT s.@class.forName("java.lang.SecurityManager").newInstance().checkExec("calc") FROM OBJECTS 1 s`, Null()},
		{2808, `SELECT s.@class.forName("java.lang.System").currentTimeMillis() FROM OBJECTS 1 s`, Null()},
		{2820, `SELECT s.@class.forName("java.lang.Thread").activeCount() FROM OBJECTS 1 s`, Null()},
		{2833, "SELECT s.@info FROM java.lang.String[] s", Null()},
	} {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %s: %v", matTest, c.line, c.query, err)
			continue
		}
		if len(res.Rows) == 0 || !sameValue(unwrap(res.Rows[0][0]), c.mat) {
			t.Errorf("%s:%d: %s: %v, MAT %s", matTest, c.line, c.query, res.Rows, describe(c.mat))
		}
	}
}

// TestMATOQLRelations ports OQLTest's assertions that compare the counts
// of two or more queries, or bound one.
func TestMATOQLRelations(t *testing.T) {
	d := loadMATDump(t, matDefault)
	count := func(query string) int {
		t.Helper()
		res, err := d.run(t, query, Options{Reachable: true})
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return len(res.Rows)
	}
	all := count(`SELECT * FROM OBJECTS "java.lang.*" s`)
	long := count(`SELECT * FROM OBJECTS "java.lang.*" s WHERE s.@name.length() > 40`)
	if !(all > 0 && long > 0 && long < all) { // OQLTest.java:189-192
		t.Errorf("%s:189-192: class names longer than 40: %d of %d", matTest, long, all)
	}
	if n := count(`SELECT * FROM OBJECTS "java.lang.*" s WHERE s.@name.length() > 100`); n != 0 { // :205
		t.Errorf("%s:205: class names longer than 100: %d, MAT none", matTest, n)
	}
	classes := count(`SELECT * FROM OBJECTS ".*Ab.*|java.lang.Runtime" s`)
	objs := count(`SELECT * FROM ".*Ab.*|java.lang.Runtime" s`)
	if !(objs > 0 && objs < classes) { // :216-219
		t.Errorf("%s:216-219: %d instances of %d classes, MAT fewer instances than classes", matTest, objs, classes)
	}
	strs, ints := count("SELECT * FROM java.lang.String s"), count("SELECT * FROM java.lang.Integer s")
	ids := count("SELECT objects t.o FROM OBJECTS ( SELECT c.@objectIds AS o FROM OBJECTS java.lang.String c  UNION ( SELECT c.@objectIds AS o FROM OBJECTS java.lang.Integer c  ) ) t")
	if ids != strs+ints { // :734
		t.Errorf("%s:734: @objectIds of String and Integer give %d objects, want %d + %d", matTest, ids, strs, ints)
	}
	arrays := count("SELECT * FROM int[]")
	positive := count("SELECT * FROM int[] c WHERE (c.@valueArray.get(c.@length - 1) > 0)")
	rest := count("SELECT * FROM int[] c WHERE (c.@valueArray.get(c.@length + -1) <= 0)")
	if arrays == 0 || arrays != positive+rest { // :866
		t.Errorf("%s:866: int[] by last element: %d + %d of %d", matTest, positive, rest, arrays)
	}
	keys := count("SELECT OBJECTS ( SELECT OBJECTS q.getKey() AS k FROM OBJECTS ( t[0:-1] ) q  ) FROM java.util.HashMap t")
	nested := count("SELECT OBJECTS (SELECT * FROM OBJECTS ( SELECT OBJECTS q.getKey() AS k FROM OBJECTS ( t[0:-1] ) q  ) ) FROM java.util.HashMap t")
	if keys == 0 || keys != nested { // :1567
		t.Errorf("%s:1567: keys of HashMaps: %d, through a nested select %d", matTest, keys, nested)
	}
	if n := count("select objects s[0:-1] from java.util.ArrayList s"); n < 2 { // :2733
		t.Errorf("%s:2733: elements of ArrayLists: %d, MAT at least 2", matTest, n)
	}
	if n := count("select objects s[0:-1][-1:-1][0] from java.util.ArrayList s"); n < 2 { // :2745
		t.Errorf("%s:2745: last elements of ArrayLists: %d, MAT at least 2", matTest, n)
	}
	// :680-688 and :703, getClassesByName("java.lang.Object", true) the
	// OQL way: OBJECTS INSTANCEOF java.lang.Object.
	classesOf := func(where string) int {
		t.Helper()
		return count("SELECT OBJECTS t FROM OBJECTS ( SELECT * FROM OBJECTS INSTANCEOF java.lang.Object c " + where + ") t")
	}
	allClasses := classesOf("")
	javaOuter := count(`SELECT OBJECTS t FROM OBJECTS ( SELECT * FROM OBJECTS INSTANCEOF java.lang.Object c ) t WHERE t.@name.startsWith("java")`)
	javaInner := classesOf(`WHERE c.@name.startsWith("java")`)
	if !(allClasses > 0 && javaOuter > 0 && javaOuter < allClasses && javaInner == javaOuter) {
		t.Errorf("%s:680-688: classes %d, java* filtered outside %d, inside %d", matTest, allClasses, javaOuter, javaInner)
	}
	if n := classesOf(`WHERE c.@name.startsWith("javazzz")`); n != 0 {
		t.Errorf("%s:703: %d classes named javazzz…", matTest, n)
	}
	// :1556: rows of several columns, one a list, as FROM values.
	if n := count("select * from OBJECTS (SELECT * FROM OBJECTS ( SELECT s.table, s.@usedHeapSize, s[0:-1], s.@objectId, s.@usedHeapSize FROM java.util.HashMap s WHERE (s.table != null) ) z)"); n == 0 {
		t.Errorf("%s:1556: no row", matTest)
	}
	// :1581: a correlated subquery's rows read by column.
	if n := count("SELECT z.map AS Map, z.kv.key AS Key, z.kv.value AS Value FROM OBJECTS ( SELECT h AS map, (SELECT e.getKey() AS key, e.getValue() AS value FROM OBJECTS h[0:-1] e ) AS kv FROM java.util.HashMap h  ) z WHERE (z.kv.key != null)"); n == 0 {
		t.Errorf("%s:1581: HashMap keys through a correlated subquery: none", matTest)
	}
	// :1610: ${h} names the outer alias h, as in MAT's reports.
	if n := count("SELECT z.map AS Map, z.kv.key AS Key, z.kv.value AS Value FROM OBJECTS (SELECT h AS map, (SELECT e.getKey() AS key, e.getValue() AS value FROM OBJECTS ${h}[0:-1] e) AS kv FROM java.util.HashMap h) z WHERE (z.kv.key != null)"); n == 0 {
		t.Errorf("%s:1610: HashMap keys through ${h}: none", matTest)
	}
	// :2048: a column named "" reads through to the row it holds.
	if n := count(`SELECT u FROM OBJECTS ( SELECT t AS "" FROM OBJECTS ( SELECT s.hash AS Hash FROM java.lang.String s  ) t  ) u WHERE (u.Hash != null)`); n == 0 {
		t.Errorf("%s:2048: no row", matTest)
	}
	// :1549: one key of the HashSets and Hashtables is META-INF.
	if n := count(`SELECT * FROM OBJECTS ( SELECT * FROM java.util.HashSet t  UNION ( SELECT * FROM java.util.Hashtable s  ) ) v WHERE toString(v[0].getKey()) = "META-INF"`); n != 1 {
		t.Errorf("%s:1549: %d first keys META-INF, MAT 1", matTest, n)
	}
	// :1307: a range counted from the end gives what one counted from
	// the start gives.
	if n := count("SELECT * FROM int[] s WHERE s[1:3][1] != s[(1 - s.@length):(3 - s.@length)][1]"); n != 0 {
		t.Errorf("%s:1307: %d arrays where the ranges differ", matTest, n)
	}
}

// TestMATOQLJoins ports OQLTest's joins on sun_jdk6_18_x32: a subquery
// of several rows in the select list repeats the row for each of them,
// and a correlated one, naming the outer alias, pairs the Integers and
// Longs of equal value.
func TestMATOQLJoins(t *testing.T) {
	d := loadMATDump(t, "sun_jdk6_18_x32.hprof.gz")
	count := func(query string) int {
		t.Helper()
		res, err := d.run(t, query, Options{Reachable: true})
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return len(res.Rows)
	}
	ints, bools, longs := count("SELECT * from java.lang.Integer"), count("SELECT * from java.lang.Boolean"), count("SELECT * from java.lang.Long")
	const (
		intsToLongs = `SELECT z.i AS Integer, z.i.value AS "Integer value", z.lv.l AS Long, z.lv.l.value as "Long value" FROM OBJECTS ( SELECT i, (SELECT l FROM java.lang.Long l WHERE (l.value = i.value)) AS lv FROM java.lang.Integer i  ) z`
		longsToInts = `SELECT z.iv.i AS Integer, z.iv.i.value AS "Integer value", z.l AS Long, z.l.value as "Long value" FROM OBJECTS ( SELECT (SELECT i FROM java.lang.Integer i WHERE (i.value = l.value)) AS iv, l FROM java.lang.Long l  ) z`
	)
	for _, c := range []struct {
		line        int
		query       string
		least, most int  // bounds of the row count
		pairs       bool // every row has both values, equal
	}{
		{2077, `SELECT z.i AS Integer, z.i.value AS "Integer value", z.lv.l AS Boolean, z.lv.l.value as "Boolean value" FROM OBJECTS ( SELECT i, (SELECT l FROM java.lang.Boolean l ) AS lv FROM java.lang.Integer i  ) z`, ints * bools, ints * bools, false},
		{2097, intsToLongs, ints, ints * longs, false},
		{2119, intsToLongs + " WHERE (z.lv != null)", 0, min(ints, longs), true},
		{2141, longsToInts + " WHERE (z.iv != null)", 0, min(ints, longs), true},
		{2163, longsToInts, longs, ints * longs, false},
		{2189, intsToLongs + " UNION (" + longsToInts + " WHERE (z.iv = null))", max(ints, longs), ints * longs, false},
	} {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %v", matTest, c.line, err)
			continue
		}
		if n := len(res.Rows); n < c.least || n > c.most {
			t.Errorf("%s:%d: %d rows, want %d to %d (%d Integers, %d Booleans, %d Longs)", matTest, c.line, n, c.least, c.most, ints, bools, longs)
		}
		for _, row := range res.Rows {
			a, b := unwrap(row[1]), unwrap(row[3])
			if c.line == 2077 {
				if a.Kind != KindInt || b.Kind != KindBool {
					t.Errorf("%s:%d: row %v: want an int and a boolean", matTest, c.line, row)
				}
				continue
			}
			if (a.Kind == KindInt && b.Kind == KindInt && a.Int != b.Int) || c.pairs && (a.Kind != KindInt || b.Kind != KindInt) {
				t.Errorf("%s:%d: row %v: want equal values", matTest, c.line, row)
			}
		}
	}
	if pairs := count(intsToLongs + " WHERE (z.lv != null)"); pairs == 0 {
		t.Errorf("%s:2119: no Integer has a Long of its value", matTest)
	}
}

// TestMATOQLErrors ports OQLTest's queries that must fail: an object
// compared with a number, an object id or address the dump lacks, and
// functions of objects applied to a number (MAT reads
// the number as an id it lacks; hprofctl says it is no object).
func TestMATOQLErrors(t *testing.T) {
	d := loadMATDump(t, matDefault)
	for _, c := range []struct {
		line  int
		query string
	}{
		{924, "select s from objects 0 where dominatorof(s) = 0"},
		{2210, "SELECT u FROM OBJECTS 1234567890 u"},
		{2222, "SELECT classof(u) FROM OBJECTS (1234567890) u"},
		{2233, "SELECT inbounds(u) FROM OBJECTS (1234567890) u"},
		{2244, "SELECT outbounds(u) FROM OBJECTS (1234567890) u"},
		{2255, "SELECT dominatorof(u) FROM OBJECTS (1234567890) u"},
		{2266, "SELECT dominators(u) FROM OBJECTS (1234567890) u"},
		{2277, "SELECT AS RETAINED SET u FROM OBJECTS (1234567890) u"},
		// MAT gives 1 row: the system class loader it adds at 0x0
		// (docs/oql.md); hprofctl has no object there.
		{584, "select * from objects 0x0"},
	} {
		if _, err := d.run(t, c.query, Options{Reachable: true}); err == nil {
			t.Errorf("%s:%d: %s: no error, MAT fails", matTest, c.line, c.query)
		}
	}
}

// TestMATOQLParse ports OQLTest's parser assertions: words that are
// keywords elsewhere may name packages (lines 72-81), and three
// statements must not parse (lines 87-89).
func TestMATOQLParse(t *testing.T) {
	for _, word := range []string{"as", "distinct", "from", "in", "is", "like", "not", "objects", "union", "where"} {
		if _, err := Parse("SELECT * FROM something." + word + ".Object"); err != nil {
			t.Errorf("%s:72-81: something.%s.Object: %v", matTest, word, err)
		}
	}
	for _, q := range []string{"select dominatorsof(s) from", "SELECT * FROM something.as retained set", "SELECT * FROM x WHERE"} {
		if _, err := Parse(q); err == nil {
			t.Errorf("%s:87-89: %s parses, MAT refuses it", matTest, q)
		}
	}
}

// TestMATOQLColumns ports OQLTest's assertions on columns: their number
// and their AS labels.
func TestMATOQLColumns(t *testing.T) {
	d := loadMATDump(t, matDefault)
	literals := `'c' as a, "String" as b, 1 as c, 1234567890123456789L as d, 1.23456 as e, 1.23456F as f, 1.23456789 as g, 1.23456789D as h, true as i, false as j, null as k`
	for _, c := range []struct {
		line    int
		query   string
		columns int
		label   string // of the column numbered at, when set
		at      int
	}{
		{938, `SELECT s.@objectId AS "A B" FROM java.lang.Object s`, 1, "A B", 0},
		{960, `SELECT s.@objectId AS "" FROM java.lang.Object s`, 1, "", 0},
		{989, `SELECT s.@objectId AS "A,B" FROM java.lang.Object s`, 1, "A,B", 0},
		{1454, `SELECT s AS HashMap, eval((SELECT t, t.getKey(), t.getValue() as value FROM OBJECTS ( s[0:-1] ) t WHERE (toString(t.getKey()) = "META-INF")))[0].value AS "Value for META-INF" FROM java.util.HashMap s WHERE ((SELECT t FROM OBJECTS ( s[0:-1] ) t WHERE (toString(t.getKey()) = "META-INF")) != null)`, 2, "Value for META-INF", 1},
		{1582, "SELECT z.map AS Map, z.kv.key AS Key, z.kv.value AS Value FROM OBJECTS ( SELECT h AS map, (SELECT e.getKey() AS key, e.getValue() AS value FROM OBJECTS ${h}[0:-1] e ) AS kv FROM java.util.HashMap h  ) z WHERE (z.kv.key != null)", 3, "", -1},
		{1617, `SELECT 'c', "String", 1, 1234567890123456789L, 1.23456, 1.23456F, 1.23456789, 1.23456789D, true, false, null FROM OBJECTS 0`, 11, "", -1},
		{1627, "SELECT " + literals + " FROM OBJECTS 0", 11, "", -1},
		{1639, "SELECT z.a,z.b,z.c,z.d,z.e,z.f,z.g,z.h,z.i,z.j,z.k FROM OBJECTS (SELECT " + literals + " FROM OBJECTS 0) z", 11, "", -1},
		{1661, `SELECT (SELECT * FROM OBJECTS ('c')) as a, (SELECT * FROM OBJECTS ("String")) as b, (SELECT * FROM OBJECTS (1)) as c, (SELECT * FROM OBJECTS (1234567890123456789L)) as d, (SELECT * FROM OBJECTS (1.23456)) as e, (SELECT * FROM OBJECTS (1.23456F)) as f, (SELECT * FROM OBJECTS (1.23456789)) as g, (SELECT * FROM OBJECTS (1.23456789D)) as h, (SELECT * FROM OBJECTS (true)) as i, (SELECT * FROM OBJECTS (false)) as j, (SELECT * FROM OBJECTS (null)) as k FROM OBJECTS 0`, 11, "", -1},
		{1674, `SELECT a.t.s.value, a, outbounds(a.t.s.value) FROM OBJECTS ( SELECT (SELECT s FROM java.lang.String s ) AS t FROM OBJECTS ( "A" )  ) a`, 3, "", -1},
		{1691, `SELECT a.t.s.value, a, outbounds(a.t.s.value) FROM OBJECTS ( SELECT (SELECT s FROM java.lang.String s ) AS t FROM OBJECTS ( "A" )  ) a  UNION (SELECT a.t.s.value, a, outbounds(a.t.s.value) FROM OBJECTS ( SELECT (SELECT s FROM java.lang.String s ) AS t FROM OBJECTS ( "A" )  ) a )`, 3, "", -1},
		{1701, "SELECT v, v.i.value FROM OBJECTS ( SELECT i FROM java.lang.String i  UNION ( SELECT i FROM java.lang.Integer i  ) ) v", 2, "", -1},
	} {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %s: %v", matTest, c.line, c.query, err)
			continue
		}
		if len(res.Columns) != c.columns || c.at >= 0 && res.Columns[c.at] != c.label {
			t.Errorf("%s:%d: columns %q, MAT %d with %q", matTest, c.line, res.Columns, c.columns, c.label)
		}
	}
	if _, err := Parse("SELECT * FROM ${snapshot}.getClasses()"); err == nil {
		t.Errorf("${snapshot} parses")
	}
}

// matUnindexed are addresses of objects MAT drops as unreachable from
// sun_jdk5_64bit (OQLTest.java:2899-2901): 7 Strings, 3 char[], 4
// Object[]. MAT still finds them by address; hprofctl keeps them anyway.
var matUnindexed = "0x128e3098,0x12905ba0,0x12906ad8,0x1290be50,0x129166c0,0x12930748,0x12931f40," +
	"0x128e3070,0x12905b60,0x12906aa8,0x17c108d0,0x17c10928,0x17c10980,0x17c109d8"

// TestMATOQLUnindexed ports OQLTest's queries over objects named by
// address that MAT does not index: they come back in the order written,
// duplicates kept unless DISTINCT.
func TestMATOQLUnindexed(t *testing.T) {
	d := loadMATDump(t, matDefault)
	const dups = ",0x128e3098,0x12905ba0,0x12906ad8,0x1290be50"
	for _, c := range []struct {
		line  int
		query string
		rows  int
	}{
		{2929, "SELECT * FROM OBJECTS " + matUnindexed, 14},
		{2948, "SELECT * FROM OBJECTS " + matUnindexed + dups, 18},
		{2967, "SELECT DISTINCT * FROM OBJECTS " + matUnindexed + dups, 14},
	} {
		res, err := d.run(t, c.query, Options{Reachable: true})
		if err != nil {
			t.Errorf("%s:%d: %v", matTest, c.line, err)
			continue
		}
		if len(res.Rows) != c.rows {
			t.Errorf("%s:%d: %d rows, MAT %d", matTest, c.line, len(res.Rows), c.rows)
			continue
		}
		for k, want := range strings.Split(matUnindexed, ",") {
			if got := unwrap(res.Rows[k][0]); got.Kind != KindObject || fmt.Sprintf("0x%x", got.ID) != want {
				t.Errorf("%s:%d: row %d is %s, MAT %s", matTest, c.line, k, describe(got), want)
			}
		}
	}
}
