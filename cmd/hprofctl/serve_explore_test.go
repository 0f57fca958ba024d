package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/internal/browsertest"
)

// The leak fixture's map fixture.Registry.MAP as testdata/jvm/EXPECTED.md
// computes it for jdk17-default: the HashMap (48 bytes) retains 113,888
// bytes, its Node[256] (1,040 bytes) everything but the HashMap, and each
// of its 100 entries a Node (32), its key String (24) with the key's
// byte[11] (32), and the Payload (24) with its byte[1000] (1,016).
const (
	mapRetained   = "113,888 B"
	tableRetained = "113,840 B"
	entryRetained = 32 + 24 + 32 + 24 + 1016
)

// treeRow is a row of the served dominator tree as a person reads it.
type treeRow struct {
	ID, Class, Retained, Toggle string
	Depth                       int
	More                        string
}

// treeRows reads the rows of the dominator tree on p.
func treeRows(p *browsertest.Page) []treeRow {
	var rows []treeRow
	p.Eval(`Array.from(document.querySelectorAll('#dominators table.tree tbody tr'), r => ({
		ID: r.querySelector('a.id') ? r.querySelector('a.id').innerText : '',
		Class: r.cells[5] ? r.cells[5].innerText.trim() : '',
		Retained: r.cells[1].innerText.trim(),
		Toggle: r.querySelector('a.toggle') ? r.querySelector('a.toggle').innerText : '',
		Depth: r.querySelectorAll('td.node i.in').length,
		More: r.querySelector('a.more') ? r.querySelector('a.more').innerText : '',
	}))`, &rows)
	return rows
}

// openRow opens (or closes) the row of object id in place by clicking its
// toggle, as a person would, and returns the page loaded.
func openRow(t *testing.T, p *browsertest.Page, base, id string) *browsertest.Page {
	t.Helper()
	var href string
	p.Eval(`document.querySelector('#n-'+CSS.escape(`+jsString(id)+`)+' a.toggle').getAttribute('href')`, &href)
	if !strings.Contains(href, "open=") || !strings.HasSuffix(href, "#n-"+id) {
		t.Fatalf("the toggle of %s links to %q: want the same page with it open, scrolled to it", id, href)
	}
	return loadServed(t, base+href)
}

// beneath returns the first row of class at depth beneath the row of
// object parent on p.
func beneath(t *testing.T, p *browsertest.Page, parent, class string, depth int) treeRow {
	t.Helper()
	rows := treeRows(p)
	k := slices.IndexFunc(rows, func(r treeRow) bool { return r.ID == parent })
	if k < 0 || rows[k].Toggle != "▾" {
		t.Fatalf("%s is not shown open: %+v", parent, rows)
	}
	for _, r := range rows[k+1:] {
		if r.Depth < depth {
			break
		}
		if r.Depth == depth && r.Class == class {
			return r
		}
	}
	t.Fatalf("no %s at depth %d beneath %s: %+v", class, depth, parent, rows[k:])
	return treeRow{}
}

