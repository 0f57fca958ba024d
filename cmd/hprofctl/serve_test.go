package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/browsertest"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/internal/web"
)

// serveDump serves the dump at path as `hprofctl serve` does, from its
// index, on a test server that closes with the test.
func serveDump(t *testing.T, path string, heaps ...string) *httptest.Server {
	t.Helper()
	g := &globalFlags{size: "jvm", dump: -1, indexDir: os.Getenv("HPROFCTL_INDEX_DIR"), stderr: io.Discard, heaps: heaps}
	s, err := newServer(g, path, "", web.Limits{})
	if err != nil {
		t.Fatalf("serving %s: %v", path, err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		if err := g.closeSessions(); err != nil {
			t.Error(err)
		}
	})
	return ts
}

// get requests url with method and returns the answer's status, headers
// and body.
func get(t *testing.T, method, url string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// registryMap returns the id of the HashMap of fixture.Registry.MAP, the
// leak fixture's suspect, from the step through the static field MAP of
// its suspect's path.
func registryMap(t *testing.T, dump string) string {
	t.Helper()
	var suspects []struct {
		Path []struct {
			ObjectID string `json:"object_id"`
			Via      string `json:"via"`
		} `json:"path"`
	}
	runJSON(t, &suspects, "leaks", dump)
	for _, s := range suspects {
		for _, st := range s.Path {
			if st.Via == "static MAP" {
				return st.ObjectID
			}
		}
	}
	t.Fatalf("no suspect's path goes through static MAP: %+v", suspects)
	return ""
}

// TestServeRoutes checks the status of every page, of unknown paths, bad
// ids and bad queries, that only GET and HEAD are answered, and the
// security headers.
func TestServeRoutes(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/", 200, "hprof 1.0.2"},
		{"HEAD", "/", 200, ""},
		{"GET", "/histogram?sort=count&match=%5Efixture%5C.&top=3", 200, "fixture.Payload"},
		{"GET", "/dominators", 200, "jdk.internal.loader.ClassLoaders$AppClassLoader"},
		{"GET", "/dominators?expand=" + mapID, 200, "java.util.HashMap$Node[]"},
		{"GET", "/object/" + mapID, 200, "static MAP"},
		{"GET", "/leaks", 200, "accumulation point"},
		{"GET", "/threads", 200, "fixture-holder"},
		{"GET", "/deadlocks", 200, "no deadlock"},
		{"GET", "/strings", 200, "Strings hold"},
		{"GET", "/collections", 200, "java.util.HashMap"},
		{"GET", "/static/style.css", 200, "--accent"},
		{"GET", "/api/", 200, "/api/histo"},
		{"GET", "/sites", 404, "no allocation sites"},
		{"GET", "/cpu", 404, "no CPU"},
		{"GET", "/nope", 404, "no such page"},
		{"GET", "/object/0x1", 404, "no such object"},
		{"GET", "/object/12345", 404, "no object id"},
		{"GET", "/object/0xZZ", 404, "no object id"},
		{"GET", "/object/0x" + strings.Repeat("f", 17), 404, "no object id"},
		{"GET", "/object/%2e%2e%2fetc%2fpasswd", 404, ""},
		{"GET", "/static/../../etc/passwd", 404, ""},
		{"GET", "/dominators?expand=0x1", 404, "no such object"},
		{"GET", "/histogram?sort=size", 400, "want bytes, count or name"},
		{"GET", "/histogram?match=(", 400, "match"},
		{"GET", "/histogram?top=-1", 400, "top"},
		{"GET", "/api/show/0xnope", 404, "no object id"},
		{"GET", "/api/leaks?threshold=0", 400, "threshold"},
		{"POST", "/", 405, ""},
		{"PUT", "/api/info", 405, ""},
		{"DELETE", "/object/" + mapID, 405, ""},
	} {
		status, h, body := get(t, tc.method, ts.URL+tc.path)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d, want %d with %q in:\n%.500s", tc.method, tc.path, status, tc.status, tc.want, body)
		}
		if p := h.Get("Content-Security-Policy"); !strings.HasPrefix(p, "default-src 'none'; style-src 'self'") || strings.Contains(p, "script-src") {
			t.Errorf("%s %s: Content-Security-Policy %q", tc.method, tc.path, p)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no X-Content-Type-Options: nosniff", tc.method, tc.path)
		}
		if status == 405 && h.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q, want GET, HEAD", tc.method, tc.path, h.Get("Allow"))
		}
	}
}

