package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/profile"
)

// Monitors renders MONITOR TIME (contended monitors by time, with their
// traces) and MONITOR DUMP (owner, entry count, waiters). JSON is one
// object with both; CSV has the contended monitors only when there is no
// MONITOR DUMP, else the dump's monitors.
func Monitors(w io.Writer, r profile.MonitorsReport, o Options) error {
	return Generate(w, monitors{r}, o)
}

// monitors is the monitor contention and state of an agent file, as a
// Document.
type monitors struct{ profile.MonitorsReport }

// JSON writes both tables in one object.
func (r monitors) JSON(w io.Writer) error { return writeJSON(w, r.MonitorsReport) }

// CSV writes the MONITOR DUMP's monitors, or the contended monitors when
// it has none.
func (r monitors) CSV(w io.Writer, o Options) error {
	if len(r.Monitors) > 0 {
		return o.writeCSV(w, r.dump())
	}
	return o.writeCSV(w, r.contended())
}

// Table writes MONITOR TIME with the trace of each monitor below it, then
// MONITOR DUMP, or one line when the file has neither.
func (r monitors) Table(w io.Writer, o Options) error {
	dump := r.dump()
	if len(r.Contended) == 0 && r.MonitorDumps == 0 {
		dump.none = "no contended monitor and no monitor in use"
		return o.writeTable(w, dump)
	}
	if len(r.Contended) > 0 {
		total := fmt.Sprintf("%s ms of contention", humanize.Comma(r.TotalMS))
		if r.TotalMSMax > r.TotalMS {
			total = fmt.Sprintf("%s to %s ms of contention (the agent printed its total divided by 10^6)", humanize.Comma(r.TotalMS), humanize.Comma(r.TotalMSMax))
		}
		if _, err := fmt.Fprintf(w, "MONITOR TIME: %s\n", total); err != nil {
			return err
		}
		if err := o.writeTable(w, r.contended()); err != nil {
			return err
		}
		for _, m := range r.Contended {
			if len(m.Frames) > 0 {
				if err := writeFrames(w, fmt.Sprintf("\n#%d %s, trace %d:", m.Rank, m.Monitor, m.Trace), m.Frames); err != nil {
					return err
				}
			}
		}
	}
	if r.MonitorDumps == 0 {
		return nil
	}
	head := "MONITOR DUMP:\n"
	if r.MonitorDumps > 1 {
		head = fmt.Sprintf("MONITOR DUMP %d of %d:\n", r.MonitorDump+1, r.MonitorDumps)
	}
	if len(r.Contended) > 0 {
		head = "\n" + head
	}
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	return o.writeTable(w, dump)
}

// contended is MONITOR TIME's table.
func (r monitors) contended() grid {
	g := grid{columns: []column{{"rank", count, "rank"}, {"self", percent, "self_percent"}, {"accum", percent, "cumulative_percent"}, {"count", count, "count"}, {"trace", text, "trace"}, {"thread", text, "thread"}, {"monitor", text, "monitor"}}}
	for _, m := range r.Contended {
		g.rows = append(g.rows, []any{m.Rank, m.SelfPercent, m.CumPercent, m.Count, traceLabel(m.Trace), m.Thread, m.Monitor})
	}
	return g
}

// dump is MONITOR DUMP's table.
func (r monitors) dump() grid {
	g := grid{columns: []column{{"monitor", text, "monitor"}, {"owner", text, "owner"}, {"entry count", count, "entry_count"}, {"waiting to enter", text, "waiting_to_enter"}, {"waiting to be notified", text, "waiting_to_be_notified"}},
		none: "no monitor in use"}
	for _, m := range r.Monitors {
		g.rows = append(g.rows, []any{m.Monitor, m.Owner, int64(m.EntryCount), strings.Join(m.WaitingToEnter, ", "), strings.Join(m.WaitingToBeNotified, ", ")})
	}
	return g
}
