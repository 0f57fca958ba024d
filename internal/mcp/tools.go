package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/model"
)

// Bounds of every answer: rows per page by default and at most, and at
// most the nested rows of each row (a dominator's children, a stack's
// frames).
const (
	defaultRows = 20
	maxRows     = 500
	maxNested   = 100
	// queryBytes bounds the memory the rows of the queries running at
	// once may take together (Server.queries).
	queryBytes = 256 << 20
)

// question answers a tool's question about one session: the report
// writer of the answer and the page of its rows to show.
type question func(*session.Session) (writer, page, error)

// addTool adds a read-only tool named name: ask turns its input into the
// answer, which the tool returns as structured content and as a summary
// headed by title.
func addTool[In any](s *Server, name, title, desc string, ask func(ctx context.Context, req *sdk.CallToolRequest, in In) (*Answer, error)) {
	open := false
	tool := &sdk.Tool{
		Name:        name,
		Title:       title,
		Description: desc,
		Annotations: &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &open},
	}
	sdk.AddTool(s.srv, tool, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, *Answer, error) {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		a, err := ask(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		res, err := result(title, a)
		return res, a, err
	})
}

// ask opens the file at path (kept open for the next questions) and
// answers q about it within ctx.
func (s *Server) ask(ctx context.Context, req *sdk.CallToolRequest, path string, q question) (*Answer, error) {
	o, err := s.open(ctx, req, path)
	if err != nil {
		return nil, err
	}
	defer o.progress.listen(ctx, req, path)()
	return bounded(ctx, func() (*Answer, error) {
		w, p, err := q(o.Session)
		if err != nil {
			return nil, err
		}
		return answer(o.Name(), w, p)
	})
}

// rows is the page size a tool was asked for: n, or defaultRows when 0,
// at most maxRows.
func rows(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("a count of %d: want 0 (the default, %d) or more", n, defaultRows)
	case n == 0:
		return defaultRows, nil
	}
	return min(n, maxRows), nil
}

// pageOf is the page of limit rows (rows(limit)) from offset.
func pageOf(offset, limit int) (page, error) {
	if offset < 0 {
		return page{}, fmt.Errorf("offset %d: want 0 or more", offset)
	}
	n, err := rows(limit)
	return page{offset: offset, limit: n}, err
}

// orDefault is n, or def when n is 0, at most most.
func orDefault(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}

// regexpOf compiles the regular expression of an input field; nil when
// empty.
func regexpOf(field, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return re, nil
}

// objects looks up the objects of ids (0x-hex or decimal) in the heap of
// ss.
func objects(ss *session.Session, ids []string) ([]model.ObjectIndex, error) {
	if len(ids) > maxRows {
		return nil, fmt.Errorf("%d object ids: at most %d at once", len(ids), maxRows)
	}
	var objs []model.ObjectIndex
	for _, id := range ids {
		digits, base := id, 10
		if h, ok := strings.CutPrefix(strings.ToLower(id), "0x"); ok {
			digits, base = h, 16
		}
		n, err := strconv.ParseUint(digits, base, 64)
		if err != nil {
			return nil, fmt.Errorf("object id %q: want 0x-hex or decimal", id)
		}
		i, err := ss.Lookup(n)
		if errors.Is(err, session.ErrNoSuchObject) {
			return nil, fmt.Errorf("object %s: %w", id, err)
		}
		if err != nil {
			return nil, err
		}
		objs = append(objs, i)
	}
	return objs, nil
}