// TestServeBrowserDominatorTree browses the dominator tree of the leak
// fixture as MAT's tree is browsed. The top of the tree goes on page after
// page (10 a page here), each page ranking on from the last. Opened in
// place, one object beneath the other, the application class loader's
// list of classes leads to the class fixture.Registry, beneath it its
// HashMap MAP retaining 113,888 bytes, beneath that its Node[256] (113,840
// bytes), and beneath the table the first Nodes of the 25 buckets that
// retain most (1,128 bytes an entry, a bucket's first Node retaining its
// chain) and a row saying how many more buckets there are, which leads to
// the table's own page of them from the 26th on. Where the entries fall
// is computed as Java's HashMap places their keys.
func TestServeBrowserDominatorTree(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)

	p := loadServed(t, ts.URL+"/dominators?top=10")
	first := treeRows(p)
	var next, pager string
	p.Eval(`document.querySelector('.pager').innerText`, &pager)
	p.Eval(`document.querySelector('.pager a.next').getAttribute('href')`, &next)
	if len(first) != 10 || !strings.HasPrefix(pager, "1–10 of ") {
		t.Fatalf("the first page of 10 shows %d rows, pager %q", len(first), pager)
	}
	second := tableRows(loadServed(t, ts.URL+next), "#dominators table.tree tbody tr")
	if len(second) != 10 || second[0][0] != "11" || second[9][0] != "20" {
		t.Errorf("the next page does not rank 11 to 20: %q", second)
	}
	for _, r := range second {
		if slices.ContainsFunc(first, func(f treeRow) bool { return strings.HasPrefix(r[4], f.ID) }) {
			t.Errorf("object %s is on both pages", r[4])
		}
	}

	loader := slices.IndexFunc(first, func(r treeRow) bool { return r.Class == "jdk.internal.loader.ClassLoaders$AppClassLoader" })
	if loader < 0 || first[loader].Toggle != "▸" {
		t.Fatalf("the application class loader is not on the top of the tree, closed: %+v", first)
	}
	at := first[loader]
	for depth, class := range []string{"java.util.ArrayList", "java.lang.Object[]", "class fixture.Registry", "java.util.HashMap", "java.util.HashMap$Node[]"} {
		p = openRow(t, p, ts.URL, at.ID)
		at = beneath(t, p, at.ID, class, depth+1)
		switch {
		case class == "java.util.HashMap" && (at.ID != mapID || !strings.Contains(at.Retained, mapRetained)):
			t.Fatalf("beneath class fixture.Registry: %+v, want its map %s retaining %s", at, mapID, mapRetained)
		case class == "java.util.HashMap$Node[]" && !strings.Contains(at.Retained, tableRetained):
			t.Fatalf("beneath the map: %+v, want its table retaining %s", at, tableRetained)
		}
	}

	chains := registryChains()
	p = openRow(t, p, ts.URL, at.ID)
	rows := treeRows(p)
	k := slices.IndexFunc(rows, func(r treeRow) bool { return r.ID == at.ID })
	var entries int
	for _, r := range rows[k+1:] {
		if r.Depth != 6 {
			break
		}
		if r.More != "" {
			if want := strconv.Itoa(len(chains)-25) + " more"; r.More != want || entries != 25 {
				t.Errorf("after %d entries, the more row says %q, want %s after 25", entries, r.More, want)
			}
			break
		}
		if want := humanize.Comma(int64(entryRetained*chains[entries])) + " B"; r.Class != "java.util.HashMap$Node" || !strings.HasSuffix(r.Retained, " "+want) {
			t.Errorf("bucket %d of the table: %+v, want a HashMap$Node retaining %s (%d entries)", entries, r, want, chains[entries])
		}
		entries++
	}
	if entries != 25 {
		t.Fatalf("%d buckets beneath the open table, want 25 of %d", entries, len(chains))
	}

	var more string
	p.Eval(`document.querySelector('#dominators a.more').getAttribute('href')`, &more)
	p = loadServed(t, ts.URL+more)
	p.Eval(`document.querySelector('.pager').innerText`, &pager)
	if want := fmt.Sprintf("26–75 of %d", len(chains)); !strings.HasPrefix(pager, want) {
		t.Errorf("the table's page of more buckets says %q, want %s", pager, want)
	}
	if rows = treeRows(p); len(rows) != 50 || rows[0].Class != "java.util.HashMap$Node" {
		t.Errorf("the table's page of more buckets lists %d rows, want 50: %+v", len(rows), rows)
	}
}

// registryChains returns, biggest first, how many of the map's entries
// each used bucket of its Node[256] chains, as Java's HashMap places the
// keys "payload-000" to "payload-099": bucket (h ^ h>>>16) & 255 of the
// key's String.hashCode h. Each bucket's first Node dominates the rest of
// its chain.
func registryChains() []int {
	buckets := map[uint32]int{}
	for i := range 100 {
		var h uint32
		for _, c := range fmt.Sprintf("payload-%03d", i) {
			h = 31*h + uint32(c)
		}
		buckets[(h^h>>16)&255]++
	}
	var chains []int
	for _, n := range buckets {
		chains = append(chains, n)
	}
	slices.Sort(chains)
	slices.Reverse(chains)
	return chains
}

