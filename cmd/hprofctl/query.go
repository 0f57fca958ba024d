package main

import (
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newQueryCommand(g *globalFlags) *cobra.Command {
	var limit int
	var reachable bool
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
equals(x), getKey(), getValue() … see docs/oql.md), subqueries, null,
true, false, numbers (1024L, 1.5F, 1E308D) and strings.

Objects are named by address (0x12a4f0) or by object id (decimal, the
number @objectId gives). FROM class takes its instances (INSTANCEOF: of its
subclasses too; OBJECTS: the class object itself); a class object named by
id, subquery or expression stands for its instances unless OBJECTS. A
class the dump lacks has no instances. SELECT * and SELECT OBJECTS give
one object per row with its class, shallow and retained size. AS RETAINED
SET gives the objects the selected objects retain. Rows come in object
order. Field values are read from FILE again, only for the objects a query
looks into. docs/oql.md says where the answers differ from Eclipse MAT's.`,
		Example: `  hprofctl query heap.hprof "SELECT * FROM java.lang.String s WHERE s.@retainedHeapSize > 1000"
  hprofctl query heap.hprof "SELECT toString(s), s.@retainedHeapSize FROM java.lang.String s WHERE toString(s) LIKE 'jdbc:.*'"
  hprofctl query -o json heap.hprof "SELECT l, l.size, l.elementData.@length FROM java.util.ArrayList l WHERE l.size > 10000"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := oql.Parse(args[1])
			if err != nil {
				return fmt.Errorf("query: %w", err)
			}
			var res *oql.Result
			err = answer(cmd, g, args[0], func(s *session.Session) (*oql.Result, error) {
				res, err = s.QueryWith(q, session.QueryOptions{Limit: limit, Reachable: reachable})
				return res, err
			}, report.Query)
			if err == nil && res != nil && res.Total > len(res.Rows) && g.output == "csv" {
				fmt.Fprintf(cmd.ErrOrStderr(), "hprofctl: query: %d of %d rows (--limit)\n", len(res.Rows), res.Total)
			}
			return err
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N rows (0: all); the table's footer and JSON's total count them all")
	cmd.Flags().BoolVar(&reachable, "reachable", false, "take into FROM clauses only objects reachable from the GC roots, as Eclipse MAT counts by default")
	return cmd
}
