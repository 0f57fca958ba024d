package hprofascii_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// benchSize is the size of the file BenchmarkReader reads.
const benchSize = 512 << 20

// syntheticClasses are the classes of the synthetic heap: name, number
// of reference fields and whether instances are object arrays,
// primitive arrays or plain objects.
var syntheticClasses = []struct {
	name   string
	fields []string
	kind   byte // 'o' object, 'a' object array, 'p' primitive array
}{
	{"java.lang.String", []string{"value"}, 'o'},
	{"char[]", nil, 'p'},
	{"java.util.HashMap$Node", []string{"key", "value", "next"}, 'o'},
	{"java.util.HashMap$Node[]", nil, 'a'},
	{"java.util.ArrayList", []string{"elementData"}, 'o'},
	{"java.lang.Object[]", nil, 'a'},
	{"com.example.order.OrderLine", []string{"product", "order", "price", "createdBy", "discount"}, 'o'},
	{"byte[]", nil, 'p'},
	{"java.util.concurrent.ConcurrentHashMap$Node", []string{"key", "val", "next"}, 'o'},
	{"int[]", nil, 'p'},
}

// writeSynthetic writes a JVMTI-style hprof ASCII file of about size
// bytes, the lines printed as the agent prints them: threads, traces,
// monitor events, a MONITOR DUMP, then one large HEAP DUMP, SITES and
// CPU SAMPLES. It returns the number of bytes written.
func writeSynthetic(w io.Writer, size int64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	put := func(b []byte) {
		m, _ := bw.Write(b)
		n += int64(m)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	var line []byte
	put([]byte("JAVA PROFILE 1.0.1, created Sat Mar 27 10:51:47 2021\n\n" +
		"Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n" +
		"Synthetic hprofctl benchmark file.\n\n--------\n\n"))
	const threads, traces = 64, 20000
	for i := range threads {
		put(fmt.Appendf(line[:0], "THREAD START (obj=%x, id = %d, name=\"worker-%d\", group=\"main\")\n", 0x50000100+i, 200001+i, i))
	}
	for i := range traces {
		line = fmt.Appendf(line[:0], "TRACE %d: (thread=%d)\n", 300000+i, 200001+i%threads)
		for d := range 4 {
			c := syntheticClasses[(i+d)%len(syntheticClasses)].name
			line = fmt.Appendf(line, "\t%s.method%d(%s.java:%d)\n", c, d, "Source", 10+i%900)
		}
		put(line)
		if i%100 == 0 {
			put(fmt.Appendf(line[:0], "WAIT: MONITOR Ljava/lang/Object;, timeout=%d, thread %d\n", i%1000, 200001+i%threads))
		}
	}
	put([]byte("MONITOR DUMP BEGIN\n"))
	for i := range threads {
		put(fmt.Appendf(line[:0], "    THREAD %d, trace %d, status: %s\n", 200001+i, 300000+i, []string{"R", "CW", "MW"}[i%3]))
	}
	put([]byte("    MONITOR Ljava/lang/Object;\n\towner: thread 200001, entry count: 1\n\twaiting to enter: thread 200003, thread 200006\n\twaiting to be notified: thread 200002\nMONITOR DUMP END\n"))
	put([]byte("HEAP DUMP BEGIN (12345678 objects, 987654321 bytes) Sat Mar 27 10:51:58 2021\n"))
	for i := range threads {
		put(fmt.Appendf(line[:0], "ROOT %x (kind=<thread>, id=%d, trace=%d)\n", 0x50000100+i, 200001+i, 300000+i))
		put(fmt.Appendf(line[:0], "ROOT %x (kind=<Java stack>, thread=%d, frame=%d)\n", 0x51000000+i, 200001+i, i%8))
	}
	for i, c := range syntheticClasses {
		put(fmt.Appendf(line[:0], "CLS %x (name=%s, trace=300000)\n\tsuper\t\t50000001\n\tloader\t\t90000001\n\tstatic cache\t%x\n", 0x50000010+i, c.name, 0x52000000+i))
	}
	tail := int64(200 << 10)
	id := uint64(0x53000000)
	for n < size-tail {
		line = line[:0]
		for range 64 {
			id += 1 + uint64(rng.IntN(4))
			line = appendHeapRecord(line, rng, id, traces)
		}
		put(line)
	}
	put([]byte("HEAP DUMP END\nSITES BEGIN (ordered by live bytes) Sat Mar 27 10:51:58 2021\n" +
		"          percent          live          alloc'ed  stack class\n" +
		" rank   self  accum     bytes objs     bytes  objs trace name\n"))
	for i := range 1000 {
		c := syntheticClasses[i%len(syntheticClasses)].name
		put(fmt.Appendf(line[:0], "%5d %5.2f%% %5.2f%% %9d %4d %9d %5d %5d %s\n", i+1, 0.1, 0.1*float64(i+1), 1000-i, 10, 2000-i, 20, 300000+i, c))
	}
	put([]byte("SITES END\nCPU SAMPLES BEGIN (total = 100000) Sat Mar 27 10:51:58 2021\nrank   self  accum   count trace method\n"))
	for i := range 1000 {
		c := syntheticClasses[i%len(syntheticClasses)].name
		put(fmt.Appendf(line[:0], "%4d %5.2f%% %5.2f%% %7d %5d %s.method%d\n", i+1, 0.1, 0.1*float64(i+1), 100, 300000+i, c, i%4))
	}
	put([]byte("CPU SAMPLES END\n"))
	return n, bw.Flush()
}

// appendHeapRecord appends an OBJ or ARR of a random synthetic class,
// with its field or element lines, as the JVMTI agent prints them.
func appendHeapRecord(line []byte, rng *rand.Rand, id uint64, traces int) []byte {
	ci := rng.IntN(len(syntheticClasses))
	c := syntheticClasses[ci]
	elems := 0
	switch c.kind {
	case 'o':
		line = append(line, "OBJ "...)
	case 'a':
		elems = rng.IntN(24)
		line = append(line, "ARR "...)
	default:
		elems = rng.IntN(200)
		line = append(line, "ARR "...)
	}
	line = strconv.AppendUint(line, id, 16)
	line = append(line, " (sz="...)
	line = strconv.AppendUint(line, uint64(16+8*len(c.fields)+4*elems), 10)
	line = append(line, ", trace="...)
	line = strconv.AppendUint(line, uint64(300000+rng.IntN(traces)), 10)
	if c.kind == 'o' {
		line = append(line, ", class="...)
	} else {
		line = append(line, ", nelems="...)
		line = strconv.AppendUint(line, uint64(elems), 10)
		line = append(line, ", elem type="...)
	}
	line = append(line, c.name...)
	if c.kind != 'p' {
		line = append(line, '@')
		line = strconv.AppendUint(line, uint64(0x50000010+ci), 16)
	}
	line = append(line, ")\n"...)
	target := func() uint64 { return id + uint64(rng.IntN(1<<20)) }
	for _, f := range c.fields {
		if rng.IntN(5) == 0 {
			continue
		}
		line = append(append(line, '\t'), f...)
		if len(f) < 8 {
			line = append(line, '\t')
		}
		line = append(strconv.AppendUint(append(line, '\t'), target(), 16), '\n')
	}
	if c.kind != 'a' {
		return line
	}
	for e := range elems {
		if rng.IntN(3) == 0 {
			continue
		}
		line = strconv.AppendUint(append(line, "\t["...), uint64(e), 10)
		line = append(strconv.AppendUint(append(line, "]\t\t"...), target(), 16), '\n')
	}
	return line
}

// benchFile returns the synthetic benchmark file, written once and kept
// in benchdata.Dir().
func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	dir := benchdata.Dir()
	path := filepath.Join(dir, fmt.Sprintf("ascii-%dm.txt", benchSize>>20))
	if st, err := os.Stat(path); err == nil {
		return path, st.Size()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "partial-*.txt")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
	size, err := writeSynthetic(f, benchSize)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		b.Fatal(err)
	}
	return path, size
}