// TestServeBrowserClassPage opens class pages of the leak fixture, against
// testdata/jvm/EXPECTED.md: fixture.Payload, reached by its link in the
// histogram, has 100 instances of 24 bytes, all reachable, each retaining
// 1,040 bytes (with its byte[1000]), 104,000 together, listed 50 a page;
// fixture.LayoutStaticOnly has 45 instances and the static fields the
// program set.
func TestServeBrowserClassPage(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)

	p := loadServed(t, ts.URL+"/histogram?match=%5Efixture%5C.Payload%24")
	var href string
	p.Eval(`document.querySelector('#histogram a.cls').getAttribute('href')`, &href)
	if href != "/class?name=fixture.Payload" {
		t.Fatalf("the histogram links fixture.Payload to %q", href)
	}
	p = loadServed(t, ts.URL+href)
	var summary string
	p.Eval(`document.querySelector('#class table.kv').innerText`, &summary)
	for _, want := range []string{"100, 2.3 KiB 2,400 B shallow", "100 instances, 2.3 KiB 2,400 B shallow, retaining 102 KiB 104,000 B together"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the class page of fixture.Payload does not say %q:\n%s", want, summary)
		}
	}
	seen := map[string]bool{}
	for page := 1; page <= 2; page++ {
		rows := tableRows(p, "#class table.instances tbody tr")
		if len(rows) != 50 {
			t.Fatalf("page %d lists %d instances, want 50", page, len(rows))
		}
		for k, r := range rows {
			if r[0] != strconv.Itoa((page-1)*50+k+1) || !strings.HasSuffix(r[1], " 1,040 B") || r[3] != "24 B" {
				t.Errorf("page %d, row %d: %q, want rank %d retaining 1,040 B, shallow 24 B", page, k, r, (page-1)*50+k+1)
			}
			seen[strings.Fields(r[4])[0]] = true
		}
		var next string
		p.Eval(`(document.querySelector('.pager a.next') || {getAttribute: () => ''}).getAttribute('href')`, &next)
		if page == 2 {
			if next != "" {
				t.Errorf("the second page of 100 instances links to a next page, %s", next)
			}
			break
		}
		p = loadServed(t, ts.URL+next)
	}
	if len(seen) != 100 {
		t.Errorf("the two pages list %d distinct instances, want 100", len(seen))
	}

	p = loadServed(t, ts.URL+"/class?name=fixture.LayoutStaticOnly")
	statics := map[string][]string{}
	for _, r := range tableRows(p, "#class table.statics tbody tr") {
		statics[r[0]] = r
	}
	for name, want := range map[string][2]string{"SB": {"byte", "-7"}, "SS": {"short", "12345"}, "SZ": {"boolean", "true"}, "SNULL": {"object", "null"}} {
		if r := statics[name]; len(r) < 3 || r[1] != want[0] || r[2] != want[1] {
			t.Errorf("static %s: %q, want a %s of %s", name, r, want[0], want[1])
		}
	}
	if r := statics["STR"]; len(r) < 5 || r[3] != "java.lang.String" || r[4] != "static-string" {
		t.Errorf("static STR: %q, want the String static-string", r)
	}
	p.Eval(`document.querySelector('#class table.kv').innerText`, &summary)
	if !strings.Contains(summary, "45, 720 B shallow") {
		t.Errorf("fixture.LayoutStaticOnly's page does not count its 45 instances of 16 bytes:\n%s", summary)
	}
	if status, _, _ := get(t, "GET", ts.URL+"/class?name=no.such.Class"); status != http.StatusNotFound {
		t.Errorf("/class of a class not in the dump: status %d, want 404", status)
	}
}

// TestServeBrowserRetainers follows the object page's link to the paths
// from the GC roots: for the map, a path through the static field MAP of
// class fixture.Registry; for the fixture.StackOnly that only a frame
// holds (EXPECTED.md), a java-frame root in thread fixture-holder at
// StackHolder.hold.
func TestServeBrowserRetainers(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)

	p := loadServed(t, ts.URL+"/object/"+mapID)
	var href string
	p.Eval(`document.querySelector('a.paths').getAttribute('href')`, &href)
	p = loadServed(t, ts.URL+href)
	path := tableRows(p, "#path-1 tbody tr")
	at := slices.IndexFunc(path, func(r []string) bool { return len(r) == 4 && r[1] == "→ static MAP" })
	if at < 1 || path[at-1][3] != "class fixture.Registry" || path[at][2] != mapID || at != len(path)-1 {
		t.Errorf("the map's first path does not end through the static MAP of class fixture.Registry: %q", path)
	}

	p = loadServed(t, ts.URL+"/class?name=fixture.StackOnly")
	p.Eval(`document.querySelector('#class table.instances a.paths').getAttribute('href')`, &href)
	p = loadServed(t, ts.URL+href)
	var root string
	p.Eval(`document.querySelector('#path-1 .root').innerText`, &root)
	if !strings.HasPrefix(root, "GC root: java-frame, thread fixture-holder, frame fixture.StackHolder.hold(") {
		t.Errorf("the StackOnly's root: %q, want the java frame StackHolder.hold of thread fixture-holder", root)
	}
}

