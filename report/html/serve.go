package html

import (
	"embed"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"

	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/report"
)

// The pages of `hprofctl serve`: one template each in serve/, all sharing
// the layout of serve/layout.tmpl. Like the report, they run no script and
// escape every string from the dump; unlike it, their style sheet is a
// file of its own (StyleSheet), served beside them, and every object id
// is a link to its object's page.

//go:embed serve/*.tmpl
var serveTemplates embed.FS

// ServeStyle is the style sheet of the served pages: the report's, and
// the few rules of the served pages' own (forms, links, the flame graph).
var ServeStyle = styleSheet + serveStyle

//go:embed serve.css
var serveStyle string

// Site is what every served page shows around its content: the dump's
// file, the program, and which optional pages the dump has.
type Site struct {
	File      string
	Generator string
	// HasSites and HasCPU tell whether the dump (an hprof agent file)
	// holds allocation sites and CPU samples or times.
	HasSites, HasCPU bool
	// HasHeap tells a file with a heap dump; without one (an hprof
	// agent file of profiling data only) only the overview and the
	// profiling pages are served.
	HasHeap bool
	// Base names the earlier dump the server compares this one with
	// (serve --base), "" for none.
	Base string
}

// Page is one served page: a value of one of this package's page types.
type Page interface {
	// templateName names the page's template in serve/.
	templateName() string
	site() Site
}

// OverviewPage is the front page: the dump's summary and the totals of
// its dominator tree.
type OverviewPage struct {
	Site
	Info       heap.Info
	Dominators heap.DominatorReport
}

// HistogramPage is the class histogram as asked: Sort, Match and Top are
// the query that chose the rows (Top 0: all), echoed in the page's form.
type HistogramPage struct {
	Site
	Histogram heap.Histo
	Sort      string
	Match     string
	Top       int
}

// DominatorsPage lists objects of the dominator tree: the top of the tree
// when Parent is nil, else the objects Parent immediately dominates, with
// Chain, the dominators above Parent from the top of the tree down.
// Report holds the page of them Pager says; Tree is that page as shown,
// with what the objects opened in place dominate beneath each.
type DominatorsPage struct {
	Site
	Report heap.DominatorReport
	Parent *heap.DominatorRow
	Chain  []heap.DominatedObject
	Tree   []TreeRow
	Pager  *Pager
}

// TreeRow is one row of the dominator tree as shown: an object Depth
// levels below the page's list (0: on it, ranked Rank), open when what it
// dominates is shown beneath it, Toggle the page that opens or closes it
// in place. A row without an object (Row nil) says that its parent
// dominates More objects beyond those shown, which MoreHref lists.
type TreeRow struct {
	Depth    int
	Rank     int
	Row      *heap.DominatorRow
	Open     bool
	Toggle   string
	More     int
	MoreHref string
}

// Pager places a page of a long list: its rows From to To (from 1) of Of,
// and the pages before and after it and with every row ("" for none).
type Pager struct {
	From, To, Of    int
	Prev, Next, All string
}

// ClassPage is every class of one name (one a class loader): what their
// instances take, those of the page Pager says that retain most, and
// each class's statics.
type ClassPage struct {
	Site
	Name    string
	Classes []ClassInfo
	// Histogram counts every instance, reachable or not; Retained the
	// reachable ones, their retained bytes those of their retained sets
	// together (nil when none is reachable).
	Histogram heap.HistoRow
	Retained  *heap.DominatorClassRow
	Instances heap.DominatorReport
	Pager     *Pager
}

// ClassInfo is one class: its class object's id ("" when the dump has
// none), its superclass's name ("" for none), its loader's id ("" for the
// bootstrap loader), its instances, their size as the dump declares it,
// and its static fields.
type ClassInfo struct {
	ObjectID     string
	Super        string
	Loader       string
	Instances    int64
	InstanceSize uint32
	Statics      []heap.ShowField
}

