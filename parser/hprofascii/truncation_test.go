package hprofascii_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// layout is what a file read in full says about where its records lie,
// for judging what a prefix of it must yield.
type layout struct {
	full       scanned
	bodyStart  int    // prefix length from which NewReader succeeds
	headerEnds []int  // offset after the line end of each record's first line
	extentEnds []int  // offset after the line end of its last continuation line
	openAfter  []bool // openAfter[n]: a section is open after n whole lines
	lineEnds   []int  // offset after each line end
}

// sectionMarkers pairs the start of each BEGIN line with its END line.
var sectionMarkers = []struct{ begin, end string }{
	{"SITES BEGIN ", "SITES END"},
	{"CPU SAMPLES BEGIN ", "CPU SAMPLES END"},
	{"CPU TIME (ms) BEGIN ", "CPU TIME (ms) END"},
	{"MONITOR TIME BEGIN ", "MONITOR TIME END"},
	{"MONITOR DUMP BEGIN", "MONITOR DUMP END"},
	{"HEAP DUMP BEGIN ", "HEAP DUMP END"},
}

func newLayout(t *testing.T, data []byte) layout {
	t.Helper()
	l := layout{full: scan(t, data, hprofascii.Options{})}
	if l.full.err != nil || l.full.count != 0 {
		t.Fatalf("the whole file: error %v, warnings %v", l.full.err, l.full.warnings)
	}
	var lines [][]byte
	for off := 0; off < len(data); {
		n := bytes.IndexByte(data[off:], '\n')
		if n < 0 {
			t.Fatal("the whole file must end with a line end")
		}
		lines = append(lines, bytes.TrimRight(data[off:off+n], "\r"))
		off += n + 1
		l.lineEnds = append(l.lineEnds, off)
	}
	open := ""
	l.openAfter = []bool{false}
	for i, line := range lines {
		if string(line) == "--------" && l.bodyStart == 0 {
			l.bodyStart = l.lineEnds[i]
		}
		for _, m := range sectionMarkers {
			if bytes.HasPrefix(line, []byte(m.begin)) {
				open = m.end
			}
		}
		if string(line) == open {
			open = ""
		}
		l.openAfter = append(l.openAfter, open != "")
	}
	if l.full.header.OldProf {
		l.bodyStart = l.lineEnds[0]
	}
	for _, n := range l.full.lines {
		last := int(n)
		for last < len(lines) && len(lines[last]) > 0 && lines[last][0] == '\t' {
			last++
		}
		l.headerEnds = append(l.headerEnds, l.lineEnds[n-1])
		l.extentEnds = append(l.extentEnds, l.lineEnds[last-1])
	}
	return l
}

// checkPrefix reads data[:cut] and checks what it yields against l.
func (l layout) checkPrefix(t *testing.T, data []byte, cut int) {
	t.Helper()
	s := scan(t, data[:cut], hprofascii.Options{})
	if cut < l.bodyStart {
		if s.err == nil || !errors.Is(s.err, hprofascii.ErrTruncated) || len(s.records) != 0 {
			t.Fatalf("cut %d inside the header: error %v, %d records", cut, s.err, len(s.records))
		}
		return
	}
	k := 0
	for k < len(l.headerEnds) && l.headerEnds[k] <= cut {
		k++
	}
	if len(s.records) != k || s.count != 0 {
		t.Fatalf("cut %d: %d records, want %d; warnings %v", cut, len(s.records), k, s.warnings)
	}
	for i := range k {
		if s.kinds[i] != l.full.kinds[i] || s.lines[i] != l.full.lines[i] {
			t.Fatalf("cut %d: record %d is %s at line %d, want %s at line %d", cut, i, s.kinds[i], s.lines[i], l.full.kinds[i], l.full.lines[i])
		}
		if s.records[i] != l.full.records[i] && l.extentEnds[i] <= cut {
			t.Fatalf("cut %d: record %d\n got %s\nwant %s", cut, i, s.records[i], l.full.records[i])
		}
	}
	if k == 0 {
		// Nothing after the header is no file to show: an error, and
		// not a truncation, whose earlier records would be shown.
		if s.err == nil || errors.Is(s.err, hprofascii.ErrTruncated) || !strings.Contains(s.err.Error(), "no record") {
			t.Fatalf("cut %d before the first record: error %v, want one saying no record follows the header", cut, s.err)
		}
		return
	}
	whole := 0
	for whole < len(l.lineEnds) && l.lineEnds[whole] <= cut {
		whole++
	}
	partial := data[:cut]
	if whole > 0 {
		partial = data[l.lineEnds[whole-1]:cut]
	}
	clean := len(bytes.TrimRight(partial, "\r \t")) == 0 && !l.openAfter[whole]
	switch {
	case clean && s.err != nil:
		t.Fatalf("cut %d after %d whole lines: error %v", cut, whole, s.err)
	case !clean && !errors.Is(s.err, hprofascii.ErrTruncated):
		t.Fatalf("cut %d after %d whole lines: error %v, want a truncation", cut, whole, s.err)
	}
}

// TestTruncatedFixtures cuts each synthetic file, LF and CRLF, at every
// byte.
func TestTruncatedFixtures(t *testing.T) {
	for _, name := range []string{"jvmti.txt", "jvmpi.txt", "oldprof.txt"} {
		data := readFile(t, filepath.Join(fixtureDir, name))
		for _, in := range [][]byte{data, crlf(data)} {
			l := newLayout(t, in)
			for cut := range len(in) + 1 {
				l.checkPrefix(t, in, cut)
			}
		}
	}
}

// TestTruncatedCorpus cuts the real files at and just after line ends
// (every line of the small files, a sample of the large one).
func TestTruncatedCorpus(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		stride int
	}{{"WardCunningham_SimNet", 1}, {"AngiWANG_Java-program-performance-optimize", 1}, {"kevinlights_jvm-learn", 97}} {
		t.Run(tc.dir, func(t *testing.T) {
			data := readFile(t, testshared.Path(t, "corpus", tc.dir, "java.hprof.txt"))
			l := newLayout(t, data)
			for i := 0; i < len(l.lineEnds); i += tc.stride {
				l.checkPrefix(t, data, l.lineEnds[i])
				l.checkPrefix(t, data, l.lineEnds[i]-1)
			}
			l.checkPrefix(t, data, len(data)-1)
		})
	}
}
