package profile

import (
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// ContendedMonitor is one row of MONITOR TIME: a monitor threads waited
// to enter, with the share of the total waiting time and the trace where
// they waited.
type ContendedMonitor struct {
	Rank        int     `json:"rank"`
	Monitor     string  `json:"monitor"`
	SelfPercent float64 `json:"self_percent"`
	CumPercent  float64 `json:"cumulative_percent"`
	Count       int64   `json:"count"`
	Trace       uint32  `json:"trace"`
	// Thread names the thread of the trace, when the file says.
	Thread string               `json:"thread,omitempty"`
	Frames []threads.StackFrame `json:"frames"`
}

// MonitorRow is one monitor of a MONITOR DUMP.
type MonitorRow struct {
	Monitor string `json:"monitor"`
	// Owner names the owning thread, empty when the monitor is unowned.
	Owner               string   `json:"owner"`
	EntryCount          int32    `json:"entry_count"`
	WaitingToEnter      []string `json:"waiting_to_enter"`
	WaitingToBeNotified []string `json:"waiting_to_be_notified"`
}

// MonitorsReport is the monitor contention and the monitor state an agent
// file records.
type MonitorsReport struct {
	// TotalMS and TotalMSMax bound the total contention time of MONITOR
	// TIME (model.MonitorTimeTable); equal when the file gives it whole.
	TotalMS    int64              `json:"total_ms"`
	TotalMSMax int64              `json:"total_ms_max"`
	Contended  []ContendedMonitor `json:"contended"`
	// MonitorDumps counts the file's MONITOR DUMPs; Monitors are those of
	// number MonitorDump (from 0) in use.
	MonitorDumps int          `json:"monitor_dumps"`
	MonitorDump  int          `json:"monitor_dump"`
	Monitors     []MonitorRow `json:"monitors"`
}

// Monitors reads p's MONITOR TIME and MONITOR DUMP into tables.
func Monitors(p *model.Profile, depth int) (MonitorsReport, error) {
	r := MonitorsReport{Contended: []ContendedMonitor{}, Monitors: []MonitorRow{}}
	if p.MonitorTime == nil && p.MonitorDump == nil {
		return r, fmt.Errorf("%s: the file has no MONITOR TIME or MONITOR DUMP section (the agent writes them with monitor=y or cpu=..., ASCII format only)", p.Source.File)
	}
	if t := p.MonitorTime; t != nil {
		r.TotalMS, r.TotalMSMax = t.TotalMS, t.TotalMSMax
		var cum float64
		for i, m := range t.Rows {
			cum += m.Self
			c := ContendedMonitor{Rank: i + 1, Monitor: MonitorLabel(m.Monitor), SelfPercent: m.Self, CumPercent: cum, Count: m.Count, Trace: m.Trace, Frames: []threads.StackFrame{}}
			if tr := p.Trace(m.Trace); tr != nil {
				c.Frames = threads.ReportFrames(tr.Frames, depth)
				if tr.ThreadSerial != 0 {
					c.Thread = threadName(p, tr.ThreadSerial)
				}
			}
			r.Contended = append(r.Contended, c)
		}
	}
	if d := p.MonitorDump; d != nil {
		r.MonitorDumps, r.MonitorDump = p.MonitorDumps, p.MonitorDumpIndex
		for _, m := range d.Monitors {
			row := MonitorRow{Monitor: MonitorLabel(m.Monitor), EntryCount: m.EntryCount,
				WaitingToEnter: threadNames(p, m.WaitingToEnter), WaitingToBeNotified: threadNames(p, m.WaitingToBeNotified)}
			if m.Owned {
				row.Owner = threadName(p, m.Owner)
			}
			r.Monitors = append(r.Monitors, row)
		}
	}
	return r, nil
}

// MonitorsFromJVMPI reads the monitors of a JVMPI monitor dump
// (jvmpi.ReadMonitorDump): each Java and raw monitor with its owner,
// the owner's entry count and the threads waiting to enter it and waiting
// to be notified, named from the capture's side channel.
func MonitorsFromJVMPI(monitors []thread.Monitor) MonitorsReport {
	r := MonitorsReport{Contended: []ContendedMonitor{}, Monitors: []MonitorRow{}, MonitorDumps: 1}
	for _, m := range monitors {
		name := model.MonitorName{Raw: m.Lock.Kind == thread.LockRawMonitor, Name: m.Lock.Name, Class: m.Lock.Class, ID: m.Lock.ID}
		if !name.Raw && name.Class == "" {
			name.Class = "object"
		}
		r.Monitors = append(r.Monitors, MonitorRow{Monitor: MonitorLabel(name), Owner: m.Owner, EntryCount: int32(m.EntryCount),
			WaitingToEnter: append([]string{}, m.Entering...), WaitingToBeNotified: append([]string{}, m.Notified...)})
	}
	return r
}

// MonitorLabel names a monitor for people: its object's class (with the
// id when known), or a raw monitor's name.
func MonitorLabel(m model.MonitorName) string {
	switch {
	case m.Raw:
		return "raw monitor " + m.Name
	case m.ID != 0:
		return fmt.Sprintf("%s@0x%x", m.Class, m.ID)
	case m.Class != "":
		return m.Class
	}
	return m.Name
}

func threadName(p *model.Profile, serial uint32) string {
	if serial == 0 {
		return "<unknown thread>"
	}
	if t := p.Thread(serial); t != nil && t.Name != "" {
		return fmt.Sprintf("%s (%d)", t.Name, serial)
	}
	return fmt.Sprintf("thread %d", serial)
}

func threadNames(p *model.Profile, serials []uint32) []string {
	out := make([]string, len(serials))
	for i, s := range serials {
		out[i] = threadName(p, s)
	}
	return out
}
