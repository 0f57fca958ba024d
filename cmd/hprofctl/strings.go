package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newStringsCommand(g *globalFlags) *cobra.Command {
	var so heap.StringOptions
	cmd := &cobra.Command{
		Use:   "strings FILE",
		Short: "Duplicated strings: values held by many String objects, and the bytes the copies waste",
		Long: `strings groups the java.lang.String objects of the heap by value, as Eclipse
MAT's "Group by value", and lists each value held by at least --min-count
Strings: how many Strings hold it and the bytes wasted by the copies, most
wasted first.

Wasted bytes are the shallow sizes of all copies but one: every String of the
value but one, and every value array of the value but one (Strings that share
one array, as JDK 8's new String(String) makes, count it once). They are what
interning or deduplicating the value would free. Values compare as the dump
holds them: the value array's elements and, from JDK 9 on, the coder.

The index keeps a checksum of every array, so only the Strings whose array
another's may equal are read from FILE again, with their arrays, and
compared by their bytes (a plain dump at their offsets, a compressed one
streamed once).`,
		Example: `  hprofctl strings heap.hprof
  hprofctl strings --min-count 100 --top 50 heap.hprof
  hprofctl strings -o json heap.hprof.gz | jq '.[0]'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answer(cmd, g, args[0], func(s *session.Session) (heap.DuplicateStringReport, error) { return s.DuplicateStrings(so) }, report.DuplicateStrings)
		},
	}
	cmd.Flags().IntVar(&so.MinCount, "min-count", 2, "list only values held by at least N Strings")
	cmd.Flags().IntVar(&so.Top, "top", 20, "show only the N values that waste most (0: all)")
	return cmd
}
