package html

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
)

// hostile is markup a dump can hold in any string.
const hostile = `<img src=x onerror="alert(1)"><script>alert(2)</script>'&`

// hostileReport is a report with hostile in every string that comes from
// a dump, and every section filled: suspects with a path, a chart, tables,
// threads with frames and locals, a deadlock, waits behind it, a possible
// deadlock, and anomalies.
func hostileReport() Report {
	retained := int64(4096)
	lock := threads.LockRef{Kind: "synchronizer", Class: hostile, ID: "0x10", Name: hostile}
	blocked := threads.BlockedThread{Name: hostile, WaitingFor: lock, HeldBy: hostile, State: hostile}
	return Report{
		Generator: "hprofctl test",
		Info: heap.Info{File: hostile, Format: "hprof", Version: hostile, Producer: hostile, Layout: hostile,
			GCRoots: map[string]int64{hostile: 1}, Anomalies: []model.Anomaly{{Kind: hostile, Count: 1, Offset: 7, Detail: hostile}}},
		Leaks: heap.LeakReport{TotalBytes: 10000, Threshold: 0.1, Suspects: []heap.LeakSuspect{{
			Class: hostile, ObjectID: "0x1", RetainedBytes: 5000, Percent: 50,
			AccumulationPoint: &heap.AccumulationPoint{ObjectID: "0x2", Class: hostile, RetainedBytes: 4000, Percent: 40},
			BiggestClasses:    []heap.LeakClass{{Class: hostile, Objects: 2, RetainedBytes: 3000, Percent: 30}},
			Path:              []heap.PathStep{{ObjectID: "0x1", Class: hostile}, {ObjectID: "0x2", Class: hostile, Via: hostile}},
			RootKind:          hostile, RootThread: hostile, RootFrame: hostile,
		}, {Class: hostile, Instances: 3, RetainedBytes: 2000, Percent: 20}}},
		PathRetained: [][]int64{{5000, 4000}, nil},
		Dominators: heap.DominatorReport{ReachableBytes: 10000, ReachableObjects: 9,
			Rows: []heap.DominatorRow{{ObjectID: "0x1", Class: hostile, RetainedBytes: 5000}, {ObjectID: "0x3", Class: hostile, RetainedBytes: 100}}},
		Consumers: []heap.TopConsumerReport{{By: heap.ByClass, Groups: 2, TotalBytes: 10000, Rows: []heap.TopConsumerRow{{Name: hostile, Objects: 1, RetainedBytes: 5000, Percent: 50}}}},
		Histogram: heap.Histo{MatchedClasses: 1, Rows: []heap.HistoRow{{Class: hostile, Instances: 1, ShallowBytes: 16}}},
		Threads: []threads.ThreadRow{{Name: hostile, State: hostile, RetainedBytes: &retained, Frames: []threads.StackFrame{{
			Method: hostile, File: hostile, Line: 3, Locals: []threads.FrameLocal{{ObjectID: "0x4", Class: hostile, RetainedBytes: 64}},
		}}}},
		Deadlocks: &threads.DeadlockReport{Source: hostile, Threads: 3,
			Deadlocks: []threads.Deadlock{{Threads: []threads.DeadlockThread{
				{Name: hostile, State: hostile, WaitingFor: lock, HeldBy: hostile, Frames: []string{hostile}},
				{Name: hostile, State: hostile, WaitingFor: lock, HeldBy: hostile, Frames: []string{hostile}},
			}}},
			BlockedBehind:     []threads.BlockedThread{blocked},
			OwnerUnknown:      []threads.BlockedThread{blocked},
			PossibleDeadlocks: []threads.PossibleDeadlock{{Blocked: threads.BlockedOwner{Name: hostile, State: hostile, Frame: hostile, Holds: []threads.LockRef{lock}}, Waiting: []threads.BlockedThread{blocked}}},
		},
		DeadlockNotes: []string{hostile},
	}
}

