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
	if o.Format == JSON {
		return writeJSON(w, r)
	}
	contended := grid{columns: []column{{"rank", count}, {"self", percent}, {"accum", percent}, {"count", count}, {"trace", text}, {"thread", text}, {"monitor", text}}}
	for _, m := range r.Contended {
		contended.rows = append(contended.rows, []any{m.Rank, m.SelfPercent, m.CumPercent, m.Count, traceLabel(m.Trace), m.Thread, m.Monitor})
	}
	dump := grid{columns: []column{{"monitor", text}, {"owner", text}, {"entry count", count}, {"waiting to enter", text}, {"waiting to be notified", text}},
		none: "no monitor in use"}
	for _, m := range r.Monitors {
		dump.rows = append(dump.rows, []any{m.Monitor, m.Owner, int64(m.EntryCount), strings.Join(m.WaitingToEnter, ", "), strings.Join(m.WaitingToBeNotified, ", ")})
	}
	if o.Format == CSV {
		if len(r.Monitors) > 0 {
			return o.render(w, dump)
		}
		return o.render(w, contended)
	}
	if len(r.Contended) == 0 && r.MonitorDumps == 0 {
		dump.none = "no contended monitor and no monitor in use"
		return o.render(w, dump)
	}
	if len(r.Contended) > 0 {
		total := fmt.Sprintf("%s ms of contention", humanize.Comma(r.TotalMS))
		if r.TotalMSMax > r.TotalMS {
			total = fmt.Sprintf("%s to %s ms of contention (the agent printed its total divided by 10^6)", humanize.Comma(r.TotalMS), humanize.Comma(r.TotalMSMax))
		}
		if _, err := fmt.Fprintf(w, "MONITOR TIME: %s\n", total); err != nil {
			return err
		}
		if err := o.render(w, contended); err != nil {
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
	return o.render(w, dump)
}
