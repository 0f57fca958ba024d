package web

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/report/html"
)

// Limits bound what one request may cost the server. The zero value of a
// field takes its default (DefaultLimits).
type Limits struct {
	// Request is how long a request may take before it is given up
	// (answered 503); a request also stops when its client goes away.
	Request time.Duration
	// Write is how long writing an answer may take once it is ready, so
	// that clients that do not read cannot hold one in memory.
	Write time.Duration
	// Heavy is how many requests compute at once; the others wait for a
	// turn within their deadline. Four per core: most answers are quick
	// (kept, or a page of rows), and a few slow ones must not hold every
	// turn; the bound is on the memory of answers in the making.
	Heavy int
	// Rows is the most rows a list answers (top, limit, max-referrers,
	// elements): asking more, or all (0), is refused with 400.
	Rows int
	// QueryBytes bounds the memory the rows of the queries computing at
	// once may take together (one oql.Pool): so many heavy queries at
	// once take no more than one.
	QueryBytes int64
	// CacheBytes bounds the answers kept for later requests, in bytes
	// estimated from their rows.
	CacheBytes int64
}

// DefaultLimits are the limits of a server unless its options say
// otherwise.
var DefaultLimits = Limits{
	Request:    2 * time.Minute,
	Write:      30 * time.Second,
	Heavy:      4 * runtime.GOMAXPROCS(0),
	Rows:       10000,
	QueryBytes: 256 << 20,
	CacheBytes: 256 << 20,
}

// withDefaults fills l's zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Request > 0 {
		d.Request = l.Request
	}
	if l.Write > 0 {
		d.Write = l.Write
	}
	if l.Heavy > 0 {
		d.Heavy = l.Heavy
	}
	if l.Rows > 0 {
		d.Rows = l.Rows
	}
	if l.QueryBytes > 0 {
		d.QueryBytes = l.QueryBytes
	}
	if l.CacheBytes > 0 {
		d.CacheBytes = l.CacheBytes
	}
	return d
}

// bounded runs h with the request's deadline, once a turn to compute is
// free, and gives the answer a deadline to be written in.
func (s *Server) bounded(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.limits.Request)
		defer cancel()
		select {
		case s.turns <- struct{}{}:
		case <-ctx.Done():
			s.failFor(w, r, ctx.Err())
			return
		}
		defer func() { <-s.turns }()
		// Not every ResponseWriter takes a deadline (a test's recorder);
		// the server's own connections do.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.limits.Request + s.limits.Write))
		h(w, r.WithContext(ctx))
	}
}

// failFor answers err as the page or the API answers errors, by the
// request's path.
func (s *Server) failFor(w http.ResponseWriter, r *http.Request, err error) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeAPIError(w, err)
		return
	}
	s.fail(w, err)
}

// stoppedAnswer is the answer to a request whose context ended: given up
// past its deadline (503), or its client gone (nothing to tell anyone,
// but a status all the same).
func stoppedAnswer(err error) (*httpError, bool) {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &httpError{http.StatusServiceUnavailable, "the answer took longer than the server allows a request: ask a narrower question, or use the command line"}, true
	case errors.Is(err, context.Canceled):
		return &httpError{499, "the client went away"}, true
	}
	return nil, false
}

// queryAnswer is the answer to an OQL query that failed with err, when
// the query is at fault (400).
func queryAnswer(err error) (*httpError, bool) {
	var (
		qe *oql.Error
		le *oql.LimitError
		se *oql.SyntaxError
	)
	if errors.As(err, &qe) || errors.As(err, &le) || errors.As(err, &se) {
		return &httpError{http.StatusBadRequest, err.Error()}, true
	}
	return nil, false
}

// rowsParam parses the query parameter name as a count of rows from 1 to
// the server's limit; def when absent. 0, all rows elsewhere, is refused:
// the server answers bounded lists only.
func (s *Server) rowsParam(r *http.Request, name string, def int) (int, error) {
	n, err := intParam(r, name, def)
	if err != nil {
		return 0, err
	}
	if n == 0 || n > s.limits.Rows {
		return 0, badRequest("%s=%d: the server lists 1 to %d rows (the command line lists all)", name, n, s.limits.Rows)
	}
	return n, nil
}

// statusPage is a page answered with a status other than 200 (a query
// page showing the query's error).
type statusPage struct {
	html.Page
	status int
}