func write(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReportEscapesDumpStrings checks that no string from a dump reaches
// the page as markup: every place that shows one shows it escaped whole
// (a lock's name quoted first), so once those are taken out nothing of
// them is left, and the page holds no img or script element.
func TestReportEscapesDumpStrings(t *testing.T) {
	page := write(t, hostileReport())
	for _, raw := range []string{"<img", "<script"} {
		if strings.Contains(page, raw) {
			t.Errorf("the page holds %q: markup from the dump was not escaped", raw)
		}
	}
	for _, s := range []string{hostile, strconv.Quote(hostile)} {
		escaped := template.HTMLEscapeString(s)
		if !strings.Contains(page, escaped) {
			t.Errorf("the page does not show %q escaped", s)
		}
		page = strings.ReplaceAll(page, escaped, "")
	}
	if k := strings.Index(page, "alert("); k >= 0 {
		t.Errorf("a dump string is in the page, not escaped whole: %q", page[max(0, k-200):min(len(page), k+100)])
	}
}

// TestReportPolicy checks the page's Content-Security-Policy: nothing but
// its one inline style sheet, named by the hash of what the page holds
// between <style> and </style>, and no reference to anything outside it.
func TestReportPolicy(t *testing.T) {
	page := write(t, hostileReport())
	m := regexp.MustCompile(`(?s)<meta http-equiv="Content-Security-Policy" content="([^"]*)">.*<style>(.*)</style>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no policy before a style sheet in:\n%.1000s", page)
	}
	sum := sha256.Sum256([]byte(m[2]))
	want := "default-src &#39;none&#39;; style-src &#39;sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "&#39;; base-uri &#39;none&#39;; form-action &#39;none&#39;"
	if m[1] != strings.ReplaceAll(want, "+", "&#43;") {
		t.Errorf("policy %q, want %q", m[1], want)
	}
	if n := strings.Count(page, "<style"); n != 1 {
		t.Errorf("%d style elements, want the one the policy names", n)
	}
	for _, ref := range regexp.MustCompile(`<[^>]*\s(src|href|action|srcset|data|poster|xlink:href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if ref[1] != "href" || !strings.HasPrefix(ref[2], "#") {
			t.Errorf("%s=%q: the page must reference nothing outside itself", ref[1], ref[2])
		}
	}
	if strings.Contains(m[2], "url(") || strings.Contains(m[2], "@import") {
		t.Error("the style sheet loads something")
	}
}

// TestReportEmpty checks the page of a dump with nothing in it: every
// section says so instead of showing an empty table.
func TestReportEmpty(t *testing.T) {
	page := write(t, Report{Generator: "hprofctl test"})
	for _, want := range []string{
		"No anomaly found", "No leak suspect", "The dominator tree is empty", "The dump holds no object",
		"The dump records no thread", "The file holds no lock state",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty report does not say %q", want)
		}
	}
}

// TestReportChartGeometry checks the bars of the chart: the biggest object
// spans barSpace, the others in proportion, each row below the last.
func TestReportChartGeometry(t *testing.T) {
	c := newChart(heap.DominatorReport{ReachableBytes: 2000, Rows: []heap.DominatorRow{{RetainedBytes: 1000}, {RetainedBytes: 250}, {RetainedBytes: 0}}})
	if c.Width != chartWidth || c.Height != 3*rowHeight+4 || len(c.Bars) != 3 {
		t.Fatalf("chart %dx%d with %d bars, want %dx%d with 3", c.Width, c.Height, len(c.Bars), chartWidth, 3*rowHeight+4)
	}
	for k, want := range []struct {
		len     string
		percent float64
	}{{"620.0", 50}, {"155.0", 12.5}, {"0.0", 0}} {
		b := c.Bars[k]
		if b.Len != want.len || b.Percent != want.percent || b.Y != k*rowHeight+14 {
			t.Errorf("bar %d: length %s, %.1f%%, at %d; want %s, %.1f%%, at %d", k, b.Len, b.Percent, b.Y, want.len, want.percent, k*rowHeight+14)
		}
	}
}
