package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model"
)

type siteJSON struct {
	Rank          int    `json:"rank"`
	Class         string `json:"class"`
	LiveBytes     int64  `json:"live_bytes"`
	LiveInstances int64  `json:"live_instances"`
	Trace         uint32 `json:"trace"`
	Source        string `json:"source"`
	Frames        []struct {
		Method string `json:"method"`
		File   string `json:"file"`
		Line   int    `json:"line"`
	} `json:"frames"`
}

// sectionRows returns the whitespace-split rows of the section of file
// that starts with a line beginning with begin and ends with one
// beginning with end, skipping the first skip lines of it.
func sectionRows(t *testing.T, path, begin, end string, skip int) (head string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, begin):
			in, head, rows = true, line, nil
			skip0 := skip
			for skip0 > 0 && sc.Scan() {
				skip0--
			}
		case in && strings.HasPrefix(line, end):
			in = false
		case in:
			rows = append(rows, strings.Fields(line))
		}
	}
	return head, rows
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSitesASCIICorpus(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "kevinlights_jvm-learn", "java.hprof.txt")
	_, rows := sectionRows(t, path, "SITES BEGIN", "SITES END", 2)
	var sites []siteJSON
	runJSON(t, &sites, "sites", path)
	if len(sites) != len(rows) {
		t.Fatalf("%d sites, the file lists %d", len(sites), len(rows))
	}
	top := rows[0] // rank self accum live-bytes objs alloc-bytes objs trace class
	if sites[0].Class != top[8] || sites[0].Trace != uint32(atoi(t, top[7])) || sites[0].LiveBytes != atoi(t, top[3]) || sites[0].LiveInstances != atoi(t, top[4]) {
		t.Errorf("top site %+v, the file's is %v", sites[0], top)
	}
	if sites[0].Source != "sites-record" || len(sites[0].Frames) == 0 {
		t.Errorf("top site: source %q, %d frames", sites[0].Source, len(sites[0].Frames))
	}
	var cut []siteJSON
	runJSON(t, &cut, "sites", "--depth", "1", "--top", "1", path)
	if len(cut) != 1 || len(cut[0].Frames) != 1 {
		t.Errorf("--depth 1 --top 1: %+v", cut)
	}
	var byClass []siteJSON
	runJSON(t, &byClass, "sites", "--by", "class", path)
	classes := map[string]bool{}
	for _, r := range rows {
		classes[r[8]] = true
	}
	if len(byClass) != len(classes) {
		t.Errorf("--by class: %d rows, the file has %d classes", len(byClass), len(classes))
	}
}

// allocSitesOf decodes the ALLOC_SITES record of a plain binary HPROF file
// with 4-byte ids by hand, from the record layout (tag 0x06: flags u2,
// cutoff u4, live bytes and instances u4 each, allocated bytes and
// instances u8 each, site count u4, then per site: array type u1, class
// serial, trace serial, live bytes, live instances, allocated bytes,
// allocated instances, u4 each), naming classes through LOAD_CLASS and
// UTF8 records; independent of hprofctl's reader.
func allocSitesOf(t *testing.T, path string) []siteJSON {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian
	p := bytes.IndexByte(data, 0) + 1
	if be.Uint32(data[p:]) != 4 {
		t.Fatalf("%s: id size %d, want 4", path, be.Uint32(data[p:]))
	}
	p += 12
	names := map[uint32]string{}
	classes := map[uint32]string{}
	var sites []siteJSON
	for p+9 <= len(data) {
		tag, body := data[p], data[p+9:p+9+int(be.Uint32(data[p+5:]))]
		p += 9 + len(body)
		switch tag {
		case 0x01:
			names[be.Uint32(body)] = string(body[4:])
		case 0x02:
			classes[be.Uint32(body)] = model.JavaClassName(names[be.Uint32(body[12:])])
		case 0x06:
			n := int(be.Uint32(body[30:]))
			for k := 0; k < n; k++ {
				e := body[34+25*k:]
				sites = append(sites, siteJSON{Class: classes[be.Uint32(e[1:])], Trace: be.Uint32(e[5:]),
					LiveBytes: int64(be.Uint32(e[9:])), LiveInstances: int64(be.Uint32(e[13:]))})
			}
		}
	}
	return sites
}

// TestSitesBinaryCorpus compares the sites of a real agent file with its
// ALLOC_SITES record decoded by hand: every site, ranked by live bytes.
func TestSitesBinaryCorpus(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "agourlay_hprof-slurp", "hprof-32.bin")
	want := allocSitesOf(t, path)
	var got []siteJSON
	runJSON(t, &got, "sites", "--top", "0", path)
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d sites, the ALLOC_SITES record has %d", len(got), len(want))
	}
	key := func(s siteJSON) string {
		return fmt.Sprintf("%s trace %d: %d bytes, %d live", s.Class, s.Trace, s.LiveBytes, s.LiveInstances)
	}
	count := map[string]int{}
	for _, s := range want {
		count[key(s)]++
	}
	for i, s := range got {
		if s.Source != "sites-record" {
			t.Errorf("site %d: source %q", i, s.Source)
		}
		if i > 0 && s.LiveBytes > got[i-1].LiveBytes {
			t.Errorf("site %d (%d live bytes) ranked below one with %d", i, s.LiveBytes, got[i-1].LiveBytes)
		}
		count[key(s)]--
	}
	for k, n := range count {
		if n != 0 {
			t.Errorf("%s: %+d in the record than in sites", k, n)
		}
	}
}