// TestServeAPIEqualsCLI checks that each API question answers, byte for
// byte, what its command writes with -o json.
func TestServeAPIEqualsCLI(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	for _, tc := range []struct {
		api string
		cli []string
	}{
		{"/api/info", []string{"info"}},
		{"/api/histo", []string{"histo"}},
		{"/api/histo?sort=count&match=%5Efixture&top=3", []string{"histo", "--sort", "count", "--match", "^fixture", "--top", "3"}},
		{"/api/dominators", []string{"dominators"}},
		{"/api/dominators?class=HashMap&by-class=1", []string{"dominators", "--class", "HashMap", "--by-class"}},
		{"/api/show/" + mapID, []string{"show", dump, mapID}},
		{"/api/show/" + mapID + "?referrers=1&path=1&elements=3", []string{"show", "--referrers", "--path", "--elements", "3", dump, mapID}},
		{"/api/leaks", []string{"leaks"}},
		{"/api/leaks?threshold=1&classes=2", []string{"leaks", "--threshold", "1", "--classes", "2"}},
		{"/api/threads", []string{"threads", "--retained"}},
		{"/api/deadlocks", []string{"deadlocks"}},
		{"/api/strings", []string{"strings"}},
		{"/api/collections?objects=1&top=5", []string{"collections", "--objects", "--top", "5"}},
	} {
		args := append(tc.cli, "-o", "json")
		if !slices.Contains(args, dump) {
			args = append(args, dump)
		}
		want, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
		}
		status, h, got := get(t, "GET", ts.URL+tc.api)
		if status != 200 || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s", tc.api, status, h.Get("Content-Type"))
		}
		if got != want {
			t.Errorf("%s differs from hprofctl %s:\n%.600s\nwant:\n%.600s", tc.api, strings.Join(args, " "), got, want)
		}
	}
	var e map[string]string
	_, _, body := get(t, "GET", ts.URL+"/api/show/0x1")
	if err := json.Unmarshal([]byte(body), &e); err != nil || !strings.Contains(e["error"], "no such object") {
		t.Errorf("/api/show/0x1: %q, want a JSON error", body)
	}
}

// TestServeAPIEqualsCLIAndroid checks, on the real Android dumps, that
// the API answers what the commands write with the same --heap: the
// native sizes of ahat's test dump, and the app heap of the LeakCanary
// dump, where leaks suspects the app heap alone by default.
func TestServeAPIEqualsCLIAndroid(t *testing.T) {
	for _, tc := range []struct {
		file  string
		heaps []string
	}{
		{"test-dump-base.hprof.gz", nil},
		{"leak_service_binder_ignored.hprof.gz", nil},
		{"leak_service_binder_ignored.hprof.gz", []string{"app"}},
	} {
		dump := testshared.Path(t, "corpus", "android", tc.file)
		ts := serveDump(t, dump, tc.heaps...)
		var flags []string
		for _, heap := range tc.heaps {
			flags = append(flags, "--heap", heap)
		}
		for _, q := range []struct {
			api string
			cli []string
		}{
			{"/api/info", []string{"info"}},
			{"/api/histo", []string{"histo"}},
			{"/api/dominators", []string{"dominators"}},
			{"/api/leaks", []string{"leaks"}},
			{"/api/strings", []string{"strings"}},
		} {
			args := append(append(slices.Clone(flags), q.cli...), "-o", "json", dump)
			want, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
			}
			if _, _, got := get(t, "GET", ts.URL+q.api); got != want {
				t.Errorf("%s %v: %s differs from hprofctl %s:\n%.600s\nwant:\n%.600s", tc.file, tc.heaps, q.api, strings.Join(args, " "), got, want)
			}
		}
	}
}

