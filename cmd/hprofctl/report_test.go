package main

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/browsertest"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// loadReport runs hprofctl report with args, writes the page to a file
// and opens it in the headless browser from its file:// URL, after
// checking that it stands alone: it requests nothing but itself, holds
// no script, reports no problem (a blocked resource, a policy
// violation), and its inline style sheet applies under its
// Content-Security-Policy.
func loadReport(t *testing.T, args ...string) *browsertest.Page {
	t.Helper()
	out, err := runCLI(t, append([]string{"report"}, args...)...)
	if err != nil {
		t.Fatalf("hprofctl report %s: %v", strings.Join(args, " "), err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: path}).String()
	p := browsertest.Load(t, u)
	if got := p.Requests(); len(got) != 1 || got[0] != u {
		t.Errorf("the page requested %q, want only itself, %s", got, u)
	}
	var policy string
	var scripts, external int
	var styled bool
	p.Eval(`document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`, &policy)
	p.Eval(`document.scripts.length`, &scripts)
	p.Eval(`document.querySelectorAll('[src], link, iframe, object, embed, img, base').length`, &external)
	p.Eval(`getComputedStyle(document.querySelector('h2')).borderBottomStyle === 'solid'`, &styled)
	if !strings.HasPrefix(policy, "default-src 'none'; style-src 'sha256-") || strings.Contains(policy, "script-src") {
		t.Errorf("Content-Security-Policy %q: want default-src 'none', only the style sheet by hash", policy)
	}
	if scripts != 0 || external != 0 {
		t.Errorf("%d scripts and %d elements that load something: want none", scripts, external)
	}
	if !styled {
		t.Error("the inline style sheet does not apply: its hash in the policy is wrong")
	}
	if problems := p.Problems(); len(problems) > 0 {
		t.Errorf("the page reported problems: %q", problems)
	}
	return p
}

// tableRows returns the visible text of each cell of the rows the CSS
// selector picks.
func tableRows(p *browsertest.Page, selector string) [][]string {
	var rows [][]string
	p.Eval(`Array.from(document.querySelectorAll(`+jsString(selector)+`), r => Array.from(r.cells, c => c.innerText.trim()))`, &rows)
	return rows
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TestReportBrowserLeakFixture opens the report of the leak fixture in
// Chromium and checks what a person sees, against the fixture program
// (testdata/jvm/EXPECTED.md) and the JVM's own outputs:
//   - the path to the suspect's accumulation point runs from the class
//     fixture.Registry through its static field MAP to the HashMap, which
//     retains 113,888 bytes, then through table to its Node[256], which
//     retains 113,840 (less the HashMap's 48), as TestLeaksRegistryMap
//     knows them;
//   - the histogram counts the 100 fixture.Payload of 24 bytes;
//   - the thread fixture-holder is in the state Thread.print gave with the
//     dump, parked in Unsafe.park, and its frame StackHolder.hold holds the
//     fixture.StackOnly of 16 bytes that nothing else keeps alive; a click
//     on its name opens its stack, no script needed;
//   - the overview, the chart and the deadlock verdict are there.
func TestReportBrowserLeakFixture(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	p := loadReport(t, "--top", "40", dump)

	path := tableRows(p, "#suspects table.path tbody tr")
	at := slices.IndexFunc(path, func(r []string) bool { return len(r) == 6 && r[1] == "→ static MAP" })
	switch {
	case at < 1 || at+1 >= len(path):
		t.Errorf("no step through the static field MAP inside a suspect's path: %q", path)
	case path[at-1][3] != "class fixture.Registry":
		t.Errorf("the step before static MAP is %q, want the class fixture.Registry", path[at-1])
	case path[at][3] != "java.util.HashMap" || !strings.Contains(path[at][4], "113,888 B"):
		t.Errorf("step through static MAP %q: want java.util.HashMap retaining 113,888 B", path[at])
	case path[at+1][1] != "→ table" || path[at+1][3] != "java.util.HashMap$Node[]" ||
		!strings.Contains(path[at+1][4], "113,840 B") || path[at+1][5] != "accumulation point":
		t.Errorf("step after the map %q: want its table, the accumulation point, retaining 113,840 B", path[at+1])
	}

	histo := tableRows(p, "#histogram tbody tr")
	if k := slices.IndexFunc(histo, func(r []string) bool { return len(r) == 5 && r[4] == "fixture.Payload" }); k < 0 {
		t.Errorf("no fixture.Payload row in the histogram: %q", histo)
	} else if histo[k][1] != "100" || !strings.Contains(histo[k][2], "2,400 B") {
		t.Errorf("histogram row %q: want 100 fixture.Payload of 24 bytes, 2,400 B", histo[k])
	}

	state := threadStates(t, fixturePath(t, "jdk17-default.info.txt"))["fixture-holder"]
	threads := tableRows(p, "#threads tbody tr")
	k := slices.IndexFunc(threads, func(r []string) bool { return len(r) == 6 && r[1] == "fixture-holder" })
	if k < 0 {
		t.Fatalf("no thread fixture-holder in %q", threads)
	}
	if r := threads[k]; r[2] != state || r[5] != "jdk.internal.misc.Unsafe.park(Native Method)" {
		t.Errorf("thread row %q: want state %s (Thread.print), parked in Unsafe.park", r, state)
	}
	var link string
	p.Eval(`Array.from(document.querySelectorAll('#threads tbody a')).find(a => a.innerText === 'fixture-holder').getAttribute('href')`, &link)
	p.Click(`#threads tbody a[href="` + link + `"]`)
	var stack string
	p.Eval(`(() => { const d = document.querySelector(`+jsString(link)+`).closest('details'); return d.open ? d.innerText : '' })()`, &stack)
	var frame string
	for _, line := range strings.Split(stack, "\n") {
		if strings.HasPrefix(line, "at fixture.StackHolder.hold(") {
			frame = line
		} else if frame != "" && strings.Contains(line, "fixture.StackOnly") {
			frame += "\n" + line
			break
		}
	}
	if !strings.Contains(frame, "fixture.StackOnly, retains 16 B") {
		t.Errorf("the stack opened by a click on fixture-holder does not show StackHolder.hold holding the StackOnly of 16 B:\n%s", stack)
	}

	sections := map[string]string{}
	p.Eval(`Object.fromEntries(Array.from(document.querySelectorAll('main > section'), s => [s.id, s.innerText]))`, &sections)
	for id, want := range map[string]string{
		"overview":  "format\thprof 1.0.2",
		"biggest":   "jdk.internal.loader.ClassLoaders$AppClassLoader",
		"consumers": "By package",
		"deadlocks": "no deadlock",
	} {
		if !strings.Contains(sections[id], want) {
			t.Errorf("section %s does not show %q:\n%.2000s", id, want, sections[id])
		}
	}
	var bars int
	p.Eval(`Array.from(document.querySelectorAll('svg.chart rect'), r => r.getBoundingClientRect().width).filter(w => w > 0).length`, &bars)
	if bars != reportDominators {
		t.Errorf("the chart shows %d bars, want %d", bars, reportDominators)
	}
}

// Markup a hostile dump holds: each would run a script if a page read it
// as markup.
const (
	hostileImage  = `<img src=x onerror="window.__pwned=1">`
	hostileScript = `<script>window.__pwned=1</script>`
)

// writeHostileDump writes a dump whose class, field, method and thread
// names and String values hold markup: a class Holder<img …> whose static
// field <script>… keeps an Evil<img …>, whose field <script>… holds 1 MB
// (so the Holder is a leak suspect, charted, with that path), and a thread
// named by a String holding both, whose one frame is a method <img …> of
// Evil<img …> in the file <script>….java.
func writeHostileDump(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := hproftest.New(f, hproftest.Options{})
	j := w.DeclareJDK()
	evil := w.DeclareClass(hproftest.ClassSpec{Name: "Evil" + hostileImage, Super: j.Object,
		Fields: []hproftest.Field{{Name: hostileScript, Type: hproftest.TypeObject}}})
	frame := w.StackFrame(hostileImage, "()V", hostileScript+".java", evil.Serial, 7)
	trace := w.StackTrace(1, frame)
	w.BeginHeapDump()
	for _, c := range j.Classes() {
		w.DumpClass(c)
	}
	w.DumpClass(evil)
	obj := w.Instance(evil, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, 1<<20))))
	w.DefineClass(hproftest.ClassSpec{Name: "Holder" + hostileImage, Super: j.Object,
		Statics: []hproftest.Static{{Name: hostileScript, Value: hproftest.Ref(obj)}}})
	name, _ := j.NewString(hostileScript + hostileImage)
	thread := w.Instance(j.Thread, hproftest.Ref(name), hproftest.Long(1), hproftest.Int(5), hproftest.Boolean(false), hproftest.Ref(0))
	w.Root(hproftest.Root{Kind: hproftest.RootThreadObj, ID: thread, ThreadSerial: 1, TraceSerial: trace})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReportBrowserHostile opens the report of a dump full of markup in