// RetainersPage is the shortest paths from GC roots to Object (an id) or
// to the instances of the classes matching Class, Paths of them per
// target (merged by class chain for Class), through weak references too
// with Weak.
type RetainersPage struct {
	Site
	Object, Class string
	Paths         int
	Weak          bool
	Retainers     heap.Retainers
}

// TopPage is the top consumers grouped By class, classloader or package,
// Top groups of them (0: all).
type TopPage struct {
	Site
	Top heap.TopConsumerReport
	By  string
	N   int
}

// IciclePage draws the dominator tree below Root (the virtual root when
// its id is heap.RootID) by retained size, Chain being Root's dominators
// from the top of the tree down.
type IciclePage struct {
	Site
	Root  *heap.RetainedNode
	Chain []heap.DominatedObject
}

// ObjectPage is one object in full, as `hprofctl show --referrers --path`
// tells it.
type ObjectPage struct {
	Site
	Object heap.ShowObject
}

// LeaksPage is the leak suspects, their paths described, and what each
// step of each path retains (as in Report).
type LeaksPage struct {
	Site
	Leaks        heap.LeakReport
	PathRetained [][]int64
}

// ThreadsPage is the threads with their stacks and what each retains.
type ThreadsPage struct {
	Site
	Threads []threads.ThreadRow
}

// DeadlocksPage is what the dump's lock state shows, with the notes on
// what it cannot tell; Deadlocks is nil when it holds no lock state.
type DeadlocksPage struct {
	Site
	Deadlocks *threads.DeadlockReport
	Notes     []string
}

// StringsPage is the String values held by several Strings.
type StringsPage struct {
	Site
	Strings heap.DuplicateStringReport
}

// CollectionsPage is the collections and arrays that waste memory, per
// class.
type CollectionsPage struct {
	Site
	Collections heap.CollectionReport
}

// SitesPage is an hprof agent file's allocation sites.
type SitesPage struct {
	Site
	Sites profile.SitesReport
}

// CPUPage is an hprof agent file's CPU samples or times, as a table and
// as an icicle graph of the call stacks.
type CPUPage struct {
	Site
	CPU profile.CPUReport
}

// DiffPage is what changed since the base dump, Top rows of each list
// (0: all).
type DiffPage struct {
	Site
	Diff heap.HeapDiff
	Top  int
}

// QueryPage is an OQL query and its result: Result nil before a query is
// asked, Error what went wrong with it. Limit is the most rows shown;
// Total counts the rows of the whole answer, and Sums are the totals of
// its columns of whole numbers ("" for another column) over all of them.
// Examples are queries to start from.
type QueryPage struct {
	Site
	Query    string
	Limit    int
	Result   *oql.Result
	Total    int
	Sums     []string
	Error    string
	Examples []QueryExample
}

// QueryExample is a query to start from and what it asks.
type QueryExample struct {
	Query, What string
}

// ErrorPage says why a page could not be shown.
type ErrorPage struct {
	Site
	Status  int
	Message string
}

func (p OverviewPage) templateName() string    { return "overview.tmpl" }
func (p HistogramPage) templateName() string   { return "histogram.tmpl" }
func (p DominatorsPage) templateName() string  { return "dominators.tmpl" }
func (p ObjectPage) templateName() string      { return "object.tmpl" }
func (p LeaksPage) templateName() string       { return "leaks.tmpl" }
func (p ThreadsPage) templateName() string     { return "threads.tmpl" }
func (p DeadlocksPage) templateName() string   { return "deadlocks.tmpl" }
func (p StringsPage) templateName() string     { return "strings.tmpl" }
func (p CollectionsPage) templateName() string { return "collections.tmpl" }
func (p SitesPage) templateName() string       { return "sites.tmpl" }
func (p CPUPage) templateName() string         { return "cpu.tmpl" }
func (p ErrorPage) templateName() string       { return "error.tmpl" }
func (p DiffPage) templateName() string        { return "diff.tmpl" }
func (p QueryPage) templateName() string       { return "query.tmpl" }
func (p ClassPage) templateName() string       { return "class.tmpl" }
func (p RetainersPage) templateName() string   { return "retainers.tmpl" }
func (p TopPage) templateName() string         { return "top.tmpl" }
func (p IciclePage) templateName() string      { return "icicle.tmpl" }

