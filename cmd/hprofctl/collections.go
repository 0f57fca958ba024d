package main

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newCollectionsCommand(g *globalFlags) *cobra.Command {
	var co heap.CollectionOptions
	cmd := &cobra.Command{
		Use:   "collections FILE",
		Short: "JDK collections by fill ratio and the bytes their empty slots waste; wasteful arrays",
		Long: `collections measures the JDK's collections and sums them per class: instances,
empty instances (size 0), size, capacity, fill ratio (size / capacity) and
the bytes wasted on empty slots (empty slots times the size of a reference:
4 bytes with compressed oops, else 8; the id size with --size fields).
Subclasses (LinkedHashMap, Stack, a program's own) follow the nearest JDK class.

  HashMap, LinkedHashMap, WeakHashMap   size, table.length (0 while table is null);
  Hashtable (count), ConcurrentHashMap  empty slots are the null buckets
  (baseCount plus its counter cells)
  IdentityHashMap                       size, table.length / 2 (keys and values
                                        side by side); empty: table.length - 2 size
  ArrayList, Vector (elementCount),     size, the backing array's length;
  PriorityQueue, PriorityBlockingQueue, empty: the slots past the size
  ArrayBlockingQueue (count)
  ArrayDeque                            (tail - head) mod elements.length, elements.length
  CopyOnWriteArrayList                  array.length, always full
  TreeMap, LinkedList                   size; linked nodes: capacity = size
  HashSet, LinkedHashSet, TreeSet,      the backing map's, which is then not
  ConcurrentHashMap.KeySetView          counted on its own

Arrays too, per array class: those of length 0, object arrays whose
elements are all null, and primitive arrays of two or more elements all of
one value, with their shallow bytes.

--objects lists each collection and each such array instead. The
collections' fields (and with --objects the constant arrays' values) are
read from FILE again; which arrays are all null or constant the index
knows.`,
		Example: `  hprofctl collections heap.hprof
  hprofctl collections --objects --top 50 heap.hprof
  hprofctl collections -o json heap.hprof.gz | jq '.collections[0]'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write := func(w io.Writer, c heap.CollectionReport, opt report.Options) error {
				return report.Collections(w, c, co.Objects, opt)
			}
			return answer(cmd, g, args[0], func(s *session.Session) (heap.CollectionReport, error) { return s.Collections(co) }, write)
		},
	}
	cmd.Flags().BoolVar(&co.Objects, "objects", false, "list each collection and wasteful array instead of sums per class")
	cmd.Flags().IntVar(&co.Top, "top", 20, "show only the N rows of each list that waste most (0: all)")
	return cmd
}