func TestSitesWithoutAllocationTraces(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "eclipse-mat_mat", "sun_jdk6_18_x32.hprof.gz")
	var sites []siteJSON
	runJSON(t, &sites, "sites", "--top", "5", path)
	if len(sites) == 0 || sites[0].Source != "stack-roots" {
		t.Fatalf("sites of a HotSpot dump: %+v", sites)
	}
}

type cpuJSON struct {
	Rank        int     `json:"rank"`
	SelfPercent float64 `json:"self_percent"`
	Count       int64   `json:"count"`
	Trace       uint32  `json:"trace"`
	Frames      []struct {
		Method string `json:"method"`
	} `json:"frames"`
}

// method is the innermost frame's method, "" for an empty trace.
func (c cpuJSON) method() string {
	if len(c.Frames) == 0 {
		return ""
	}
	return c.Frames[0].Method
}

func TestCPUCorpus(t *testing.T) {
	dir := sharedCorpus(t)
	for _, c := range []struct{ file, begin, end string }{
		{"WardCunningham_SimNet/java.hprof.txt", "CPU SAMPLES BEGIN", "CPU SAMPLES END"},
		{"AngiWANG_Java-program-performance-optimize/java.hprof.txt", "CPU TIME (ms) BEGIN", "CPU TIME (ms) END"},
	} {
		path := filepath.Join(dir, c.file)
		head, rows := sectionRows(t, path, c.begin, c.end, 1)
		var got []cpuJSON
		runJSON(t, &got, "cpu", path)
		if len(got) != len(rows) {
			t.Fatalf("%s: %d traces, the file lists %d", c.file, len(got), len(rows))
		}
		// rank self accum count trace method
		if got[0].Trace != uint32(atoi(t, rows[0][4])) || got[0].Count != atoi(t, rows[0][3]) {
			t.Errorf("%s: top trace %+v, the file's is %v", c.file, got[0], rows[0])
		}
		if c.begin == "CPU SAMPLES BEGIN" {
			var sum int64
			for _, r := range rows {
				sum += atoi(t, r[3])
			}
			total := head[strings.Index(head, "total = ")+len("total = "):]
			total = total[:strings.Index(total, ")")]
			if sum != atoi(t, total) {
				t.Errorf("%s: rows sum to %d, header total %s", c.file, sum, total)
			}
			var n int64
			for _, g := range got {
				n += g.Count
			}
			if n != sum {
				t.Errorf("%s: our counts sum to %d, the file's to %d", c.file, n, sum)
			}
		}
	}
}

func TestCPUPprof(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "WardCunningham_SimNet", "java.hprof.txt")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not available")
	}
	out, err := runCLI(t, "cpu", "-o", "pprof", path)
	if err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(pb, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	top, err := exec.Command(goTool, "tool", "pprof", "-top", pb).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	head, _ := sectionRows(t, path, "CPU SAMPLES BEGIN", "CPU SAMPLES END", 1)
	total := head[strings.Index(head, "total = ")+len("total = "):]
	total = total[:strings.Index(total, ")")]
	if !strings.Contains(string(top), "of "+total+" total") {
		t.Errorf("pprof -top does not show the file's total %s:\n%s", total, top)
	}
	if _, err := runCLI(t, "histo", "-o", "pprof", path); err == nil {
		t.Error("-o pprof accepted by histo")
	}
}

type threadJSON struct {
	Name   string `json:"name"`
	Serial uint32 `json:"serial"`
	State  string `json:"state"`
	Frames []any  `json:"frames"`
}

func TestThreadsCorpus(t *testing.T) {
	dir := sharedCorpus(t)
	path := filepath.Join(dir, "WardCunningham_SimNet", "java.hprof.txt")
	starts, ends := 0, 0
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		switch {
		case strings.HasPrefix(sc.Text(), "THREAD START (obj="):
			starts++
		case strings.HasPrefix(sc.Text(), "THREAD END (id = "):
			ends++
		}
	}
	f.Close()
	var threads []threadJSON
	runJSON(t, &threads, "threads", path)
	terminated := 0
	for _, th := range threads {
		if th.State == "TERMINATED" {
			terminated++
		}
	}
	if len(threads) != starts || terminated != ends {
		t.Errorf("%d threads, %d terminated; the file starts %d and ends %d", len(threads), terminated, starts, ends)
	}
	var hs []threadJSON
	runJSON(t, &hs, "threads", filepath.Join(dir, "eclipse-mat_mat", "sun_jdk6_18_x32.hprof.gz"))
	withStack := 0
	for _, th := range hs {
		if len(th.Frames) > 0 {
			withStack++
		}
	}
	if len(hs) == 0 || withStack == 0 {
		t.Errorf("HotSpot dump: %d threads, %d with a stack", len(hs), withStack)
	}
}

func TestMonitorsWithoutSections(t *testing.T) {
	path := filepath.Join(sharedCorpus(t), "WardCunningham_SimNet", "java.hprof.txt")
	if _, err := runCLI(t, "monitors", path); err == nil || !strings.Contains(err.Error(), "MONITOR") {
		t.Errorf("monitors on a file without monitor sections: %v", err)
	}
}
