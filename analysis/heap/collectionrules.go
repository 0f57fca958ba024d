package heap

// collectionRule says how the JDK class of a collection keeps its size
// and its slots. The facts (which field holds what, per JDK layout) are
// those Eclipse MAT's collection extractors read.
type collectionRule struct {
	// size is the int field that holds the number of elements, "" where
	// it is derived (below).
	size string
	// sizeBox names the field of an object whose int field "value" holds
	// the number of elements (LinkedBlockingQueue's AtomicInteger count).
	sizeBox string
	// fixed, when set, is the size whatever the fields say (a singleton 1).
	fixed bool
	// fixedSize is that size.
	fixedSize int64
	// nonNull are reference fields each of which, when not null, is one
	// element (ImmutableCollections$List12 and Set12).
	nonNull []string
	// bits names a long field whose set bits are the elements
	// (RegularEnumSet); universe the array whose length is then the
	// capacity.
	bits     string
	universe string
	// array is the field of the backing array, "" for a collection of
	// linked nodes (its capacity is its size).
	array string
	// lengthSize marks an array that is exactly full: its length is the
	// size (Arrays$ArrayList, ImmutableCollections$ListN).
	lengthSize bool
	// hashed marks a hash table: its empty slots are the null buckets,
	// as entries that collide share one. Otherwise the slots past the
	// size are empty.
	hashed bool
	// pairs marks a table of keys and values side by side
	// (IdentityHashMap): its capacity is half the array's length.
	pairs bool
	// via names the field of the collection that holds the elements: a
	// set's map, a wrapper's or a view's collection. Size and capacity
	// are that collection's. With owns, it was made for this one (a
	// HashSet's HashMap): its empty slots are counted here and it is not
	// counted apart; otherwise (a view, an unmodifiable wrapper) it is
	// counted on its own and this one wastes nothing.
	via  string
	owns bool
	// parts names an array of sub-collections that together hold the
	// elements (the segments of a JDK 5–7 ConcurrentHashMap); their
	// sizes, capacities and empty slots add up, and they are not counted
	// apart.
	parts string
	// fallback names the JDK class whose rule applies when the collection
	// has no field via or parts names (an older layout: a JDK 5–8
	// Properties is a Hashtable).
	fallback string
	// nodes marks a collection of linked nodes with no size field
	// (ConcurrentLinkedQueue, ConcurrentSkipListMap): its size is the
	// number of nodes reachable through nodes of the classes nodeClasses
	// that hold an element.
	nodes bool
}

// viewOf is the rule of a view or wrapper whose elements are those of
// the collection in field f.
func viewOf(f string) collectionRule { return collectionRule{via: f} }

// ownerOf is the rule of a collection that keeps its elements in a
// collection of its own, in field f.
func ownerOf(f string) collectionRule { return collectionRule{via: f, owns: true} }

// alwaysSize is the rule of a collection of n elements whatever it holds.
func alwaysSize(n int64) collectionRule { return collectionRule{fixed: true, fixedSize: n} }

