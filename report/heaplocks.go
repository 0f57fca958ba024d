package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
)

// DeadlocksWithHeapLocks renders the deadlock reports as Deadlocks does,
// and the locks of their deadlocks tied to the objects at their addresses
// in the heap dump named heap (threads.TieLocks): in a table, lines under
// a heading naming the heap dump after the reports, one per lock with its
// class and a line per retaining path; in JSON, one document
// {"reports": [...], "heap_dump": heap, "heap_locks": [...]}. CSV writes
// the reports' rows alone.
func DeadlocksWithHeapLocks(w io.Writer, reports []threads.DeadlockReport, heap string, locks []threads.HeapLock, o Options) error {
	return Generate(w, heapLocks{deadlocks(reports), heap, locks}, o)
}

// heapLocks is deadlock reports with the locks of their deadlocks tied to
// the objects of the heap dump named heap, as a Document.
type heapLocks struct {
	reports deadlocks
	heap    string
	locks   []threads.HeapLock
}

// JSON writes the reports, the heap dump and its locks as one object.
func (h heapLocks) JSON(w io.Writer) error {
	locks := h.locks
	if locks == nil {
		locks = []threads.HeapLock{}
	}
	return writeJSON(w, struct {
		Reports  []threads.DeadlockReport `json:"reports"`
		HeapDump string                   `json:"heap_dump"`
		Locks    []threads.HeapLock       `json:"heap_locks"`
	}{h.reports.withLists(), h.heap, locks})
}

// CSV writes the reports' rows.
func (h heapLocks) CSV(w io.Writer, o Options) error { return h.reports.CSV(w, o) }

// Table writes the reports, a heading naming the heap dump, then each
// lock with its class and a line per retaining path.
func (h heapLocks) Table(w io.Writer, o Options) error {
	if err := h.reports.Table(w, o); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLocks of the deadlocks in the heap dump %s:\n", h.heap)
	for _, t := range h.locks {
		if t.Class == "" {
			fmt.Fprintf(&b, "  %s: no object at this address in the heap dump\n", t.Lock.ID)
			continue
		}
		fmt.Fprintf(&b, "  %s %s\n", t.Lock.ID, t.Class)
		for _, rp := range t.Paths {
			fmt.Fprintf(&b, "    retained by: %s\n", lockPath(rp))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lockPath writes a retaining path on one line: the root (its kind, and
// the thread and frame of a stack root), then each step's field and object.
func lockPath(rp heap.RetainerPath) string {
	root := rp.RootKind
	if rp.RootThread != "" {
		root += fmt.Sprintf(" of thread %q", rp.RootThread)
	}
	if rp.RootFrame != "" {
		root += " at " + rp.RootFrame
	}
	steps := []string{root}
	for _, st := range rp.Chain {
		step := st.Class + " " + st.ObjectID
		switch {
		case st.Elided > 0:
			step = st.Via + " " + st.Class // the objects left out
		case st.Via != "":
			step = "." + st.Via + " " + step
		}
		steps = append(steps, step)
	}
	return strings.Join(steps, " -> ")
}
