package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newQueryCommand(g *globalFlags) *cobra.Command {
	var (
		limit     int
		timeout   time.Duration
		maxMemory string
	)
	cmd := &cobra.Command{
		Use:   "query FILE QUERY",
		Short: "Answer an OQL query (Eclipse MAT's object query language)",
		Long: `query answers a query in Eclipse Memory Analyzer's object query language:

  SELECT [DISTINCT] [OBJECTS | AS RETAINED SET] * | expr [AS name], ...
  FROM [OBJECTS] [INSTANCEOF] class | "regex" | ids | (subquery) [alias]
  [WHERE condition] [UNION (query)]

Expressions: field paths through references (s.value.@length), the
attributes @objectId, @objectAddress, @usedHeapSize, @retainedHeapSize,
@displayName, @length, @clazz, @name (of a class object) and @GCRootInfo,
the functions toString, toHex, classof, dominators, dominatorof, outbounds,
inbounds and sizeof, = != < <= > >=, [NOT] LIKE "regex" (the whole string),
[NOT] IN, AND OR NOT, + - * / %, null, true, false and parentheses.

FROM class takes its instances (INSTANCEOF: of its subclasses too; OBJECTS:
the class object itself); FROM ids the objects, or a class object's
instances. SELECT * and SELECT OBJECTS give one object per row. AS RETAINED
SET gives the objects each selected object retains (its dominator subtree).
Rows come in object order. Field values are read from FILE again, only for
the objects a query looks into.

JSON and CSV rows are written as they are found (on a terminal, stderr
counts them); a table once all are in. --timeout gives up a query that
takes longer (exit status 1; the rows written so far stay), --max-memory
one whose kept rows (a table's, a subquery's, what DISTINCT remembers)
would take more.`,
		Example: `  hprofctl query heap.hprof "SELECT * FROM java.lang.String s WHERE s.@retainedHeapSize > 1000"
  hprofctl query heap.hprof "SELECT toString(s), s.@retainedHeapSize FROM java.lang.String s WHERE toString(s) LIKE 'jdbc:.*'"
  hprofctl query -o json heap.hprof "SELECT l, l.size, l.elementData.@length FROM java.util.ArrayList l WHERE l.size > 10000"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := oql.Parse(args[1])
			if err != nil {
				return fmt.Errorf("query: %w", err)
			}
			bound, err := humanize.ParseBytes(maxMemory)
			if err != nil || bound == 0 || bound > math.MaxInt64 {
				return fmt.Errorf("--max-memory %q: want a size such as 512MiB or 4GB", maxMemory)
			}
			if timeout < 0 {
				return fmt.Errorf("--timeout %s: want a duration of 0 (none) or more", timeout)
			}
			return streamQuery(cmd, g, args[0], q, oql.Options{Limit: limit, MaxBytes: int64(bound)}, timeout)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N rows (0: all)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give the query up after this long, e.g. 30s or 5m (0: never)")
	cmd.Flags().StringVar(&maxMemory, "max-memory", "2GiB", "give the query up when the rows it keeps would take more memory than this")
	return cmd
}

// streamQuery answers q over the dump at path, writing the rows as they
// are found, within timeout (0: none), with a count of the rows on a
// terminal's stderr.
func streamQuery(cmd *cobra.Command, g *globalFlags, path string, q *oql.Query, o oql.Options, timeout time.Duration) error {
	opt, err := g.reportOptions()
	if err != nil {
		return err
	}
	s, err := g.open(path)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	out, err := report.NewQueryStream(cmd.OutOrStdout(), q.Columns(), opt)
	if err != nil {
		return err
	}
	var found atomic.Int64
	if opt.Format != report.Table {
		// A table is written once every row is in: the query keeps them,
		// within --max-memory.
		o.Row = func(row []oql.Value) error {
			found.Add(1)
			return out.Row(row)
		}
		if isTerminal(os.Stderr) {
			defer report.StartCount(os.Stderr, "query", "rows", found.Load).Stop()
		}
	}
	o.Context = ctx
	res, err := s.Query(q, o)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("query: gave up after %s (--timeout), %d rows written", timeout, found.Load())
		}
		var le *oql.LimitError
		if errors.As(err, &le) {
			return fmt.Errorf("query: %w (--max-memory)", err)
		}
		return fmt.Errorf("query: %w", err)
	}
	for _, row := range res.Rows {
		if err := out.Row(row); err != nil {
			return err
		}
	}
	return out.Close()
}