func (s Site) site() Site { return s }

// servePages holds each page's template, parsed with the layout.
var servePages = parseServePages()

func parseServePages() map[string]*template.Template {
	names, err := serveTemplates.ReadDir("serve")
	if err != nil {
		panic(err)
	}
	base := template.Must(template.Must(template.New("serve").Funcs(funcs).Funcs(serveFuncs).Parse(commonTemplates)).ParseFS(serveTemplates, "serve/layout.tmpl"))
	out := map[string]*template.Template{}
	for _, n := range names {
		if n.Name() == "layout.tmpl" {
			continue
		}
		t := template.Must(base.Clone())
		out[n.Name()] = template.Must(t.ParseFS(serveTemplates, "serve/"+n.Name()))
	}
	return out
}

// serveFuncs are the template functions the served pages add to the
// report's.
var serveFuncs = template.FuncMap{
	"value": report.ValueText,
	"deref": func(n *int64) int64 { return *n },
	// The chart draws the ten biggest rows; the table lists them all.
	"bars": func(d heap.DominatorReport) chart {
		d.Rows = d.Rows[:min(len(d.Rows), 10)]
		return newChart(d)
	},
	"icicle":          newIcicle,
	"dominatorIcicle": dominatorIcicle,
	"nameParts":       nameParts,
	"classOf":         classOf,
	"add":             func(a, b int) int { return a + b },
	"int":             func(n int64) int { return int(n) },
	"anchored":        func(name string) string { return "^" + regexp.QuoteMeta(name) + "$" },
	"indent":          func(n int) []struct{} { return make([]struct{}, min(max(n, 0), maxIndent)) },
	// oqlObject tells a query value that is an object, whose id
	// links to its page; oqlText is any value as the table shows it.
	"oqlObject": func(v oql.Value) bool { return v.Kind == oql.KindObject },
	"oqlText":   oql.Value.Text,
	// signed and signedBytes print a change with its sign.
	"signed": func(n int64) string {
		if n > 0 {
			return "+" + humanize.Comma(n)
		}
		return humanize.Comma(n)
	},
	"signedBytes": func(n int64) string {
		switch {
		case n > 0:
			return "+" + humanize.IBytes(uint64(n))
		case n < 0:
			return "−" + humanize.IBytes(uint64(-n))
		}
		return "0 B"
	},
}

// maxIndent is the deepest indentation the dominator tree draws: deeper
// rows are indented as much, their depth still in their place in the
// tree.
const maxIndent = 32

// nameParts cuts a class name after each '.', '$' and '/', the places
// where a narrow window may wrap it (the template puts <wbr> there), so
// that no name breaks inside a word.
func nameParts(name string) []string {
	var parts []string
	start := 0
	for i, c := range name {
		if c == '.' || c == '$' || c == '/' {
			parts = append(parts, name[start:i+1])
			start = i + 1
		}
	}
	return append(parts, name[start:])
}

// classOf is the name of the class page of a class name as the reports
// write it: the class itself, or for a class object ("class NAME") the
// class it stands for; "" for a name that names no class ("<unknown
// class>").
func classOf(name string) string {
	name = strings.TrimPrefix(name, "class ")
	if name == "" || strings.HasPrefix(name, "<") {
		return ""
	}
	return name
}

// WritePage writes p as a whole HTML page to w.
func WritePage(w io.Writer, p Page) error {
	t := servePages[p.templateName()]
	return t.ExecuteTemplate(w, "layout", p)
}
