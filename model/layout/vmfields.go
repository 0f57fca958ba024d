package layout

// word stands, in the tables below, for a field the VM declares as intptr_t:
// an int on a 32-bit VM, a long on a 64-bit one.
const word FieldType = 0xFF

// injection is a set of fields the VM adds to a core class without listing
// them in the class file, so heap dumps do not show them either.
type injection struct {
	class    string
	from, to int    // JDK releases, inclusive; to == 0 means "and later"
	declared int    // applies only if the class declares this many fields; -1: any
	unless   string // applies only if the class declares no field of this name
	fields   []FieldType
}

// injections lists the hidden fields that change instance sizes, by release
// (javaClasses.hpp, *_INJECTED_FIELDS).
var injections = []injection{
	// Before JDK 7 class mirrors had a fixed size, with hidden references:
	// klass and array_klass, plus resolved_constructor from JDK 6.
	{"java.lang.Class", 5, 5, -1, "", []FieldType{Object, Object}},
	{"java.lang.Class", 6, 6, -1, "", []FieldType{Object, Object, Object}},
	// From JDK 7 on the mirror also records its own size and how many of
	// the static fields that follow its instance fields are references.
	// JDK 7: klass, resolved_constructor, array_klass (still heap
	// references into the permanent generation), oop_size,
	// static_oop_field_count.
	{"java.lang.Class", 7, 7, -1, "", []FieldType{Object, Object, Object, Int, Int}},
	// Metaspace pointers klass and array_klass, oop_size,
	// static_oop_field_count; then protection_domain, init_lock and
	// signers (JDK 8), protection_domain and signers (init_lock shares
	// the declared field componentType from JDK 9), plus source_file
	// (JDK 11).
	{"java.lang.Class", 8, 8, -1, "", []FieldType{word, word, Int, Int, Object, Object, Object}},
	{"java.lang.Class", 9, 10, -1, "", []FieldType{word, word, Int, Int, Object, Object}},
	{"java.lang.Class", 11, 23, -1, "", []FieldType{word, word, Int, Int, Object, Object, Object}},
	// JDK 24 declares signers and injects init_lock again; JDK 25 declares
	// protectionDomain too. Left: klass, array_klass, oop_size,
	// static_oop_field_count, source_file, init_lock.
	{"java.lang.Class", 24, 0, -1, "", []FieldType{word, word, Int, Int, Object, Object}},
	{"java.lang.Class", 24, 0, -1, "protectionDomain", []FieldType{Object}},
	// The JVMTI hprof agent leaves out Throwable.backtrace (the HotSpot
	// dumper lists it), which still takes a reference's room.
	{"java.lang.Throwable", 5, 6, 3, "", []FieldType{Object}},
	{"java.lang.Throwable", 7, 8, 4, "", []FieldType{Object}},
	// ClassLoaderData pointer, since the permanent generation went away.
	{"java.lang.ClassLoader", 8, 0, -1, "", []FieldType{word}},
	// JSR 292 method resolution results.
	{"java.lang.invoke.MemberName", 7, 7, -1, "", []FieldType{Object, word}},
	{"java.lang.invoke.MemberName", 8, 8, -1, "", []FieldType{Object, word, word}},
	{"java.lang.invoke.MemberName", 9, 9, -1, "", []FieldType{word, word}},
	{"java.lang.invoke.MemberName", 10, 0, -1, "", []FieldType{word}},
	// vmholder became a declared field in later releases.
	{"java.lang.invoke.ResolvedMethodName", 10, 0, 0, "", []FieldType{word, Object}},
	{"java.lang.invoke.ResolvedMethodName", 10, 0, 1, "", []FieldType{word}},
	{"java.lang.invoke.MethodHandleNatives$CallSiteContext", 8, 11, -1, "", []FieldType{word}},
	{"java.lang.invoke.MethodHandleNatives$CallSiteContext", 12, 0, -1, "", []FieldType{word, word}},
	// Later the dependency list moved into the call site itself, whose
	// declared field "context" went away.
	{"java.lang.invoke.CallSite", 12, 0, 1, "", []FieldType{word, word}},
	// Stack walking: the version of the frame's method.
	{"java.lang.StackFrameInfo", 9, 0, -1, "", []FieldType{Short}},
	// Loom: JVMTI thread state, VTMS transition bookkeeping, JFR epoch.
	{"java.lang.Thread", 19, 0, -1, "", []FieldType{word, Int, Short, Boolean}},
	// ObjectWaiter of a virtual thread blocked in a monitor (JEP 491).
	{"java.lang.VirtualThread", 24, 0, -1, "", []FieldType{word}},
	// Set while an unsafe memory access faults (JDK-8191278).
	{"java.lang.InternalError", 14, 0, -1, "", []FieldType{Boolean}},
	// ModuleEntry pointer.
	{"java.lang.Module", 9, 0, -1, "", []FieldType{word}},
}

