package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// Deadlocks renders the deadlock reports of one or more thread dumps.
// JSON is one document: the {"deadlocks", "blocked_behind",
// "owner_unknown", "possible_deadlocks", "source", ...} object of the one
// dump, or {"reports": [...]} with one such object per dump. CSV has one row per thread of a deadlock, blocked behind one, or
// waiting for a lock with an unknown owner. Tables show, per dump, each
// deadlock's threads, their stacks with their lock lines, and the threads
// blocked behind it.
func Deadlocks(w io.Writer, reports []threads.DeadlockReport, o Options) error {
	return Generate(w, deadlocks(reports), o)
}

// deadlocks is the deadlock reports of one or more thread dumps, as a
// Document.
type deadlocks []threads.DeadlockReport

// JSON writes the one dump's object, or {"reports": [...]}.
func (d deadlocks) JSON(w io.Writer) error {
	reports := d.withLists()
	if len(reports) == 1 {
		return writeJSON(w, reports[0])
	}
	return writeJSON(w, struct {
		Reports []threads.DeadlockReport `json:"reports"`
	}{reports})
}

// withLists is the reports with [] rather than null for no possible
// deadlock.
func (d deadlocks) withLists() []threads.DeadlockReport {
	reports := make([]threads.DeadlockReport, len(d))
	for k, r := range d {
		if r.PossibleDeadlocks == nil {
			r.PossibleDeadlocks = []threads.PossibleDeadlock{}
		}
		reports[k] = r
	}
	return reports
}

// Table writes each dump's deadlocks, a blank line between dumps.
func (d deadlocks) Table(w io.Writer, o Options) error {
	for k, r := range d {
		if k > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := deadlocksTable(w, r, o); err != nil {
			return err
		}
	}
	return nil
}

// lockColumns are the columns that describe a waiting thread.
var lockColumns = []column{{"thread", text, "thread"}, {"state", text, "state"}, {"waits for", text, "waiting_for_kind"}, {"lock class", text, "waiting_for_class"}, {"lock", text, "waiting_for_object_id"}, {"held by", text, "held_by"}}

// lockRow is a waiting thread as a row of lockColumns.
func lockRow(name, state string, l threads.LockRef, heldBy string) []any {
	return []any{name, state, strings.ReplaceAll(l.Kind, "_", " "), l.Class, lockName(l), heldBy}
}

// lockName is a lock's address, or its name when it has none.
func lockName(l threads.LockRef) string {
	switch {
	case l.ID != "" && l.Name != "":
		return fmt.Sprintf("%q %s", l.Name, l.ID)
	case l.ID != "":
		return l.ID
	}
	return l.Name
}

// CSV writes one row per thread of a deadlock, blocked behind one,
// possibly deadlocked, or waiting for a lock with an unknown owner.
func (d deadlocks) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"source", text, "source"}, {"deadlock", count, "deadlock"}, {"role", text, "role"}, {"thread", text, "thread"}, {"state", text, "state"},
		{"lock kind", text, "waiting_for_kind"}, {"lock class", text, "waiting_for_class"}, {"lock id", text, "waiting_for_object_id"}, {"lock name", text, "waiting_for_name"}, {"held by", text, "held_by"}}}
	row := func(source string, deadlock any, role, name, state string, l threads.LockRef, heldBy string) {
		g.rows = append(g.rows, []any{source, deadlock, role, name, state, l.Kind, l.Class, l.ID, l.Name, heldBy})
	}
	for _, r := range d {
		for k, dl := range r.Deadlocks {
			for _, t := range dl.Threads {
				row(r.Source, k+1, "deadlocked", t.Name, t.State, t.WaitingFor, t.HeldBy)
			}
		}
		for _, b := range r.BlockedBehind {
			row(r.Source, b.Deadlock+1, "blocked behind", b.Name, b.State, b.WaitingFor, b.HeldBy)
		}
		for _, b := range r.OwnerUnknown {
			row(r.Source, nil, "owner unknown", b.Name, b.State, b.WaitingFor, "")
		}
		for k, p := range r.PossibleDeadlocks {
			row(r.Source, k+1, "possibly deadlocked, blocked on an unnamed monitor", p.Blocked.Name, p.Blocked.State, threads.LockRef{Kind: "monitor"}, "")
			for _, b := range p.Waiting {
				row(r.Source, k+1, "possibly deadlocked, waiting", b.Name, b.State, b.WaitingFor, b.HeldBy)
			}
		}
	}
	return o.writeCSV(w, g)
}

