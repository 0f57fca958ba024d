package hprofascii_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// corpusFile is what a real java.hprof.txt holds. Every figure was read
// off the file with grep and awk, e.g. traces: grep -c '^TRACE [0-9]*:',
// frames: the TAB lines after the -------- line less the <empty> ones,
// row sums: awk over the rows between BEGIN and END.
type corpusFile struct {
	dir        string
	header     hprofascii.Header
	created    string
	starts     int
	ends       []uint32
	traces     int
	frames     int
	empty      int // traces printed as <empty>
	lineKinds  map[int32]int
	maxDepth   int
	trace      uint32 // a trace and its frames
	frameText  []string
	sections   []string // describe of each section's Begin record
	rows       int
	rowSums    [4]uint64 // SITES: live bytes and objects, alloc'ed bytes and objects; CPU: count
	firstRow   string
	lastRow    string
	sectionEnd hprofascii.Kind
}

var corpusFiles = []corpusFile{{
	dir:       "WardCunningham_SimNet",
	header:    hprofascii.Header{Version: "1.0.1", Generation: hprofascii.GenerationJVMPI, BodyLine: 64},
	created:   "2001-11-28 00:09:52",
	starts:    7,
	ends:      []uint32{3, 5},
	traces:    125,
	frames:    486,
	empty:     1,
	lineKinds: map[int32]int{thread.LineNative: 16, thread.LineUnknown: 5, thread.LineCompiled: 0},
	maxDepth:  4,
	trace:     108,
	frameText: []string{"java.lang.String|valueOf|String.java|2040", "java.io.PrintStream|print|PrintStream.java|326",
		"Scatter|plot|Scatter.java|52", "SimNet|report|SimNet.java|692"},
	sections:   []string{"CPU BEGIN #0 times=false total=259 2001-11-28 00:10:04"},
	rows:       119,
	rowSums:    [4]uint64{259},
	firstRow:   "CPU row #0 1 20.46 20.46 53 33 java.io.FileOutputStream|writeBytes",
	lastRow:    "CPU row #0 119 0.39 100.00 1 80 SimNet$Node|schedule",
	sectionEnd: hprofascii.KindCPUEnd,
}, {
	dir:       "kevinlights_jvm-learn",
	header:    hprofascii.Header{Version: "1.0.1", Generation: hprofascii.GenerationJVMTI, BodyLine: 91},
	created:   "2021-03-27 10:51:47",
	starts:    4,
	ends:      []uint32{200001, 200005},
	traces:    2104,
	frames:    8309,
	empty:     1,
	lineKinds: map[int32]int{thread.LineUnknown: 94, thread.LineNative: 0, thread.LineCompiled: 0},
	maxDepth:  4,
	trace:     300116,
	frameText: []string{"sun.reflect.MagicAccessorImpl|<init>|MagicAccessorImpl.java|46",
		"sun.reflect.ConstructorAccessorImpl|<init>|ConstructorAccessorImpl.java|34",
		"sun.reflect.DelegatingConstructorAccessorImpl|<init>|DelegatingConstructorAccessorImpl.java|36",
		"sun.reflect.ReflectionFactory|newConstructorAccessor|ReflectionFactory.java|208"},
	sections:   []string{`SITES BEGIN #0 by="live bytes" 2021-03-27 10:51:58`},
	rows:       985,
	rowSums:    [4]uint64{1223016, 8377, 1223016, 8377},
	firstRow:   "SITES row #0 1 7.74 7.74 99016 387 99016 387 300938 byte[]",
	lastRow:    "SITES row #0 985 0.01 95.57 128 8 128 8 300116 sun.reflect.DelegatingConstructorAccessorImpl",
	sectionEnd: hprofascii.KindSitesEnd,
}, {
	dir:       "AngiWANG_Java-program-performance-optimize",
	header:    hprofascii.Header{Version: "1.0.1", Generation: hprofascii.GenerationJVMTI, BodyLine: 65},
	created:   "2015-07-22 22:50:47",
	starts:    3,
	ends:      []uint32{200001, 200003},
	traces:    3,
	frames:    8,
	lineKinds: map[int32]int{thread.LineUnknown: 8},
	maxDepth:  4,
	trace:     301009,
	frameText: []string{"javatuning.ch6.toolscheck.HProfTest|slowerMethod|HProfTest.java|-1",
		"javatuning.ch6.toolscheck.HProfTest|main|HProfTest.java|-1"},
	sections:   []string{"CPU BEGIN #0 times=true total=11033 2015-07-22 22:50:58"},
	rows:       3,
	rowSums:    [4]uint64{4},
	firstRow:   "CPU row #0 1 90.65 90.65 1 301009 javatuning.ch6.toolscheck.HProfTest|slowerMethod",
	lastRow:    "CPU row #0 3 0.02 99.73 2 300793 java.io.FilePermission$1|run",
	sectionEnd: hprofascii.KindCPUEnd,
}}

