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
the objects a query looks into.`,
		Example: `  hprofctl query heap.hprof "SELECT * FROM java.lang.String s WHERE s.@retainedHeapSize > 1000"
  hprofctl query heap.hprof "SELECT toString(s), s.@retainedHeapSize FROM java.lang.String s WHERE toString(s) LIKE 'jdbc:.*'"
  hprofctl query -o json heap.hprof "SELECT l, l.size, l.elementData.@length FROM java.util.ArrayList l WHERE l.size > 10000"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := oql.Parse(args[1])
			if err != nil {
				return fmt.Errorf("query: %w", err)
			}
			return answer(cmd, g, args[0], func(s *session.Session) (*oql.Result, error) { return s.Query(q, limit) }, report.Query)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most N rows (0: all)")
	return cmd
}