// TestServeTopAndRetainersAPI: /api/top and /api/retainers answer what
// `hprofctl top` and `hprofctl retainers` write with -o json; the top
// consumers page lists the groups of the API.
func TestServeTopAndRetainersAPI(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	for _, tc := range []struct {
		api string
		cli []string
	}{
		{"/api/top", []string{"top"}},
		{"/api/top?by=package&top=5", []string{"top", "--by", "package", "--top", "5"}},
		{"/api/retainers?object=" + mapID, []string{"retainers", "--object", mapID}},
		{"/api/retainers?class=" + url.QueryEscape(`^fixture\.Payload$`) + "&paths=2", []string{"retainers", "--class", `^fixture\.Payload$`, "--paths", "2"}},
	} {
		want, err := runCLI(t, append(append(tc.cli, "-o", "json"), dump)...)
		if err != nil {
			t.Fatal(err)
		}
		if status, _, got := get(t, "GET", ts.URL+tc.api); status != 200 || got != want {
			t.Errorf("%s: status %d, differs from hprofctl %s:\n%.600s\nwant:\n%.600s", tc.api, status, strings.Join(tc.cli, " "), got, want)
		}
	}
	for api, status := range map[string]int{
		"/api/retainers":             400,
		"/api/retainers?object=0x1":  404,
		"/api/top?by=nope":           400,
		"/top?by=nope":               400,
		"/retainers?object=" + mapID: 200,
		"/top?by=classloader":        200,
		"/dominators?open=0xnope":    404,
		"/dominators?offset=-1":      400,
		"/icicle?root=0x1":           404,
		"/class":                     400,
		"/query?q=SELECT+p.nothing+FROM+fixture.Payload+p": 400,
	} {
		if got, _, body := get(t, "GET", ts.URL+api); got != status {
			t.Errorf("%s: status %d, want %d:\n%.300s", api, got, status, body)
		}
	}
}

// TestServeBrowserIcicle draws the dominator tree of the leak fixture:
// the map is a box of the whole heap's icicle, and the icicle below the
// map has its Node[256] beneath it, as wide as its share of the map's
// retained size (113,840 of 113,888 bytes).
func TestServeBrowserIcicle(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)

	p := loadServed(t, ts.URL+"/icicle")
	var href string
	p.Eval(`(Array.from(document.querySelectorAll('svg.icicle a')).find(a => a.querySelector('title').textContent.startsWith('java.util.HashMap '+`+jsString(mapID)+`)) || {getAttribute: () => ''}).getAttribute('href')`, &href)
	if href != "/icicle?root="+mapID {
		t.Fatalf("the heap's icicle has no box of the map %s linking below it (got %q)", mapID, href)
	}
	p = loadServed(t, ts.URL+href)
	var boxes []struct {
		Title string
		Y, W  float64
	}
	p.Eval(`Array.from(document.querySelectorAll('svg.icicle g'), g => ({Title: g.querySelector('title').textContent, Y: +g.querySelector('rect').getAttribute('y'), W: +g.querySelector('rect').getAttribute('width')}))`, &boxes)
	if len(boxes) < 3 || !strings.HasPrefix(boxes[0].Title, "java.util.HashMap "+mapID+": 111 KiB") || boxes[0].W != 1200 {
		t.Fatalf("the icicle below the map does not start with the map, full width: %+v", boxes)
	}
	if b := boxes[1]; !strings.HasPrefix(b.Title, "java.util.HashMap$Node[] ") || b.Y != 18 || b.W < 1199.4 || b.W > 1199.6 {
		t.Errorf("beneath the map: %+v, want its Node[] one level down, 1200 × 113,840 / 113,888 = 1199.5 wide", b)
	}
	var crumbs string
	p.Eval(`document.querySelector('.crumbs').innerText`, &crumbs)
	if !strings.Contains(crumbs, "class fixture.Registry") {
		t.Errorf("the icicle below the map does not name its dominator class fixture.Registry: %q", crumbs)
	}
}