// collectionRules are the JDK collections Collections knows, by the
// name of the class whose fields it reads; subclasses (LinkedHashMap,
// Stack, a program's own) follow the rule of the nearest one. Sizes
// derived from other fields: ArrayDeque (head and tail),
// ConcurrentHashMap from JDK 8 on (baseCount plus its counter cells),
// CopyOnWriteArrayList (its array is always exactly full).
var collectionRules = map[string]collectionRule{
	// Hash tables.
	"java.util.HashMap":                                   {size: "size", array: "table", hashed: true},
	"java.util.Hashtable":                                 {size: "count", array: "table", hashed: true},
	"java.util.WeakHashMap":                               {size: "size", array: "table", hashed: true},
	"java.lang.ThreadLocal$ThreadLocalMap":                {size: "size", array: "table", hashed: true},
	"java.util.concurrent.ConcurrentHashMap$Segment":      {size: "count", array: "table", hashed: true},
	"java.util.concurrent.ConcurrentHashMap":              {array: "table", hashed: true, parts: "segments", fallback: concurrentHashMap8},
	concurrentHashMap8:                                    {array: "table", hashed: true},
	"java.util.IdentityHashMap":                           {size: "size", array: "table", pairs: true},
	"java.util.ImmutableCollections$MapN":                 {size: "size", array: "table", pairs: true},
	"java.util.ImmutableCollections$SetN":                 {size: "size", array: "elements", hashed: true},
	"java.util.Properties":                                {via: "map", owns: true, fallback: "java.util.Hashtable"},
	"java.util.jar.Attributes":                            ownerOf("map"),
	"javax.script.SimpleBindings":                         ownerOf("map"),
	"javax.management.openmbean.TabularDataSupport":       ownerOf("dataMap"),
	"java.awt.RenderingHints":                             ownerOf("hintmap"),
	"java.beans.beancontext.BeanContextSupport":           ownerOf("children"),
	"sun.awt.WeakIdentityHashMap":                         ownerOf("map"),
	"java.util.HashSet":                                   ownerOf("map"),
	"java.util.TreeSet":                                   ownerOf("m"),
	"java.util.Collections$SetFromMap":                    viewOf("m"),
	"java.util.concurrent.CopyOnWriteArraySet":            ownerOf("al"),
	"java.util.concurrent.ConcurrentSkipListSet":          ownerOf("m"),
	"java.util.concurrent.DelayQueue":                     ownerOf("q"),
	"java.util.concurrent.ConcurrentHashMap$KeySetView":   ownerOf("map"),
	"java.util.concurrent.ConcurrentHashMap$ValuesView":   viewOf("map"),
	"java.util.concurrent.ConcurrentHashMap$EntrySetView": viewOf("map"),
	// Arrays.
	"java.util.ArrayList":                        {size: "size", array: "elementData"},
	"java.util.Vector":                           {size: "elementCount", array: "elementData"},
	"java.util.PriorityQueue":                    {size: "size", array: "queue"},
	"java.util.concurrent.PriorityBlockingQueue": {size: "size", array: "queue"},
	"java.util.concurrent.ArrayBlockingQueue":    {size: "count", array: "items"},
	"java.util.concurrent.CopyOnWriteArrayList":  {array: "array", lengthSize: true},
	"java.util.Arrays$ArrayList":                 {array: "a", lengthSize: true},
	"java.util.ImmutableCollections$ListN":       {array: "elements", lengthSize: true},
	"java.util.ArrayDeque":                       {array: "elements"},
	"java.util.EnumMap":                          {size: "size", array: "vals"},
	"java.util.RegularEnumSet":                   {bits: "elements", universe: "universe"},
	"java.util.JumboEnumSet":                     {size: "size", universe: "universe"},
	// Linked nodes.
	"java.util.TreeMap":                                   {size: "size"},
	"java.util.LinkedList":                                {size: "size"},
	"java.util.concurrent.LinkedBlockingDeque":            {size: "count"},
	"java.util.concurrent.LinkedBlockingQueue":            {sizeBox: "count"},
	"java.util.concurrent.ConcurrentLinkedQueue":          {nodes: true},
	"java.util.concurrent.ConcurrentLinkedDeque":          {nodes: true},
	"java.util.concurrent.LinkedTransferQueue":            {nodes: true},
	"java.util.concurrent.ConcurrentSkipListMap":          {nodes: true},
	"java.util.ArrayList$SubList":                         {size: "size"},
	"java.util.Collections$CopiesList":                    {size: "n"},
	"java.util.ImmutableCollections$List12":               {nonNull: []string{"e0", "e1"}},
	"java.util.ImmutableCollections$Set12":                {nonNull: []string{"e0", "e1"}},
	"java.util.Collections$SingletonList":                 alwaysSize(1),
	"java.util.Collections$SingletonSet":                  alwaysSize(1),
	"java.util.Collections$SingletonMap":                  alwaysSize(1),
	"java.util.ImmutableCollections$List1":                alwaysSize(1),
	"java.util.ImmutableCollections$Set1":                 alwaysSize(1),
	"java.util.Collections$EmptyList":                     alwaysSize(0),
	"java.util.Collections$EmptySet":                      alwaysSize(0),
	"java.util.Collections$EmptyMap":                      alwaysSize(0),
	"java.util.ImmutableCollections$List0":                alwaysSize(0),
	"java.util.ImmutableCollections$Set0":                 alwaysSize(0),
	"java.util.concurrent.SynchronousQueue":               alwaysSize(0),
	"java.util.Collections$UnmodifiableCollection":        viewOf("c"),
	"java.util.Collections$UnmodifiableMap":               viewOf("m"),
	"java.util.Collections$SynchronizedCollection":        viewOf("c"),
	"java.util.Collections$SynchronizedMap":               viewOf("m"),
	"java.util.Collections$CheckedCollection":             viewOf("c"),
	"java.util.Collections$CheckedMap":                    viewOf("m"),
	"java.util.Collections$CheckedMap$CheckedEntrySet":    viewOf("s"),
	"java.util.HashMap$KeySet":                            viewOf("this$0"),
	"java.util.HashMap$Values":                            viewOf("this$0"),
	"java.util.HashMap$EntrySet":                          viewOf("this$0"),
	"java.util.LinkedHashMap$LinkedKeySet":                viewOf("this$0"),
	"java.util.LinkedHashMap$LinkedValues":                viewOf("this$0"),
	"java.util.LinkedHashMap$LinkedEntrySet":              viewOf("this$0"),
	"java.util.Hashtable$KeySet":                          viewOf("this$0"),
	"java.util.Hashtable$ValueCollection":                 viewOf("this$0"),
	"java.util.Hashtable$EntrySet":                        viewOf("this$0"),
	"java.util.WeakHashMap$KeySet":                        viewOf("this$0"),
	"java.util.WeakHashMap$Values":                        viewOf("this$0"),
	"java.util.WeakHashMap$EntrySet":                      viewOf("this$0"),
	"java.util.IdentityHashMap$KeySet":                    viewOf("this$0"),
	"java.util.IdentityHashMap$Values":                    viewOf("this$0"),
	"java.util.IdentityHashMap$EntrySet":                  viewOf("this$0"),
	"java.util.TreeMap$KeySet":                            viewOf("m"),
	"java.util.TreeMap$Values":                            viewOf("this$0"),
	"java.util.TreeMap$EntrySet":                          viewOf("this$0"),
	"java.util.EnumMap$KeySet":                            viewOf("this$0"),
	"java.util.EnumMap$Values":                            viewOf("this$0"),
	"java.util.EnumMap$EntrySet":                          viewOf("this$0"),
	"java.util.concurrent.ConcurrentSkipListMap$KeySet":   viewOf("m"),
	"java.util.concurrent.ConcurrentSkipListMap$Values":   viewOf("m"),
	"java.util.concurrent.ConcurrentSkipListMap$EntrySet": viewOf("m"),
	"java.util.Properties$EntrySet":                       viewOf("entrySet"),
	"java.util.AbstractMap$1":                             viewOf("this$0"),
	"java.util.AbstractMap$2":                             viewOf("this$0"),
	"java.lang.ProcessEnvironment$StringEnvironment":      viewOf("m"),
	"java.lang.ProcessEnvironment$StringEntrySet":         viewOf("s"),
	"java.lang.ProcessEnvironment$StringKeySet":           viewOf("s"),
	"java.lang.ProcessEnvironment$StringValues":           viewOf("c"),
	"java.lang.ProcessEnvironment$CheckedEntrySet":        viewOf("s"),
	"java.lang.ProcessEnvironment$CheckedKeySet":          viewOf("s"),
	"java.lang.ProcessEnvironment$CheckedValues":          viewOf("c"),
}

// concurrentHashMap8 names the rule of a ConcurrentHashMap from JDK 8 on
// (one table, no segments); no class bears the name.
const concurrentHashMap8 = "java.util.concurrent.ConcurrentHashMap (JDK 8+)"

// nodeClasses are, for each collection of linked nodes with no size
// field, the classes of the objects linking its elements.
var nodeClasses = map[string][]string{
	"java.util.concurrent.ConcurrentLinkedQueue": {"java.util.concurrent.ConcurrentLinkedQueue$Node"},
	"java.util.concurrent.ConcurrentLinkedDeque": {"java.util.concurrent.ConcurrentLinkedDeque$Node"},
	"java.util.concurrent.LinkedTransferQueue":   {"java.util.concurrent.LinkedTransferQueue$Node"},
	"java.util.concurrent.ConcurrentSkipListMap": {"java.util.concurrent.ConcurrentSkipListMap$Node",
		"java.util.concurrent.ConcurrentSkipListMap$Index", "java.util.concurrent.ConcurrentSkipListMap$HeadIndex"},
}
