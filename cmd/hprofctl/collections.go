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

Each JDK class is read as its layout has it (JDK 5–8 and 9+ differ); the
fields are those Eclipse MAT reads.

  HashMap, LinkedHashMap, WeakHashMap,  size, table.length (0 while table is null);
  Hashtable (count), ThreadLocalMap,    empty slots are the null buckets
  ConcurrentHashMap$Segment (count),
  ConcurrentHashMap JDK 8+ (baseCount
  plus its counter cells),
  ImmutableCollections$SetN
  ConcurrentHashMap JDK 5–7             the sums over its segments, which are
                                        then not counted on their own
  IdentityHashMap, ImmutableCollections table.length / 2 (keys and values
  $MapN                                 side by side); empty: table.length - 2 size
  ArrayList, Vector (elementCount),     size, the backing array's length;
  PriorityQueue, PriorityBlockingQueue, empty: the slots past the size
  ArrayBlockingQueue (count), EnumMap
  ArrayDeque                            (tail - head) mod elements.length, elements.length
  CopyOnWriteArrayList, Arrays$ArrayList, the array's length, always full
  ImmutableCollections$ListN
  RegularEnumSet, JumboEnumSet          the elements' bits (size), universe.length
  TreeMap, LinkedList, LinkedBlocking-  size (count; count.value); linked nodes:
  Deque, LinkedBlockingQueue,           capacity = size
  ArrayList$SubList, Collections$CopiesList (n)
  ConcurrentLinkedQueue, -Deque,        the linked nodes that hold an element
  LinkedTransferQueue, ConcurrentSkipListMap
  Collections$Singleton*, Immutable-    1; 0 for Collections$Empty*, Immutable-
  Collections$List1, Set1, List12, Set12 Collections$List0, Set0, SynchronousQueue
  (1 or 2: the elements not null)
  HashSet, LinkedHashSet, TreeSet,      the collection they keep their elements
  CopyOnWriteArraySet, ConcurrentSkip-  in (map, m, al, q, children, hintmap,
  ListSet, DelayQueue,                  dataMap), which is then not counted on
  ConcurrentHashMap$KeySetView,         its own; a JDK 9+ Properties keeps its
  Properties (JDK 9+), jar.Attributes,  entries in a ConcurrentHashMap (map), a
  SimpleBindings, TabularDataSupport,   JDK 5–8 one is a Hashtable
  RenderingHints, BeanContextSupport
  Collections$Unmodifiable*,            the size and capacity of the collection
  Synchronized*, Checked* wrappers,     they show (c, m, s, this$0), which is
  Collections$SetFromMap; the key,      counted on its own: a view wastes nothing
  value and entry views of the
  maps above; ProcessEnvironment views

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
