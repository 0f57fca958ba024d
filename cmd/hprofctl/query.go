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
		reachable bool
		timeout   time.Duration
		maxMemory string
	)
	cmd := &cobra.Command{
		Use:   "query FILE QUERY",
		Short: "Answer an OQL query (Eclipse MAT's object query language)",
		Long: `query answers a query in Eclipse Memory Analyzer's object query language:

  SELECT [DISTINCT] [OBJECTS | AS RETAINED SET] * | expr [AS name], ...
  FROM [OBJECTS] [INSTANCEOF] class | "regex" | ids | (subquery) | (expr) [alias]
  [WHERE condition] [UNION (query)]

Expressions: field paths through references (s.value.@length), the
attributes @objectId, @objectIds, @objectAddress, @usedHeapSize,
@retainedHeapSize, @displayName, @length, @clazz, @name (of a class
object), @GCRootInfo, @referenceArray, @valueArray and @info, the functions
toString, toHex, classof, dominators, dominatorof, outbounds, inbounds,
sizeof and eval, = != < <= > >=, [NOT] LIKE "regex" (the whole string),
[NOT] IN, IMPLEMENTS, AND OR NOT, + - * / %, ranges x[a:b] (negative bounds
count from the end; a collection object gives its elements or entries), a
fixed set of methods (length(), size(), get(i), indexOf(s), contains(s),
equals(x), getKey(), getValue() … see docs/oql.md), subqueries (${h} or h
names an outer alias), null, true, false, numbers (1024L, 1.5F, 1E308D)
and strings.

Objects are named by address (0x12a4f0) or by object id (decimal, the
number @objectId gives). FROM class takes its instances (INSTANCEOF: of its
subclasses too; OBJECTS: the class object itself); a class object named by
id, subquery or expression stands for its instances unless OBJECTS. A
class the dump lacks has no instances. SELECT * and SELECT OBJECTS give
one object per row with its class, shallow and retained size. AS RETAINED
SET gives the objects the selected objects retain. Rows come in object
order. Field values are read from FILE again, only for the objects a query
looks into. A field no class declares is an error. docs/oql.md says where
the answers differ from Eclipse MAT's; --reachable counts as MAT does.

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
			return streamQuery(cmd, g, args[0], q, oql.Options{Limit: limit, MaxBytes: int64(bound), Reachable: reachable, Describe: true}, timeout)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N rows (0: all); the answer still says how many there were")
	cmd.Flags().BoolVar(&reachable, "reachable", false, "take into FROM clauses only the objects Eclipse MAT keeps by default: those its GC roots reach, by its rules (docs/mat-conventions.md)")
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
	out, err := report.NewQueryStream(cmd.OutOrStdout(), oql.Columns(q, o), opt)
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
	out.SetTotal(res.Total)
	if err := out.Close(); err != nil {
		return err
	}
	if shown := min(res.Total, max(o.Limit, 0)); o.Limit > 0 && res.Total > shown && opt.Format == report.CSV {
		fmt.Fprintf(cmd.ErrOrStderr(), "hprofctl: query: %d of %d rows (--limit)\n", shown, res.Total)
	}
	return nil
}
