package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
)

// ThreadsInput asks for the threads.
type ThreadsInput struct {
	FileInput
	PageInput
	Depth    int  `json:"depth,omitempty" jsonschema:"frames of each stack (default 20, at most 100)"`
	Retained bool `json:"retained,omitempty" jsonschema:"add what each thread retains and each frame's locals (HotSpot heap dumps)"`
}

// MonitorsInput asks for the monitor contention and state.
type MonitorsInput struct {
	FileInput
	Depth int `json:"depth,omitempty" jsonschema:"frames of each stack trace (default 20, at most 100)"`
}

// ProfileInput asks for a ranking of an agent profile.
type ProfileInput struct {
	FileInput
	PageInput
	By    string `json:"by,omitempty" jsonschema:"sites: site (default), class, trace or method; cpu: trace (default) or method"`
	Sort  string `json:"sort,omitempty" jsonschema:"sites only: live (default) or alloc"`
	Depth int    `json:"depth,omitempty" jsonschema:"frames of each stack trace (default 20, at most 100)"`
}

// DiffInput asks what changed between two dumps.
type DiffInput struct {
	Old        string `json:"old" jsonschema:"the older heap dump, under the roots"`
	New        string `json:"new" jsonschema:"the newer heap dump of the same application, under the roots"`
	Top        int    `json:"top,omitempty" jsonschema:"classes of each list (default 20, at most 500)"`
	NoRetained bool   `json:"no_retained,omitempty" jsonschema:"compare the histograms only, without the dominator trees"`
}

// QueryInput asks an OQL query.
type QueryInput struct {
	FileInput
	Query string `json:"query" jsonschema:"the OQL query, e.g. SELECT s FROM java.lang.String s WHERE s.@retainedHeapSize > 1000"`
	Limit int    `json:"limit,omitempty" jsonschema:"rows at most (default 20, at most 500)"`
}

// defaultDepth is the frames of each stack a tool shows by default.
const defaultDepth = 20

func (s *Server) addMoreTools() {
	addTool(s, "threads", "Threads", "List the threads with their states and stacks; with retained, what each retains (hprofctl threads).", s.threads)
	addTool(s, "deadlocks", "Deadlocks", "Find the deadlocks of a thread dump, an hprof agent file's MONITOR DUMP or a heap dump's java.util.concurrent locks: the cycle of threads and locks (hprofctl deadlocks).", s.deadlocks)
	addTool(s, "monitors", "Monitors", "Read the monitor contention and state of an hprof agent file (MONITOR TIME, MONITOR DUMP) or a JVMPI monitor dump: who owns, who waits (hprofctl monitors).", s.monitors)
	addTool(s, "sites", "Allocation sites", "Rank the allocation sites of an hprof agent file, or of a heap dump with allocation traces (hprofctl sites).", s.sites)
	addTool(s, "cpu", "CPU profile", "Rank the stack traces, or methods, of an hprof agent file's CPU samples or times (hprofctl cpu).", s.cpu)
	addTool(s, "diff", "Diff of two dumps", "Compare two heap dumps of the same application: the classes that grew, the new and the gone, and what grew in retained size (hprofctl diff).", s.diff)
	addTool(s, "query", "OQL query", "Answer an OQL query: SELECT … FROM class WHERE …, with @retainedHeapSize, @objectId, toString(s) and more (hprofctl query).", s.query)
}

func (s *Server) threads(ctx context.Context, req *sdk.CallToolRequest, in ThreadsInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	to := session.ThreadOptions{Depth: orDefault(in.Depth, defaultDepth, maxNested), Retained: in.Retained}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		rows, err := ss.Threads(to)
		p.total = len(rows)
		return bind(report.Threads, rows), p, err
	})
}

func (s *Server) deadlocks(ctx context.Context, req *sdk.CallToolRequest, in FileInput) (*Answer, error) {
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		reports, err := ss.Deadlocks(session.AllDumps)
		return bind(report.Deadlocks, reports), page{}, err
	})
}

func (s *Server) monitors(ctx context.Context, req *sdk.CallToolRequest, in MonitorsInput) (*Answer, error) {
	depth := orDefault(in.Depth, defaultDepth, maxNested)
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		r, err := ss.Monitors(depth)
		return bind(report.Monitors, r), page{}, err
	})
}

func (s *Server) sites(ctx context.Context, req *sdk.CallToolRequest, in ProfileInput) (*Answer, error) {
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	so := profile.SiteOptions{By: in.By, Sort: in.Sort, Depth: orDefault(in.Depth, defaultDepth, maxNested), Top: p.want()}
	if so.By == "" {
		so.By = "site"
	}
	if so.Sort == "" {
		so.Sort = "live"
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		r, err := ss.Sites(so)
		p.total = r.Sites
		return bind(report.Sites, r), p, err
	})
}

func (s *Server) cpu(ctx context.Context, req *sdk.CallToolRequest, in ProfileInput) (*Answer, error) {
	if err := session.CheckCPUBy(in.By); err != nil {
		return nil, err
	}
	if in.Sort != "" {
		return nil, errors.New("sort: only sites takes it")
	}
	p, err := pageOf(in.Offset, in.Top)
	if err != nil {
		return nil, err
	}
	co := profile.CPUOptions{Depth: orDefault(in.Depth, defaultDepth, maxNested), Top: p.want()}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		r, err := ss.CPU(co)
		if in.By == "method" {
			return bind(report.CPUMethods, r), p, err
		}
		p.total = r.Traces
		return bind(report.CPU, r), p, err
	})
}

func (s *Server) diff(ctx context.Context, req *sdk.CallToolRequest, in DiffInput) (*Answer, error) {
	n, err := rows(in.Top)
	if err != nil {
		return nil, err
	}
	older, err := s.open(ctx, req, in.Old)
	if err != nil {
		return nil, fmt.Errorf("old: %w", err)
	}
	newer, err := s.open(ctx, req, in.New)
	if err != nil {
		return nil, fmt.Errorf("new: %w", err)
	}
	defer older.progress.listen(ctx, req, in.Old)()
	defer newer.progress.listen(ctx, req, in.New)()
	return bounded(ctx, func() (*Answer, error) {
		d, err := session.Diff(older.Session, newer.Session, !in.NoRetained, heap.DiffOptions{Top: n})
		if err != nil {
			return nil, err
		}
		cut := len(d.Classes) < d.ChangedClasses || len(d.Retained) < d.ChangedRetained
		return answer(older.Name()+" → "+newer.Name(), bind(report.Diff, d), page{cut: cut})
	})
}

func (s *Server) query(ctx context.Context, req *sdk.CallToolRequest, in QueryInput) (*Answer, error) {
	q, err := oql.Parse(in.Query)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	limit, err := rows(in.Limit)
	if err != nil {
		return nil, err
	}
	return s.ask(ctx, req, in.Path, func(ss *session.Session) (writer, page, error) {
		res, err := ss.Query(q, oql.Options{Limit: limit, Context: ctx, Pool: s.queries})
		if err != nil {
			return nil, page{}, err
		}
		return bind(report.Query, res), page{limit: limit, listed: len(res.Rows)}, nil
	})
}
