package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
)

// FileInput names the file a tool asks about.
type FileInput struct {
	Path string `json:"path" jsonschema:"the file: a heap dump (.hprof, .hprof.gz), a thread dump or an hprof agent file, under the server's roots (relative: to the first root)"`
}

// PageInput is the page of rows a tool shows.
type PageInput struct {
	Top    int `json:"top,omitempty" jsonschema:"rows to show (default 20, at most 500)"`
	Offset int `json:"offset,omitempty" jsonschema:"rows to skip: the next_offset of the previous page"`
}

// HistogramInput asks for the class histogram.
type HistogramInput struct {
	FileInput
	PageInput
	Sort  string `json:"sort,omitempty" jsonschema:"order: bytes (default), count, name or native"`
	Match string `json:"match,omitempty" jsonschema:"only classes whose name matches this regular expression"`
}

// DominatorsInput asks for the dominator tree.
type DominatorsInput struct {
	FileInput
	PageInput
	Class    string `json:"class,omitempty" jsonschema:"only instances of classes whose name matches this regular expression"`
	Children int    `json:"children,omitempty" jsonschema:"immediately dominated objects listed per row (default 10, at most 100)"`
	ByClass  bool   `json:"by_class,omitempty" jsonschema:"group the rows per class"`
	Object   string `json:"object,omitempty" jsonschema:"an object id (0x-hex): list the objects it immediately dominates instead of the top of the tree"`
}

// LeaksInput asks for the leak suspects.
type LeaksInput struct {
	FileInput
	Threshold string `json:"threshold,omitempty" jsonschema:"report what retains more than this percentage of the heap, 0.01 to 100 (default 10)"`
	Classes   int    `json:"classes,omitempty" jsonschema:"the biggest classes listed beneath each suspect (default 5)"`
}

// RetainersInput asks for the paths from the GC roots to objects.
type RetainersInput struct {
	FileInput
	Class       string   `json:"class,omitempty" jsonschema:"target every instance of the classes matching this regular expression"`
	Objects     []string `json:"objects,omitempty" jsonschema:"target these object ids (0x-hex or decimal)"`
	Paths       int      `json:"paths,omitempty" jsonschema:"paths per target object, or merged paths for class (default 3)"`
	IncludeWeak bool     `json:"include_weak,omitempty" jsonschema:"also follow weak, soft, phantom and final references"`
}

// ShowInput asks to describe objects.
type ShowInput struct {
	FileInput
	Objects      []string `json:"objects" jsonschema:"the object ids (0x-hex or decimal)"`
	Elements     int      `json:"elements,omitempty" jsonschema:"an array's first N elements (default 10)"`
	Referrers    bool     `json:"referrers,omitempty" jsonschema:"list the objects that reference it"`
	MaxReferrers int      `json:"max_referrers,omitempty" jsonschema:"with referrers, the first N references (default 20)"`
	RootPath     bool     `json:"root_path,omitempty" jsonschema:"add a shortest path from a GC root"`
}

// StringsInput asks for the duplicate Strings.
type StringsInput struct {
	FileInput
	PageInput
	MinCount int `json:"min_count,omitempty" jsonschema:"only values held by at least N Strings (default 2)"`
}

// CollectionsInput asks for the wasteful collections.
type CollectionsInput struct {
	FileInput
	Top     int  `json:"top,omitempty" jsonschema:"rows of each list (default 20, at most 500); a full list counts as cut"`
	Objects bool `json:"objects,omitempty" jsonschema:"list each collection and array instead of per class"`
}

// TopInput asks for the top consumers.
type TopInput struct {
	FileInput
	PageInput
	By string `json:"by,omitempty" jsonschema:"group by class (default), classloader or package"`
}

func (s *Server) addHeapTools() {
	addTool(s, "open", "Open", "Open a file under the roots and say what it holds. A heap dump is indexed (once; the index is kept beside it or in the index directory), so that every later question answers in about a second; the answer is the index summary, for other files the overview.", s.openTool)
	addTool(s, "overview", "Overview", "Sum up a file: format, JVM, object and class counts, GC roots, anomalies (hprofctl info).", func(ctx context.Context, req *sdk.CallToolRequest, in FileInput) (*Answer, error) {
		return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
			info, err := ss.Info()
			return bind(report.Info, info), page{}, err
		})
	})
	addTool(s, "histogram", "Class histogram", "Count the objects per class: instances and shallow bytes, biggest first (hprofctl histo).", s.histogram)
	addTool(s, "dominators", "Dominators", "List the objects that retain most (the top of the dominator tree), or with object the objects a given object immediately dominates (hprofctl dominators).", s.dominators)
	addTool(s, "leak_suspects", "Leak suspects", "Find what retains more than a share of the heap, the accumulation point beneath it and the path that keeps it alive (hprofctl leaks).", s.leaks)
	addTool(s, "retainers", "Paths from GC roots", "Find the shortest paths from the GC roots to objects (by id) or to the instances of classes: why they are alive (hprofctl retainers).", s.retainers)
	addTool(s, "show", "Show object", "Describe objects: class, sizes, GC roots, field values (a String's value), array elements, referrers, a path from a GC root (hprofctl show).", s.show)
	addTool(s, "duplicate_strings", "Duplicate strings", "Group the Strings by value: what interning or deduplicating would free (hprofctl strings).", s.duplicateStrings)
	addTool(s, "collections", "Collection waste", "Measure collections and arrays: empty, sparse, all-null or constant, and the bytes they waste (hprofctl collections).", s.collections)
	addTool(s, "top_consumers", "Top consumers", "Group what the top of the dominator tree retains by class, class loader or package (hprofctl top).", s.topConsumers)
}