// TestServeBrowserDumpChanged replaces the served dump with another while
// the server runs: every page, and the API, answers 409 saying the dump
// changed since it was indexed, never 500; touching the dump without
// changing it changes nothing.
func TestServeBrowserDumpChanged(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "app.hprof.gz")
	copyFile(t, fixturePath(t, "jdk17-default.hprof.gz"), dump)
	t.Setenv("HPROFCTL_INDEX_DIR", t.TempDir())
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	pages := []string{"/", "/object/" + mapID, "/dominators", "/dominators?open=" + mapID, "/class?name=fixture.Payload",
		"/retainers?object=" + mapID, "/icicle", "/top", "/leaks", "/histogram", "/query?q=SELECT+*+FROM+fixture.Payload", "/api/show/" + mapID, "/api/top"}

	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(dump, later, later); err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		if status, _, body := get(t, "GET", ts.URL+page); status != 200 {
			t.Errorf("%s after touching the dump: status %d, want 200:\n%.300s", page, status, body)
		}
	}

	copyFile(t, fixturePath(t, "jdk17-inspect-before.hprof.gz"), dump)
	for _, page := range pages {
		status, _, body := get(t, "GET", ts.URL+page)
		if status != http.StatusConflict || !strings.Contains(body, "the dump changed since it was indexed") {
			t.Errorf("%s after replacing the dump: status %d, want 409 saying it changed:\n%.300s", page, status, body)
		}
	}
	var text string
	browsertest.Load(t, ts.URL+"/object/"+mapID).Eval(`document.querySelector('main').innerText`, &text)
	if !strings.Contains(text, "app.hprof.gz: the dump changed since it was indexed") || !strings.Contains(text, "Restart hprofctl serve") {
		t.Errorf("the object page after replacing the dump shows:\n%s", text)
	}
}

// copyFile copies the file at from to to, replacing it.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeQueryTotalsAndExamples: the query page counts every row of an
// answer it shows the first rows of, and sums its columns of whole
// numbers: the leak fixture's 100 fixture.Payload have the ids 0 to 99
// (EXPECTED.md), 4,950 together. Every example it offers runs on the
// fixture.
func TestServeQueryTotalsAndExamples(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	q := url.QueryEscape("SELECT p, p.id FROM fixture.Payload p")
	status, _, page := get(t, "GET", ts.URL+"/query?limit=10&q="+q)
	if status != 200 || !strings.Contains(page, "100 rows, the first 10 shown.") {
		t.Errorf("/query with limit 10: status %d, want the total of 100 rows:\n%.2000s", status, page)
	}
	if want := `<tfoot><tr><td></td><td><code class="sum">4,950</code></td></tr></tfoot>`; !strings.Contains(page, want) {
		t.Errorf("/query does not sum the ids to 4,950 (and nothing else): want %s in\n%.3000s", want, page)
	}
	p := loadServed(t, ts.URL+"/query")
	var examples []string
	p.Eval(`Array.from(document.querySelectorAll('ul.examples a'), a => a.getAttribute('href'))`, &examples)
	if len(examples) < 3 {
		t.Fatalf("the query page offers %d examples", len(examples))
	}
	for _, ex := range examples {
		status, _, page := get(t, "GET", ts.URL+ex)
		if status != 200 || strings.Contains(page, `class="error"`) || !strings.Contains(page, `class="total"`) {
			t.Errorf("example %s: status %d, or an error:\n%.1500s", ex, status, page)
		}
	}
}

// TestServeBrowserNarrow lays pages of the leak fixture out in a window
// 360 pixels wide: no object id wraps, a class name wraps only where the
// page allows it (after a '.', '$' or '/'), and no exact byte count leaves
// the line of the rounded size it explains.
func TestServeBrowserNarrow(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	for _, page := range []string{"/dominators", "/object/" + mapID, "/class?name=fixture.Payload", "/retainers?object=" + mapID, "/top", "/histogram?top=30"} {
		p := loadServed(t, ts.URL+page)
		p.Screenshot(360, 700)
		var broken []string
		p.Eval(`(() => {
			const out = [];
			document.querySelectorAll('main a.id, main .size').forEach(e => { if (e.getClientRects().length > 1) out.push(e.className + ': ' + e.textContent); });
			document.querySelectorAll('main code.cls').forEach(e => e.childNodes.forEach(n => {
				if (n.nodeType !== 3) return;
				for (const m of n.textContent.matchAll(/\S+/g)) {
					const r = document.createRange();
					r.setStart(n, m.index);
					r.setEnd(n, m.index + m[0].length);
					if (r.getClientRects().length > 1) out.push('class name part: ' + m[0]);
				}
			}));
			return out;
		})()`, &broken)
		var wraps bool
		p.Eval(`Array.from(document.querySelectorAll('main code.cls')).some(e => e.getClientRects().length > 1)`, &wraps)
		if len(broken) > 0 {
			t.Errorf("%s at 360 pixels breaks inside %q", page, broken)
		}
		if page == "/dominators" && !wraps {
			t.Errorf("%s at 360 pixels: no class name wraps at all, so the check above checked nothing", page)
		}
	}
}