// loadServed loads a served page in the headless browser after checking
// that it asks for nothing but itself, the style sheet and the icon the
// browser asks for by itself, holds no
// script, reports no problem and is styled.
func loadServed(t *testing.T, url string) *browsertest.Page {
	t.Helper()
	p := browsertest.Load(t, url)
	var scripts int
	var styled bool
	p.Eval(`document.scripts.length`, &scripts)
	p.Eval(`getComputedStyle(document.querySelector('header')).borderBottomStyle === 'solid'`, &styled)
	if scripts != 0 {
		t.Errorf("%s: %d scripts, want none", url, scripts)
	}
	if !styled {
		t.Errorf("%s: the style sheet does not apply", url)
	}
	for _, r := range p.Requests() {
		if r != url && !strings.HasSuffix(r, "/static/style.css") && !strings.HasSuffix(r, "/favicon.ico") {
			t.Errorf("%s requested %s", url, r)
		}
	}
	if problems := p.Problems(); len(problems) > 0 {
		t.Errorf("%s reported problems: %q", url, problems)
	}
	return p
}

// TestServeBrowserLeakFixture browses the served leak fixture as a person
// would, against what the fixture program made (testdata/jvm/EXPECTED.md,
// as TestDominatorsRegistryMap and TestLeaksRegistryMap know it):
//   - from the top of the dominator tree, following the biggest object's
//     children link down, the map fixture.Registry.MAP appears, retaining
//     113,888 bytes;
//   - the map's object page shows its path from a GC root through the
//     class fixture.Registry and its static field MAP;
//   - the threads page shows the thread fixture-holder's frame
//     StackHolder.hold holding the fixture.StackOnly of 16 bytes;
//   - every other page kind loads and shows its heading.
func TestServeBrowserLeakFixture(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)

	p := loadServed(t, ts.URL+"/dominators")
	var found []string
	for range 8 {
		rows := tableRows(p, "#dominators tbody tr")
		if len(rows) == 0 {
			break
		}
		if k := slices.IndexFunc(rows, func(r []string) bool { return r[5] == "java.util.HashMap" && strings.Contains(r[1], "113,888 B") }); k >= 0 {
			found = rows[k]
			break
		}
		var next string
		p.Eval(`document.querySelector('#dominators tbody tr:first-child a.expand').getAttribute('href')`, &next)
		p = loadServed(t, ts.URL+next)
	}
	if found == nil {
		t.Fatal("following the biggest objects down the dominator tree never shows the HashMap retaining 113,888 B")
	}
	var bars int
	p.Eval(`document.querySelectorAll('svg.chart rect').length`, &bars)
	if bars == 0 {
		t.Error("the dominator page has no chart")
	}

	p = loadServed(t, ts.URL+"/object/"+found[4])
	path := tableRows(p, "#path tbody tr")
	at := slices.IndexFunc(path, func(r []string) bool { return len(r) == 4 && r[1] == "→ static MAP" })
	if at < 1 || path[at-1][3] != "class fixture.Registry" || path[at][2] != found[4] {
		t.Errorf("the map's path from a GC root does not go through the static MAP of class fixture.Registry: %q", path)
	}

	p = loadServed(t, ts.URL+"/threads")
	var stacks map[string]string
	p.Eval(`Object.fromEntries(Array.from(document.querySelectorAll('article.thread'), a => [a.querySelector('.name').innerText, a.innerText]))`, &stacks)
	stack := stacks["fixture-holder"]
	i := strings.Index(stack, "at fixture.StackHolder.hold(")
	if i < 0 || !strings.Contains(stack[i:], "fixture.StackOnly, retains 16 B") {
		t.Errorf("thread fixture-holder does not show StackHolder.hold holding the StackOnly of 16 B:\n%s", stack)
	}

	for page, want := range map[string]string{
		"/":            "hprof 1.0.2",
		"/histogram":   "fixture.Payload",
		"/leaks":       "accumulation point",
		"/deadlocks":   "no deadlock",
		"/strings":     "Strings hold",
		"/collections": "java.util.HashMap",
	} {
		var text string
		loadServed(t, ts.URL+page).Eval(`document.querySelector('main').innerText`, &text)
		if !strings.Contains(text, want) {
			t.Errorf("%s does not show %q:\n%.1000s", page, want, text)
		}
	}
}