// bind binds the data v to the report writer write.
func bind[T any](write func(io.Writer, T, report.Options) error, v T) writer {
	return func(w io.Writer, o report.Options) error { return write(w, v, o) }
}

func (s *Server) openTool(ctx context.Context, req *sdk.CallToolRequest, in FileInput) (*Answer, error) {
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		switch kind := ss.Format().Kind; kind {
		case input.KindHPROF:
			sum, err := ss.BuildIndex(false)
			return bind(report.Index, sum), page{}, err
		case input.KindThreadDumpText, input.KindThreadDumpJSON:
			dumps, err := ss.ThreadDumps(session.AllDumps)
			held := threadDumpsHeld{Format: kind.String(), Dumps: len(dumps), Tools: []string{"threads", "deadlocks"}}
			return func(w io.Writer, _ report.Options) error { return json.NewEncoder(w).Encode(held) }, page{}, err
		}
		info, err := ss.Info()
		return bind(report.Info, info), page{}, err
	})
}

// threadDumpsHeld is what open says of a file of thread dumps, which no
// command sums up.
type threadDumpsHeld struct {
	Format string   `json:"format"`
	Dumps  int      `json:"dumps"`
	Tools  []string `json:"tools"`
}

func (s *Server) histogram(ctx context.Context, req *sdk.CallToolRequest, in HistogramInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	ho := heap.HistoOptions{Sort: in.Sort, Top: p.want()}
	if ho.Match, err = regexpOf("match", in.Match); err != nil {
		return nil, err
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		h, err := ss.Histogram(ho)
		p.total = h.MatchedClasses
		return bind(report.Histogram, h), p, err
	})
}

func (s *Server) dominators(ctx context.Context, req *sdk.CallToolRequest, in DominatorsInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	do := heap.DominatorOptions{Top: p.want(), Children: orDefault(in.Children, 10, maxNested), ByClass: in.ByClass}
	if do.Class, err = regexpOf("class", in.Class); err != nil {
		return nil, err
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		if in.Object == "" {
			d, err := ss.Dominators(do)
			p.total = d.Selected
			return bind(report.Dominators, d), p, err
		}
		objs, err := objects(ss, []string{in.Object})
		if err != nil {
			return nil, p, err
		}
		d, err := ss.DominatedBy(objs[0], do)
		p.total = d.Report.Selected
		return bind(report.Dominators, d.Report), p, err
	})
}

func (s *Server) leaks(ctx context.Context, req *sdk.CallToolRequest, in LeaksInput) (*Answer, error) {
	threshold := in.Threshold
	if threshold == "" {
		threshold = "10"
	}
	share, err := session.ParseThreshold(threshold)
	if err != nil {
		return nil, err
	}
	lo := session.LeakOptions{Threshold: share, Classes: orDefault(in.Classes, 5, maxNested)}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		l, err := ss.Leaks(lo)
		return bind(report.Leaks, l.Report), page{}, err
	})
}

func (s *Server) retainers(ctx context.Context, req *sdk.CallToolRequest, in RetainersInput) (*Answer, error) {
	if (in.Class == "") == (len(in.Objects) == 0) {
		return nil, errors.New("give either class (a regular expression) or objects (ids)")
	}
	ro := graph.RetainerOptions{Paths: orDefault(in.Paths, 3, maxNested), IncludeWeak: in.IncludeWeak}
	var err error
	if ro.Class, err = regexpOf("class", in.Class); err != nil {
		return nil, err
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		if ro.Objects, err = objects(ss, in.Objects); err != nil {
			return nil, page{}, err
		}
		r, err := ss.Retainers(ro)
		return bind(report.Retainers, r), page{}, err
	})
}

func (s *Server) show(ctx context.Context, req *sdk.CallToolRequest, in ShowInput) (*Answer, error) {
	if len(in.Objects) == 0 {
		return nil, errors.New("give the ids of the objects to show")
	}
	so := heap.ShowOptions{Elements: orDefault(in.Elements, 10, maxRows), Referrers: in.Referrers, MaxReferrers: orDefault(in.MaxReferrers, 20, maxRows), Path: in.RootPath}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		objs, err := objects(ss, in.Objects)
		if err != nil {
			return nil, page{}, err
		}
		shown, err := ss.Show(objs, so)
		return bind(report.Show, shown), page{}, err
	})
}

func (s *Server) duplicateStrings(ctx context.Context, req *sdk.CallToolRequest, in StringsInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	so := heap.StringOptions{MinCount: orDefault(in.MinCount, 2, math.MaxInt), Top: p.want()}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		d, err := ss.DuplicateStrings(so)
		p.total = d.Groups
		return bind(report.DuplicateStrings, d), p, err
	})
}

func (s *Server) collections(ctx context.Context, req *sdk.CallToolRequest, in CollectionsInput) (*Answer, error) {
	n, err := rows(in.Top)
	if err != nil {
		return nil, err
	}
	co := heap.CollectionOptions{Objects: in.Objects, Top: n}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		c, err := ss.Collections(co)
		write := func(w io.Writer, c heap.CollectionReport, o report.Options) error {
			return report.Collections(w, c, co.Objects, o)
		}
		full := slices.Contains([]int{len(c.Classes), len(c.Arrays), len(c.Objects), len(c.ArrayObjects)}, n)
		return bind(write, c), page{cut: full}, err
	})
}

func (s *Server) topConsumers(ctx context.Context, req *sdk.CallToolRequest, in TopInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	to := heap.TopOptions{By: in.By, Top: p.want()}
	if to.By == "" {
		to.By = heap.ByClass
	}
	if err := to.Check(); err != nil {
		return nil, err
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		t, err := ss.TopConsumers(to)
		p.total = t.Groups
		return bind(report.TopConsumers, t), p, err
	})
}