// Chromium: the markup shows as text where a person reads it (the
// suspect and its path, the chart, the histogram, the threads), and none
// of it runs.
func TestReportBrowserHostile(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "hostile.hprof")
	writeHostileDump(t, dump)
	p := loadReport(t, dump)
	var pwned string
	p.Eval(`typeof window.__pwned`, &pwned)
	if pwned != "undefined" {
		t.Errorf("window.__pwned is %s: markup from the dump ran", pwned)
	}
	sections := map[string]string{}
	p.Eval(`Object.fromEntries(Array.from(document.querySelectorAll('main > section'), s => [s.id, s.innerText]))`, &sections)
	holder, evil := "class Holder"+hostileImage, "Evil"+hostileImage
	for id, want := range map[string][]string{
		"suspects":  {holder, "→ static " + hostileScript, evil, "→ " + hostileScript + "\t"},
		"biggest":   {holder},
		"histogram": {evil},
		"threads":   {hostileScript + hostileImage, evil + "." + hostileImage + "(" + hostileScript + ".java:7)"},
	} {
		for _, s := range want {
			if !strings.Contains(sections[id], s) {
				t.Errorf("section %s does not show %q as text:\n%.2000s", id, s, sections[id])
			}
		}
	}
	var chart string
	p.Eval(`document.querySelector('svg.chart').textContent`, &chart)
	if !strings.Contains(chart, holder) {
		t.Errorf("the chart's labels do not show %q as text: %q", holder, chart)
	}
}

// TestReportIndexIdentity checks that the report is the same page, byte
// for byte, whether the dump is read from its index or by itself.
func TestReportIndexIdentity(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	direct, err := runCLI(t, "report", "--no-index", dump)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := runCLI(t, "report", "--index-dir", t.TempDir(), dump)
	if err != nil {
		t.Fatal(err)
	}
	if indexed != direct {
		t.Error("the report from the index differs from the one with --no-index")
	}
}

// TestReportArgs checks the arguments report refuses.
func TestReportArgs(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "json", dump}, "-o/--output does not apply"},
		{[]string{"--top", "0", dump}, "--top 0"},
		{[]string{"--threshold", "0", dump}, "--threshold"},
	} {
		if _, err := runCLI(t, append([]string{"report"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("report %q: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
}