// TestServeBrowserHostile serves a dump full of markup: on every page
// that shows its class, field and thread names and String values, the
// markup shows as text and none of it runs.
func TestServeBrowserHostile(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "hostile.hprof")
	writeHostileDump(t, dump)
	ts := serveDump(t, dump)
	var evil string
	{
		var rows []struct {
			ObjectID string `json:"object_id"`
			Class    string `json:"class"`
		}
		runJSON(t, &rows, "dominators", "--class", "^Evil", dump)
		if len(rows) != 1 {
			t.Fatalf("%d Evil objects, want 1", len(rows))
		}
		evil = rows[0].ObjectID
	}
	holder, evilClass := "class Holder"+hostileImage, "Evil"+hostileImage
	for page, want := range map[string][]string{
		"/histogram":      {evilClass},
		"/dominators":     {holder},
		"/leaks":          {holder, "→ static " + hostileScript},
		"/object/" + evil: {evilClass, hostileScript, "→ static " + hostileScript},
		"/threads":        {hostileScript + hostileImage, evilClass + "." + hostileImage + "(" + hostileScript + ".java:7)"},
		"/strings":        {},
		"/query?q=" + url.QueryEscape(`SELECT classof(e).@name FROM "^Evil.*" e`): {evilClass},
	} {
		p := loadServed(t, ts.URL+page)
		var pwned, text string
		p.Eval(`typeof window.__pwned`, &pwned)
		p.Eval(`document.querySelector('main').innerText`, &text)
		if pwned != "undefined" {
			t.Errorf("%s: window.__pwned is %s: markup from the dump ran", page, pwned)
		}
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("%s does not show %q as text:\n%.1500s", page, s, text)
			}
		}
	}
}

// screenshotsEnv names the directory TestServeScreenshots writes the
// README's screenshots to; unset, the test skips.
const screenshotsEnv = "HPROFCTL_SCREENSHOTS"

