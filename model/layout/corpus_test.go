package layout_test

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/layout"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// dumpCase pairs a real dump with the `jmap -histo` taken from the same JVM.
type dumpCase struct {
	dump, histo string
	// want is the layout Infer must find (Align 0: not checked).
	want layout.Config
	// agent marks JVMTI hprof-agent dumps, whose ids are not addresses:
	// Infer must say so and find want from the offset statics alone.
	agent bool
	// sameMoment marks histograms taken while the heap held exactly what
	// the dump holds (JDK 7+): every class object must be accounted for.
	sameMoment bool
}

var matCases = []dumpCase{
	{"sun_jdk5_13_x32.hprof.gz", "histogram_sun_jdk5_13_x32.txt", layout.Config{Word: 4, Header: 8, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 5}, false, false},
	{"sun_jdk6_18_x32.hprof.gz", "histogram_sun_jdk6_18_x32.txt", layout.Config{Word: 4, Header: 8, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 6}, false, false},
	{"sun_jdk6_18_x64.hprof.gz", "histogram_sun_jdk6_18_x64.txt", layout.Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: layout.Legacy, JDK: 6}, false, false},
	{"sun_jdk6_30_x64_compressedOops.hprof.gz", "sun_jdk6_30_x64_compressedOops.notes.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 6}, false, false},
	{"sun_jdk6_30_x64_nocompressedOops.hprof.gz", "sun_jdk6_30_x64_nocompressedOops.notes.txt", layout.Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: layout.Legacy, JDK: 6}, false, false},
	{"sun_jdk6_31_hprofagent_compressedOops.hprof.gz", "sun_jdk6_31_hprofagent_compressedOops.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 6}, true, false},
	{"sun_jdk6_31_hprofagent_nocompressedOops.hprof.gz", "sun_jdk6_31_hprofagent_nocompressedOops.txt", layout.Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: layout.Legacy, JDK: 6}, true, false},
	// Dumps without a histogram: every observed gap must be explained.
	{"sun_jdk5_64bit.hprof.gz", "", layout.Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: layout.Legacy, JDK: 5}, false, false},
	{"sun_jdk6_32bit.hprof.gz", "", layout.Config{Word: 4, Header: 8, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 6}, false, false},
	{"oracle_jdk7_21_x64.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 7}, false, false},
	{"oracle_jdk8_05_x64.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 8}, false, false},
	{"openjdk_jdk11_04_x64.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy}, false, false},
}

const jvmDir = "../../testdata/jvm"

var jvmCases = []dumpCase{
	{"jdk17-default.hprof.gz", "jdk17-default.histo.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Compact15}, false, true},
	{"jdk17-nocoops.hprof.gz", "jdk17-nocoops.histo.txt", layout.Config{Word: 8, Header: 12, Ref: 8, Align: 8, Scheme: layout.Compact15}, false, true},
	{"jdk17-nocoops-noccp.hprof.gz", "jdk17-nocoops-noccp.histo.txt", layout.Config{Word: 8, Header: 16, Ref: 8, Align: 8, Scheme: layout.Compact15}, false, true},
	{"jdk17-align16.hprof.gz", "jdk17-align16.histo.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 16, Scheme: layout.Compact15}, false, true},
	{"jdk17-oom.hprof.gz", "jdk17-oom.histo.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Compact15}, false, false},
	{"jdk25-default.hprof.gz", "jdk25-default.histo.txt", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Compact15}, false, true},
	{"jdk25-coh.hprof.gz", "jdk25-coh.histo.txt", layout.Config{Word: 8, Header: 8, Ref: 4, Align: 8, Scheme: layout.Compact15}, false, true},
}

func TestMATCorpus(t *testing.T) {
	runCases(t, testshared.Path(t, "corpus", "eclipse-mat_mat"), matCases)
}

func TestJVMFixtures(t *testing.T) {
	runCases(t, jvmDir, jvmCases)
}

// agentCases are the other JVMTI hprof-agent dumps of the corpus. They come
// without histograms; want is what their offset statics all agree on.
var agentCases = []dumpCase{
	{"eclipse-mat_mat/oracle_jdk7_21_hprofagent.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 7}, true, false},
	{"GrapheneOS_platform_art/RI.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 8}, true, false},
	{"kevinlights_jvm-learn/core.hprof.gz", "", layout.Config{Word: 8, Header: 12, Ref: 4, Align: 8, Scheme: layout.Legacy, JDK: 8}, true, false},
	// A 2006 VM that put references first in every class
	// (FieldsAllocationStyle=0): AbstractQueuedSynchronizer.stateOffset
	// is 20, after head and tail.
	{"agourlay_hprof-slurp/hprof-32.bin", "", layout.Config{Word: 4, Header: 8, Ref: 4, Align: 8, Scheme: layout.LegacyOopsFirst, JDK: 6}, true, false},
}

func TestAgentDumps(t *testing.T) {
	runCases(t, testshared.Path(t, "corpus"), agentCases)
}

// TestFieldOffsetsMatchJVM compares the offsets FieldOffsets and ArrayBase
// give under the inferred layout with the ones the JVM reported for the
// fixture classes through Unsafe (testdata/jvm/NAME.layout.txt).
func TestFieldOffsetsMatchJVM(t *testing.T) {
	reports, _ := filepath.Glob(filepath.Join(jvmDir, "*.layout.txt"))
	if len(reports) == 0 {
		t.Fatal("no *.layout.txt in " + jvmDir)
	}
	for _, report := range reports {
		name := strings.TrimSuffix(filepath.Base(report), ".layout.txt")
		t.Run(name, func(t *testing.T) {
			d := loadDump(t, filepath.Join(jvmDir, name+".hprof.gz"))
			c, _ := layout.Infer(d.idSize, d.classes, d.observations())
			offs := c.FieldOffsets(d.classes)
			byName := map[string]int{}
			for i, cl := range d.classes {
				byName[cl.Name] = i
			}
			text, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			fields, arrays := 0, 0
			for _, line := range strings.Split(string(text), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 4 && f[0] == "array":
					elem := elemOf("[" + descriptorOfName(strings.TrimSuffix(f[1], "[]")))
					base, _ := strconv.Atoi(f[2])
					scale, _ := strconv.Atoi(f[3])
					if c.ArrayBase(elem) != base || elem.Size(c.Ref) != scale {
						t.Errorf("%s: base %d, scale %d; the JVM says %d, %d", f[1], c.ArrayBase(elem), elem.Size(c.Ref), base, scale)
					}
					arrays++
				case len(f) == 6 && f[0] == "field" && f[1] == f[5]:
					i, ok := byName[f[1]]
					if !ok {
						continue
					}
					k := indexOf(d.classes[i].Names, f[4])
					want, _ := strconv.Atoi(f[2])
					if k < 0 || offs[i][k] != want {
						t.Errorf("%s.%s: offset %v, the JVM says %d", f[1], f[4], offsetOf(offs[i], k), want)
					}
					fields++
				}
			}
			if fields < 50 || arrays != 9 {
				t.Errorf("only %d fields and %d array types compared", fields, arrays)
			}
		})
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func offsetOf(offs []int, k int) any {
	if k < 0 || k >= len(offs) {
		return "none"
	}
	return offs[k]
}

// descriptorOfName returns the descriptor of a primitive or reference
// element type named as Java source does.
func descriptorOfName(name string) string {
	for t, n := range primNames {
		if n == name {
			return string(descriptorOf(t))
		}
	}
	return "L" + name + ";"
}

func runCases(t *testing.T, dir string, cases []dumpCase) {
	for _, tc := range cases {
		t.Run(strings.TrimSuffix(tc.dump, ".hprof.gz"), func(t *testing.T) {
			d := loadDump(t, filepath.Join(dir, tc.dump))
			got, reason := layout.Infer(d.idSize, d.classes, d.observations())
			t.Logf("Infer: %s", reason)
			cfg := got
			if tc.agent && (!strings.Contains(reason, "not addresses") || !strings.Contains(reason, "offset statics agree")) {
				t.Errorf("agent dump: reason %q does not say the ids are not addresses and what the statics tell", reason)
			}
			if !sameShape(got, tc.want) {
				t.Errorf("Infer = %v, want %v", got, tc.want)
			}
			if !tc.agent {
				d.checkGaps(t, cfg)
			}
			if tc.histo != "" {
				d.checkHistogram(t, cfg, filepath.Join(dir, tc.histo), tc.sameMoment)
			}
		})
	}
}

// sameShape compares the fields of want that are set.
func sameShape(got, want layout.Config) bool {
	return got.Word == want.Word && got.Header == want.Header && got.Ref == want.Ref &&
		got.Align == want.Align && got.Scheme == want.Scheme && (want.JDK == 0 || got.JDK == want.JDK)
}

// object is one heap object: its address, class and (arrays) length.
type object struct {
	addr   uint64
	class  int
	length int64
}

type dump struct {
	idSize  int
	classes []layout.Class
	objects []object // by address
	// classDumps are the classes the dump has a CLASS_DUMP of; their
	// objects are mirrors (class objects).
	classDumps []int
	// mirrorInstances counts the INSTANCE_DUMPs of java.lang.Class: the
	// mirrors of primitive types, which HotSpot dumps as instances.
	mirrorInstances int
	// undumped counts the LOAD_CLASS records without a CLASS_DUMP: mirrors
	// the heap holds although the dump describes no class for them.
	undumped int
}

// loadDump streams a dump with the project's parser and keeps what layout
// needs: classes with their fields, and every object's address.
func loadDump(t *testing.T, path string) *dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var src io.Reader = bufio.NewReaderSize(f, 1<<20)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(src)
		if err != nil {
			t.Fatal(err)
		}
		src = gz
	}
	r, err := hprof.NewReader(src, hprof.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	classNames := map[uint64]string{}
	var dumps []hprof.ClassDump
	fieldNames := [][]uint64{}
	type raw struct {
		addr, class uint64
		elem        layout.FieldType
		length      int64
	}
	var raws []raw
	for r.Next() {
		rec := r.Record()
		if rec.Tag == hprof.TagUTF8 {
			names[rec.UTF8.ID] = string(rec.UTF8.Text)
			continue
		}
		if rec.Tag == hprof.TagLoadClass {
			classNames[rec.LoadClass.ClassID] = names[rec.LoadClass.NameID]
			continue
		}
		if (rec.Tag != hprof.TagHeapDump && rec.Tag != hprof.TagHeapDumpSegment) || rec.Dump != 0 {
			continue
		}
		switch rec.Sub {
		case hprof.SubClassDump:
			cd := rec.Class
			ids := make([]uint64, len(cd.Fields))
			for i, fl := range cd.Fields {
				ids[i] = fl.NameID
			}
			cd.Fields = append([]hprof.Field(nil), cd.Fields...)
			cd.Statics = append([]hprof.Static(nil), cd.Statics...)
			dumps = append(dumps, cd)
			fieldNames = append(fieldNames, ids)
			raws = append(raws, raw{addr: cd.ID, class: 0})
		case hprof.SubInstanceDump:
			raws = append(raws, raw{addr: rec.Instance.ID, class: rec.Instance.ClassID})
		case hprof.SubObjArrayDump:
			raws = append(raws, raw{addr: rec.ObjArray.ID, class: rec.ObjArray.ClassID, elem: layout.Object, length: int64(rec.ObjArray.Length)})
		case hprof.SubPrimArrayDump:
			raws = append(raws, raw{addr: rec.PrimArray.ID, elem: layout.FieldType(rec.PrimArray.ElemType), length: int64(rec.PrimArray.Length)})
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	d := &dump{idSize: r.IDSize()}
	index := map[uint64]int{}
	for i := range dumps {
		d.classDumps = append(d.classDumps, i)
	}
	byName := map[string]int{}
	for i, cd := range dumps {
		c := layout.Class{Name: javaName(classNames[cd.ID]), Super: -1, Elem: elemOf(classNames[cd.ID])}
		for k, fl := range cd.Fields {
			c.Fields = append(c.Fields, layout.FieldType(fl.Type))
			c.Names = append(c.Names, names[fieldNames[i][k]])
		}
		for _, s := range cd.Statics {
			c.Statics = append(c.Statics, layout.Static{Name: names[s.NameID], Type: layout.FieldType(s.Type), Value: s.Value})
		}
		index[cd.ID] = i
		byName[c.Name] = i
		d.classes = append(d.classes, c)
	}
	for i, cd := range dumps {
		if s, ok := index[cd.SuperID]; ok && cd.SuperID != 0 {
			d.classes[i].Super = s
		}
	}
	primClass := func(e layout.FieldType) int {
		name := primNames[e] + "[]"
		if i, ok := byName[name]; ok {
			return i
		}
		byName[name] = len(d.classes)
		d.classes = append(d.classes, layout.Class{Name: name, Super: -1, Elem: e})
		return len(d.classes) - 1
	}
	for id := range classNames {
		if _, ok := index[id]; !ok {
			d.undumped++
		}
	}
	mirror, hasMirror := byName["java.lang.Class"]
	for _, o := range raws {
		var ci int
		switch {
		case o.class == 0 && o.elem == 0:
			if !hasMirror {
				continue
			}
			ci = mirror
		case o.class == 0:
			ci = primClass(o.elem)
		default:
			i, ok := index[o.class]
			if !ok {
				continue
			}
			ci = i
			if hasMirror && i == mirror {
				d.mirrorInstances++
			}
		}
		d.objects = append(d.objects, object{o.addr, ci, o.length})
	}
	sort.Slice(d.objects, func(a, b int) bool { return d.objects[a].addr < d.objects[b].addr })
	return d
}

var primNames = map[layout.FieldType]string{
	layout.Boolean: "boolean", layout.Char: "char", layout.Float: "float", layout.Double: "double",
	layout.Byte: "byte", layout.Short: "short", layout.Int: "int", layout.Long: "long",
}

var descriptorTypes = map[byte]layout.FieldType{
	'Z': layout.Boolean, 'C': layout.Char, 'F': layout.Float, 'D': layout.Double,
	'B': layout.Byte, 'S': layout.Short, 'I': layout.Int, 'J': layout.Long,
}

// elemOf returns the element type of an array class named in VM form.
func elemOf(vmName string) layout.FieldType {
	if len(vmName) < 2 || vmName[0] != '[' {
		return 0
	}
	if t, ok := descriptorTypes[vmName[1]]; ok && len(vmName) == 2 {
		return t
	}
	return layout.Object
}

// javaName turns "java/lang/String" into "java.lang.String" and "[[I" into
// "int[][]".
func javaName(vmName string) string {
	dims := 0
	for dims < len(vmName) && vmName[dims] == '[' {
		dims++
	}
	base := vmName[dims:]
	if dims > 0 {
		if t, ok := descriptorTypes[base[0]]; ok && len(base) == 1 {
			base = primNames[t]
		} else {
			base = strings.TrimSuffix(strings.TrimPrefix(base, "L"), ";")
		}
	}
	return strings.ReplaceAll(base, "/", ".") + strings.Repeat("[]", dims)
}

// histoName turns a Java name into the form `jmap -histo` prints.
func histoName(javaName string, c layout.Class) string {
	if c.Elem == 0 {
		return javaName
	}
	dims := strings.Count(javaName, "[]")
	base := strings.TrimSuffix(javaName, strings.Repeat("[]", dims))
	for t, n := range primNames {
		if n == base {
			return strings.Repeat("[", dims) + string("ZCFDBSIJ"[strings.IndexByte("ZCFDBSIJ", descriptorOf(t))])
		}
	}
	return strings.Repeat("[", dims) + "L" + base + ";"
}

func descriptorOf(t layout.FieldType) byte {
	for b, x := range descriptorTypes {
		if x == t {
			return b
		}
	}
	return '?'
}

// observations computes, the way a model builder would, the smallest gap
// after each instance class's objects and (length, gap) samples of arrays.
func (d *dump) observations() []layout.Observation {
	minGap := map[int]int64{}
	samples := map[int]int{}
	var obs []layout.Observation
	for k := 0; k+1 < len(d.objects); k++ {
		o := d.objects[k]
		gap := int64(d.objects[k+1].addr - o.addr)
		if d.classes[o.class].Elem != 0 {
			if samples[o.class] < 256 {
				samples[o.class]++
				obs = append(obs, layout.Observation{Class: o.class, Length: o.length, Gap: gap})
			}
			continue
		}
		if g, ok := minGap[o.class]; !ok || gap < g {
			minGap[o.class] = gap
		}
	}
	for c, g := range minGap {
		obs = append(obs, layout.Observation{Class: c, Gap: g})
	}
	return obs
}

// checkGaps reports objects that the layout makes larger than the room the
// dump gives them.
func (d *dump) checkGaps(t *testing.T, c layout.Config) {
	sizes := c.InstanceSizes(d.classes)
	bad := map[string]bool{}
	for k := 0; k+1 < len(d.objects); k++ {
		o := d.objects[k]
		cl := d.classes[o.class]
		if cl.Name == "java.lang.Class" || cl.Name == "jdk.internal.vm.StackChunk" {
			continue
		}
		size := int64(sizes[o.class])
		if cl.Elem != 0 {
			size = c.ArraySize(cl.Elem, o.length)
		}
		if gap := int64(d.objects[k+1].addr - o.addr); size > gap && !bad[cl.Name] {
			bad[cl.Name] = true
			t.Errorf("%s: size %d exceeds the gap %d to the next object", cl.Name, size, gap)
		}
	}
}

// checkHistogram compares every instance class's size with the histogram's
// bytes per instance. Array classes are compared by total bytes where the
// dump has as many arrays as the histogram; the histogram was not taken at
// the same instant as the dump, so a difference there is only logged.
func (d *dump) checkHistogram(t *testing.T, c layout.Config, path string, sameMoment bool) {
	h := readHisto(t, path)
	sizes := c.InstanceSizes(d.classes)
	arrayBytes := map[int]int64{}
	arrayCount := map[int]int64{}
	for _, o := range d.objects {
		if d.classes[o.class].Elem != 0 {
			arrayBytes[o.class] += c.ArraySize(d.classes[o.class].Elem, o.length)
			arrayCount[o.class]++
		}
	}
	var match, total, arrMatch, arrTotal int
	for i, cl := range d.classes {
		row, ok := h[histoName(cl.Name, cl)]
		if !ok || row.instances == 0 {
			continue
		}
		if cl.Elem != 0 {
			if arrayCount[i] != row.instances {
				continue // a different set of arrays: not comparable
			}
			arrTotal++
			if arrayBytes[i] == row.bytes {
				arrMatch++
			} else {
				t.Logf("%s: %d arrays take %d bytes, histogram says %d", cl.Name, row.instances, arrayBytes[i], row.bytes)
			}
			continue
		}
		if cl.Name == "java.lang.Class" && c.JDK >= 7 {
			if sameMoment {
				d.checkMirrors(t, c, i, row)
			}
			continue
		}
		total++
		want := row.bytes / row.instances
		if int64(sizes[i]) == want && row.bytes%row.instances == 0 {
			match++
		} else {
			t.Errorf("%s: size %d, histogram says %d bytes / %d instances", cl.Name, sizes[i], row.bytes, row.instances)
		}
	}
	t.Logf("%s: %d/%d instance classes and %d/%d comparable array classes match the histogram", filepath.Base(path), match, total, arrMatch, arrTotal)
	if total == 0 {
		t.Error("no class of the histogram was compared")
	}
}

// checkMirrors compares the class objects of a JDK 7+ dump with the
// histogram's java.lang.Class row: one mirror per CLASS_DUMP, sized with
// its class's static fields, plus the mirrors without static fields that
// have no CLASS_DUMP: those of primitive types (INSTANCE_DUMPs of
// java.lang.Class) and those only a LOAD_CLASS record names.
func (d *dump) checkMirrors(t *testing.T, c layout.Config, class int, row histoRow) {
	t.Helper()
	mirrors := c.MirrorSizes(d.classes)
	plain := int64(c.InstanceSizes(d.classes)[class])
	var n, bytes int64
	for _, i := range d.classDumps {
		n++
		bytes += int64(mirrors[i])
	}
	extra := int64(d.mirrorInstances + d.undumped)
	n += extra
	bytes += extra * plain
	if n != row.instances || bytes != row.bytes {
		t.Errorf("java.lang.Class: %d mirrors (%d without a CLASS_DUMP) take %d bytes, histogram says %d take %d",
			n, extra, bytes, row.instances, row.bytes)
	}
}

type histoRow struct{ instances, bytes int64 }

// readHisto parses `jmap -histo` output, with or without the rank column and
// the module suffix of JDK 9+.
func readHisto(t *testing.T, path string) map[string]histoRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]histoRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 0 && strings.HasSuffix(fs[0], ":") {
			fs = fs[1:]
		}
		if len(fs) < 3 {
			continue
		}
		n, err1 := strconv.ParseInt(fs[0], 10, 64)
		b, err2 := strconv.ParseInt(fs[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		rows[fs[2]] = histoRow{n, b}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