// TestSyntheticFile checks that the benchmark's file is read without a
// warning and holds what was written.
func TestSyntheticFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synthetic.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeSynthetic(f, 12<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data := readFile(t, path)
	s := scan(t, data, hprofascii.Options{})
	if s.err != nil || s.count != 0 {
		t.Fatalf("error %v, warnings %v", s.err, s.warnings)
	}
	counts := map[hprofascii.Kind]int{}
	for _, k := range s.kinds {
		counts[k]++
	}
	if counts[hprofascii.KindTrace] != 20000 || counts[hprofascii.KindSite] != 1000 || counts[hprofascii.KindCPURow] != 1000 ||
		counts[hprofascii.KindMonitorDumpMonitor] != 1 || counts[hprofascii.KindHeapDumpEnd] != 1 || counts[hprofascii.KindObject] < 10000 {
		t.Errorf("records by kind: %v", counts)
	}
}

// BenchmarkReader reads a 512 MiB synthetic file, most of it a heap
// dump, touching every reference a model builder would use.
func BenchmarkReader(b *testing.B) {
	path, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := hprofascii.NewReader(f, hprofascii.Options{Name: path})
		if err != nil {
			b.Fatal(err)
		}
		var records, refs int
		var sum uint64
		for r.Next() {
			records++
			rec := r.Record()
			switch rec.Kind {
			case hprofascii.KindObject, hprofascii.KindObjectFields:
				for _, f := range rec.Object.Fields {
					sum += f.ID
				}
				refs += len(rec.Object.Fields)
			case hprofascii.KindArray, hprofascii.KindArrayElements:
				for _, e := range rec.Array.Elements {
					sum += e.ID
				}
				refs += len(rec.Array.Elements)
			}
		}
		if r.Err() != nil || r.WarningCount() != 0 {
			b.Fatal(r.Err(), r.Warnings())
		}
		f.Close()
		b.ReportMetric(float64(records), "records")
		b.ReportMetric(float64(refs), "refs")
		_ = sum
	}
}