func TestCorpus(t *testing.T) {
	for _, want := range corpusFiles {
		t.Run(want.dir, func(t *testing.T) {
			path := testshared.Path(t, "corpus", want.dir, "java.hprof.txt")
			data := readFile(t, path)
			r, err := hprofascii.NewReader(bytes.NewReader(data), hprofascii.Options{Name: path})
			if err != nil {
				t.Fatal(err)
			}
			header := want.header
			header.Created, _ = time.Parse(time.DateTime, want.created)
			if r.Header() != header {
				t.Errorf("header %+v, want %+v", r.Header(), header)
			}
			got := corpusFile{lineKinds: map[int32]int{}}
			var rows []string
			for r.Next() {
				rec := r.Record()
				switch rec.Kind {
				case hprofascii.KindThreadStart:
					got.starts++
				case hprofascii.KindThreadEnd:
					got.ends = append(got.ends, rec.ThreadEnd)
				case hprofascii.KindTrace:
					got.traces++
					got.frames += len(rec.Trace.Frames)
					got.maxDepth = max(got.maxDepth, len(rec.Trace.Frames))
					if len(rec.Trace.Frames) == 0 {
						got.empty++
					}
					for _, f := range rec.Trace.Frames {
						if f.Line < 0 {
							got.lineKinds[f.Line]++
						}
						if bytes.ContainsAny(f.Class, "\r\t ") || bytes.ContainsAny(f.Source, "\r\t ") {
							t.Errorf("TRACE %d: frame %q %q keeps line-end or blank bytes", rec.Trace.Serial, f.Class, f.Source)
						}
					}
					if rec.Trace.Serial == want.trace {
						for _, f := range rec.Trace.Frames {
							got.frameText = append(got.frameText, fmt.Sprintf("%s|%s|%s|%d", f.Class, f.Method, f.Source, f.Line))
						}
					}
				case hprofascii.KindSitesBegin, hprofascii.KindCPUBegin:
					got.sections = append(got.sections, describe(rec))
				case hprofascii.KindSite:
					s := rec.Site
					got.rows++
					got.rowSums[0] += uint64(s.LiveBytes)
					got.rowSums[1] += uint64(s.LiveObjects)
					got.rowSums[2] += uint64(s.AllocBytes)
					got.rowSums[3] += uint64(s.AllocObjects)
					rows = append(rows, describe(rec))
				case hprofascii.KindCPURow:
					got.rows++
					got.rowSums[0] += uint64(rec.CPURow.Count)
					rows = append(rows, describe(rec))
				case hprofascii.KindSitesEnd, hprofascii.KindCPUEnd:
					got.sectionEnd = rec.Kind
				default:
					t.Errorf("unexpected %s record at line %d", rec.Kind, rec.Line)
				}
			}
			if err := r.Err(); err != nil || r.WarningCount() != 0 {
				t.Fatalf("error %v, warnings %v", err, r.Warnings())
			}
			if len(rows) > 0 {
				got.firstRow, got.lastRow = rows[0], rows[len(rows)-1]
			}
			for k, n := range want.lineKinds {
				if got.lineKinds[k] != n {
					t.Errorf("%d frames with line %d, want %d", got.lineKinds[k], k, n)
				}
			}
			checks := []struct {
				what      string
				got, want any
			}{
				{"THREAD START lines", got.starts, want.starts},
				{"THREAD END serials", got.ends, want.ends},
				{"traces", got.traces, want.traces},
				{"frames", got.frames, want.frames},
				{"<empty> traces", got.empty, want.empty},
				{"deepest trace", got.maxDepth, want.maxDepth},
				{fmt.Sprintf("frames of TRACE %d", want.trace), got.frameText, want.frameText},
				{"sections", got.sections, want.sections},
				{"rows", got.rows, want.rows},
				{"row sums", got.rowSums, want.rowSums},
				{"first row", got.firstRow, want.firstRow},
				{"last row", got.lastRow, want.lastRow},
				{"section end", got.sectionEnd, want.sectionEnd},
			}
			for _, c := range checks {
				if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

// TestCorpusLineEnds reads each real file with its line ends swapped
// (CRLF to LF and LF to CRLF): the records must not change.
func TestCorpusLineEnds(t *testing.T) {
	for _, want := range corpusFiles {
		t.Run(want.dir, func(t *testing.T) {
			data := readFile(t, testshared.Path(t, "corpus", want.dir, "java.hprof.txt"))
			swapped := crlf(data)
			if bytes.Contains(data, []byte("\r\n")) {
				swapped = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
			}
			a, b := scan(t, data, hprofascii.Options{}), scan(t, swapped, hprofascii.Options{})
			if a.err != nil || b.err != nil || len(a.records) == 0 {
				t.Fatalf("errors %v, %v; %d records", a.err, b.err, len(a.records))
			}
			checkRecords(t, b.records, a.records)
		})
	}
}
