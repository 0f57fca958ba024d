package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
)

// HeapLocks renders the locks of the deadlocks tied to the objects at
// their addresses in the heap dump named heap (threads.TieLocks), written
// after the deadlock reports: lines under a heading naming the heap dump,
// one per lock with its class and a line per retaining path, or one more
// JSON object {"heap", "locks"} on one line after the reports' stream. CSV
// writes nothing: its rows are the reports'.
func HeapLocks(w io.Writer, heap string, locks []threads.HeapLock, o Options) error {
	return Generate(w, heapLocks{heap, locks}, o)
}

// heapLocks is the locks of the deadlocks tied to the objects of the
// heap dump named heap, as a Document.
type heapLocks struct {
	heap  string
	locks []threads.HeapLock
}

// JSON writes one object {"heap", "locks"} on one line.
func (h heapLocks) JSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(struct {
		Heap  string             `json:"heap"`
		Locks []threads.HeapLock `json:"locks"`
	}{h.heap, h.locks})
}

// CSV writes nothing: the deadlock reports' rows are all there is.
func (h heapLocks) CSV(io.Writer, Options) error { return nil }

// Table writes a heading naming the heap dump, then each lock with its
// class and a line per retaining path.
func (h heapLocks) Table(w io.Writer, _ Options) error {
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
		if st.Via != "" {
			step = "." + st.Via + " " + step
		}
		steps = append(steps, step)
	}
	return strings.Join(steps, " -> ")
}