// contention lists the core classes that carry @Contended annotations, which
// HotSpot honours for boot classes (RestrictContended only restricts other
// loaders). A class-wide annotation pads before and after all its fields;
// field annotations move the named fields into a padded group of their own.
type contention struct {
	class    string
	from, to int
	group    []string // names of the fields of the one contended group; nil: the whole class
}

var contentions = []contention{
	{"java.lang.Thread", 8, 18, []string{"threadLocalRandomSeed", "threadLocalRandomProbe", "threadLocalRandomSecondarySeed"}},
	{"java.util.concurrent.atomic.Striped64$Cell", 8, 0, nil},
	{"java.util.concurrent.ConcurrentHashMap$CounterCell", 8, 0, nil},
	{"java.util.concurrent.Exchanger$Node", 8, 24, nil},
	{"java.util.concurrent.Exchanger$Slot", 25, 0, nil},
	{"java.util.concurrent.ForkJoinPool", 8, 8, nil},
	{"java.util.concurrent.ForkJoinPool", 17, 24, []string{"ctl"}},
	{"java.util.concurrent.ForkJoinPool", 25, 0, []string{"ctl", "parallelism"}},
	{"java.util.concurrent.ForkJoinPool$WorkQueue", 8, 16, nil},
	{"java.util.concurrent.ForkJoinPool$WorkQueue", 17, 24, []string{"top", "source", "nsteals"}},
	{"java.util.concurrent.ForkJoinPool$WorkQueue", 25, 0, []string{"top", "phase", "stackPred", "source", "nsteals", "parking"}},
	{"java.util.concurrent.SubmissionPublisher$BufferedSubscription", 9, 0, nil},
	{"java.util.concurrent.SubmissionPublisher$BufferedSubscription", 17, 0, []string{"demand", "waiting"}},
}

// contendedPadding is ContendedPaddingWidth, the padding put around
// @Contended fields (128 bytes by default).
const contendedPadding = 128

// inRange reports whether release jdk lies in [from, to] (to == 0: open).
func inRange(jdk, from, to int) bool {
	return jdk >= from && (to == 0 || jdk <= to)
}

// slot is one field to lay out: its type and its index among the declared
// fields of its class (-1 for a field the VM injects).
type slot struct {
	t   FieldType
	idx int
}

// record notes, when off is not nil, that the field was placed at offset at.
func (f slot) record(off []int, at int) {
	if off != nil && f.idx >= 0 {
		off[f.idx] = at
	}
}

// ownFields splits the instance fields the VM lays out for cl into the
// regular ones and one @Contended group, in declaration order (rev: the
// dump lists declared fields last to first), adding the hidden injected
// fields of its release after the declared ones. whole reports a
// class-wide @Contended annotation.
func (c Config) ownFields(cl *Class, rev bool) (regular, group []slot, whole bool) {
	n := len(cl.Fields)
	regular = make([]slot, 0, n)
	for k := range cl.Fields {
		idx := k
		if rev {
			idx = n - 1 - k
		}
		regular = append(regular, slot{cl.Fields[idx], idx})
	}
	if c.JDK == 0 {
		return regular, nil, false
	}
	named := len(cl.Names) == n
	for i := range injections {
		in := &injections[i]
		if in.class != cl.Name || !inRange(c.JDK, in.from, in.to) ||
			(in.declared >= 0 && in.declared != n) ||
			(in.unless != "" && named && contains(cl.Names, in.unless)) {
			continue
		}
		for _, t := range in.fields {
			if t == word {
				t = Int
				if c.Word == 8 {
					t = Long
				}
			}
			regular = append(regular, slot{t, -1})
		}
	}
	for i := range contentions {
		ct := &contentions[i]
		if ct.class != cl.Name || !inRange(c.JDK, ct.from, ct.to) {
			continue
		}
		if ct.group == nil {
			whole = true
			continue
		}
		if !named {
			continue
		}
		var rest []slot
		for _, f := range regular {
			if f.idx >= 0 && contains(ct.group, cl.Names[f.idx]) {
				group = append(group, f)
			} else {
				rest = append(rest, f)
			}
		}
		if group != nil {
			regular = rest
		}
	}
	return regular, group, whole
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