// deadlocksTable writes one dump's deadlocks: each one's threads, their
// stacks and the threads blocked behind it, the possible deadlocks and
// the waits on locks whose owner the dump does not record.
func deadlocksTable(w io.Writer, r threads.DeadlockReport, o Options) error {
	p := &printer{w: w}
	head := fmt.Sprintf("%s: %d threads", r.Source, r.Threads)
	if r.Truncated {
		head += ", cut short (threads after the cut are missing)"
	}
	switch n := len(r.PossibleDeadlocks); {
	case len(r.Deadlocks) == 0 && n == 0:
		p.line("%s, no deadlock", head)
	case len(r.Deadlocks) == 0:
		p.line("%s, no deadlock proven, %s possible", head, plural(n, "deadlock"))
	case n == 0:
		p.line("%s, %s", head, plural(len(r.Deadlocks), "deadlock"))
	default:
		p.line("%s, %s and %d possible", head, plural(len(r.Deadlocks), "deadlock"), n)
	}
	for k, d := range r.Deadlocks {
		p.line("")
		p.line("Deadlock %d: %d threads, each waiting for a lock the next one holds", k+1, len(d.Threads))
		g := grid{columns: lockColumns}
		for _, t := range d.Threads {
			g.rows = append(g.rows, lockRow(t.Name, t.State, t.WaitingFor, t.HeldBy))
		}
		if p.err == nil {
			p.err = o.writeTable(w, g)
		}
		for _, t := range d.Threads {
			p.line("")
			p.stack(t)
		}
		if behind := r.BlockedBehindDeadlock(k); len(behind) > 0 {
			p.line("")
			p.line("Blocked behind deadlock %d (not part of it):", k+1)
			p.blockedTable(behind, o)
		}
	}
	for k, pd := range r.PossibleDeadlocks {
		p.line("")
		p.line("Possible deadlock %d: %q is %s entering a monitor that the heap dump cannot name,", k+1, pd.Blocked.Name, pd.Blocked.State)
		if pd.Blocked.Frame != "" {
			p.line("    at %s,", pd.Blocked.Frame)
		}
		for _, l := range pd.Blocked.Holds {
			p.line("holding %s,", lockText(l))
		}
		p.line("which these threads wait for. If one of them holds that monitor, they are all")
		p.line("deadlocked; a thread dump of the process (jstack -l PID) tells.")
		p.blockedTable(pd.Waiting, o)
	}
	if len(r.OwnerUnknown) > 0 {
		p.line("")
		p.line("Parked on a lock whose owner this dump does not record (a JSON or plain-text")
		p.line("Thread.dump_to_file dump, jstack without -l, or a SIGQUIT dump): a deadlock")
		p.line("through these locks can be neither shown nor ruled out; jstack -l or")
		p.line("jcmd Thread.print -l records the owners.")
		p.blockedTable(r.OwnerUnknown, o)
	}
	return p.err
}

// plural writes a count and a noun, with an s unless the count is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printer writes lines until the first error, which it keeps.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) blockedTable(threads []threads.BlockedThread, o Options) {
	g := grid{columns: lockColumns}
	for _, b := range threads {
		g.rows = append(g.rows, lockRow(b.Name, b.State, b.WaitingFor, b.HeldBy))
	}
	if p.err == nil {
		p.err = o.writeTable(p.w, g)
	}
}

// stack prints a deadlocked thread's stack as a thread dump does, each
// frame followed by its lock lines, then the locks tied to no frame.
func (p *printer) stack(t threads.DeadlockThread) {
	p.line("%q %s, waiting for %s held by %q:", t.Name, t.State, lockText(t.WaitingFor), t.HeldBy)
	for i, f := range t.Frames {
		p.line("    at %s", f)
		for _, l := range t.Locks {
			if l.Frame == i {
				p.line("        - %s %s", lockVerb(l), lockText(threads.LockRefOf(l.Lock)))
			}
		}
	}
	for _, l := range t.Locks {
		if l.Frame < 0 {
			p.line("    %s %s", lockVerb(l), lockText(threads.LockRefOf(l.Lock)))
		}
	}
}

// lockVerb says what a lock line means, in the words of a thread dump.
func lockVerb(l thread.LockUse) string {
	switch l.Action {
	case thread.Holds:
		if l.Lock.Kind == thread.LockSynchronizer {
			return "owns"
		}
		return "locked"
	case thread.Enters:
		return "waiting to lock"
	case thread.Parks:
		return "parked on"
	case thread.WaitsOn:
		return "waiting on"
	}
	return string(l.Action)
}

// lockText renders a lock as thread dumps do: <0x…> (a CLASS), or <NAME>.
func lockText(l threads.LockRef) string {
	s := "<" + lockName(l) + ">"
	if l.Class != "" && l.ID != "" {
		s += " (a " + l.Class + ")"
	}
	if l.Kind == string(thread.LockRawMonitor) {
		s = "raw monitor " + s
	}
	return s
}