// TestServeScreenshots writes PNGs of the main pages of the served leak
// fixture for the README: HPROFCTL_SCREENSHOTS=$PWD/docs/screenshots go
// test -run TestServeScreenshots ./cmd/hprofctl.
func TestServeScreenshots(t *testing.T) {
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		t.Skipf("%s is not set", screenshotsEnv)
	}
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	mapID := registryMap(t, dump)
	for name, page := range map[string]string{
		"overview":   "/",
		"histogram":  "/histogram?match=%5Efixture%5C.",
		"dominators": "/dominators",
		"object":     "/object/" + mapID,
		"leaks":      "/leaks",
		"threads":    "/threads",
	} {
		png := loadServed(t, ts.URL+page).Screenshot(1000, 600)
		if err := os.WriteFile(filepath.Join(dir, "serve-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeLoopbackHostOnly: a server on loopback, as `hprofctl serve`
// starts one by default, answers requests to localhost, 127.0.0.1 and
// [::1] and refuses any other Host with 403, so that a page that rebinds
// its own name to 127.0.0.1 cannot read the dump.
func TestServeLoopbackHostOnly(t *testing.T) {
	g := &globalFlags{size: "jvm", dump: -1, indexDir: t.TempDir(), stderr: io.Discard}
	s, err := newServer(g, fixturePath(t, "jdk17-default.hprof.gz"), "", web.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.closeSessions()
	s.RequireLoopbackHost()
	for host, want := range map[string]int{
		"localhost:8080":   http.StatusOK,
		"127.0.0.1:8080":   http.StatusOK,
		"[::1]:8080":       http.StatusOK,
		"localhost":        http.StatusOK,
		"evil.example":     http.StatusForbidden,
		"evil.example:80":  http.StatusForbidden,
		"127.0.0.1.nip.io": http.StatusForbidden,
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: status %d, want %d", host, rec.Code, want)
		}
	}
}

// TestServeDiffAgainstBase serves the inspect fixture's second dump with
// its first as --base: /diff shows the 10,000 fixture.InspectGrowth the
// program added between the dumps (EXPECTED.md: 1,000 before, 11,000
// after, 24 bytes each), /api/diff answers what `hprofctl diff OLD NEW -o
// json` does, and a server without a base has no /diff.
func TestServeDiffAgainstBase(t *testing.T) {
	before, after := fixturePath(t, "jdk17-inspect-before.hprof.gz"), fixturePath(t, "jdk17-inspect-after.hprof.gz")
	g := &globalFlags{size: "jvm", dump: -1, indexDir: t.TempDir(), stderr: io.Discard}
	s, err := newServer(g, after, before, web.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.closeSessions()
	ts := httptest.NewServer(s)
	defer ts.Close()
	status, _, page := get(t, "GET", ts.URL+"/diff")
	row := "<tr><td><code>fixture.InspectGrowth</code></td><td class=\"n\">1,000</td><td class=\"n\">11,000</td><td class=\"n\">&#43;10,000</td>"
	if status != 200 || !strings.Contains(page, row) || !strings.Contains(page, "Diff against base") {
		t.Errorf("/diff: status %d, want 200 with the row %s:\n%.2000s", status, row, page)
	}
	want, err := runCLI(t, "diff", "-o", "json", before, after)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, got := get(t, "GET", ts.URL+"/api/diff"); got != want {
		t.Errorf("/api/diff differs from hprofctl diff:\n%.600s\nwant:\n%.600s", got, want)
	}
	plain := serveDump(t, after)
	if status, _, _ := get(t, "GET", plain.URL+"/diff"); status != http.StatusNotFound {
		t.Errorf("/diff without --base: status %d, want 404", status)
	}
}

// TestServeQuery: the query page answers an OQL query over the leak
// fixture, whose program made 100 fixture.Payload objects (its
// histogram), each row's object linked to its page; /api/query answers as
// `hprofctl query -o json` does; a syntax error is shown with its column.
func TestServeQuery(t *testing.T) {
	dump := fixturePath(t, "jdk17-default.hprof.gz")
	ts := serveDump(t, dump)
	const q = "SELECT * FROM fixture.Payload"
	status, _, page := get(t, "GET", ts.URL+"/query?limit=1000&q="+url.QueryEscape(q))
	if n := strings.Count(page, `<td><a class="id" href="/object/0x`); status != 200 || n != 100 || !strings.Contains(page, "100 rows") {
		t.Errorf("/query: status %d, %d linked objects, want 200 and 100:\n%.1500s", status, n, page)
	}
	want, err := runCLI(t, "query", "-o", "json", dump, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, got := get(t, "GET", ts.URL+"/api/query?q="+url.QueryEscape(q)); got != want {
		t.Errorf("/api/query differs from hprofctl query:\n%.600s\nwant:\n%.600s", got, want)
	}
	_, _, page = get(t, "GET", ts.URL+"/query?q="+url.QueryEscape("SELECT * FROM"))
	if !strings.Contains(page, "column 14") {
		t.Errorf("/query with a syntax error: no column in\n%.1500s", page)
	}
	if status, _, _ := get(t, "GET", ts.URL+"/api/query?q="+url.QueryEscape("SELECT * FROM")); status != http.StatusBadRequest {
		t.Errorf("/api/query with a syntax error: status %d, want 400", status)
	}
	// What the query's author must fix is 400 on the page (which shows
	// it) and in the API, never 500: an unknown class, a bad regular
	// expression, invalid UTF-8, an overflow; and lists of all rows.
	for _, bad := range []struct{ query, says string }{
		{"SELECT * FROM no.such.Klass", "no such class"},
		{`SELECT * FROM "(["`, "missing closing"},
		{"SELECT * FROM java.lang.String s WHERE toString(s) LIKE \"\xff(\"", "LIKE"},
		{"SELECT 9223372036854775807 * 2 FROM fixture.Payload", "overflows"},
	} {
		for _, path := range []string{"/query?q=", "/api/query?q="} {
			status, _, body := get(t, "GET", ts.URL+path+url.QueryEscape(bad.query))
			if status != http.StatusBadRequest || !strings.Contains(body, bad.says) {
				t.Errorf("%s%s: status %d, want 400 saying %q:\n%.800s", path, bad.query, status, bad.says, body)
			}
		}
	}
	for _, path := range []string{"/query?limit=0&q=", "/api/query?limit=0&q=", "/api/query?limit=10001&q="} {
		if status, _, body := get(t, "GET", ts.URL+path+url.QueryEscape(q)); status != http.StatusBadRequest || !strings.Contains(body, "1 to 10000 rows") {
			t.Errorf("%s: status %d, want 400 naming the rows served", path, status)
		}
	}
}

// TestServeAgentProfileOnly serves hprof agent files that hold profiling
// data and no heap dump: their sites and CPU pages, with what the
// agent fixtures' program did (testdata/agent/EXPECTED.md: Buffers.makeLarge
// allocates 16 byte[] of 262,400 bytes; Hot.spin takes most CPU samples),
// their API answering as `hprofctl sites` and `hprofctl cpu` do, and 404
// for the pages that need a heap.
func TestServeAgentProfileOnly(t *testing.T) {
	for _, tc := range []struct {
		file, page, api string
		cli             []string
		want            []string
	}{
		{"sites-binary.hprof.gz", "/sites", "/api/sites", []string{"sites"},
			[]string{`<span class="x">262,400 B</span></td><td class="n">16</td>`, "<code>agentfix.Buffers.makeLarge</code>"}},
		{"cpu-samples.hprof.txt.gz", "/cpu", "/api/cpu", []string{"cpu"}, []string{"agentfix.Hot.spin"}},
	} {
		dump := agentFixture(t, tc.file)
		ts := serveDump(t, dump)
		status, _, page := get(t, "GET", ts.URL+tc.page)
		for _, w := range tc.want {
			if status != 200 || !strings.Contains(page, w) {
				t.Errorf("%s %s: status %d, want 200 showing %s:\n%.1500s", tc.file, tc.page, status, w, page)
			}
		}
		want, err := runCLI(t, append(tc.cli, "-o", "json", dump)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, got := get(t, "GET", ts.URL+tc.api); got != want {
			t.Errorf("%s %s differs from hprofctl %s:\n%.600s\nwant:\n%.600s", tc.file, tc.api, tc.cli[0], got, want)
		}
		for _, p := range []string{"/dominators", "/api/dominators", "/query"} {
			if status, _, _ := get(t, "GET", ts.URL+p); status != http.StatusNotFound {
				t.Errorf("%s %s: status %d, want 404 (no heap dump)", tc.file, p, status)
			}
		}
		if status, _, _ := get(t, "GET", ts.URL+"/"); status != 200 {
			t.Errorf("%s /: status %d", tc.file, status)
		}
	}
}
