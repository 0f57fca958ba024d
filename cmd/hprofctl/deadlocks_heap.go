package main

import (
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

// agentDeadlocks reads the lock state of f, an hprof agent file or a heap
// dump read from path: the MONITOR DUMP of an hprof agent file (ASCII or
// binary), or else the java.util.concurrent lock state of a heap dump,
// whose limits it prints as notes on stderr. A binary file's heap comes
// from its index where one can be used (g.load); --dump selects the heap
// dump of a file holding several.
func agentDeadlocks(cmd *cobra.Command, g *globalFlags, f *input.File, kind input.Kind, path string) ([]threads.DeadlockReport, error) {
	var (
		p   *model.Profile
		h   *model.Heap
		err error
	)
	if kind == input.KindHPROF {
		if h, err = g.load(path, true); err != nil {
			return nil, err
		}
		p = h.Profile()
	} else if p, h, err = model.LoadProfile(f, model.LoadOptions{Dump: g.dump, Objects: true}); err != nil {
		return nil, err
	} else if err = g.mapping.deobfuscate(p, h); err != nil {
		return nil, err
	}
	if d := threads.MonitorDumpThreads(p); d != nil {
		r := threads.FindDeadlocks(d)
		r.Source = f.Name + " (MONITOR DUMP)"
		return []threads.DeadlockReport{r}, nil
	}
	if h == nil {
		return nil, fmt.Errorf("%s: the hprof agent file has no MONITOR DUMP", f.Name)
	}
	hl, err := threads.ReadHeapLocks(h)
	if err != nil {
		return nil, err
	}
	r, notes := threads.HeapDeadlocks(hl)
	r.Source = f.Name + " (heap dump)"
	for _, n := range notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "hprofctl: note: %s: %s\n", f.Name, n)
	}
	return []threads.DeadlockReport{r}, nil
}

// writeHeapLocks ties the locks the deadlocks of reports wait for to the
// objects at their addresses in the heap dump at heapPath, taken from the
// same process at the same moment (jcmd GC.heap_dump -all runs no GC, so
// objects keep their addresses), and writes each lock's class and shortest
// retaining path after the reports (report.HeapLocks; CSV writes nothing
// more, so the heap dump is not read for it).
func writeHeapLocks(cmd *cobra.Command, g *globalFlags, heapPath string, reports []threads.DeadlockReport, opt report.Options) error {
	locks := threads.DeadlockLocks(reports)
	if len(locks) == 0 || opt.Format == report.CSV {
		return nil
	}
	h, _, err := g.openDump(heapPath, -1, true)
	if err != nil {
		return err
	}
	p := graph.ShortestPaths(h, graph.RetainerOptions{Objects: threads.LockObjects(h, locks), Paths: 1})
	labels, err := model.ReadLabels(h, p.Sources(h))
	if err != nil {
		return err
	}
	names, err := model.ReadStrings(h, p.ThreadNameStrings(h, labels))
	if err != nil {
		return err
	}
	tied := threads.TieLocks(h, locks, heap.DescribePaths(h, p, false, labels, names))
	return report.HeapLocks(cmd.OutOrStdout(), h.Source.File, tied, opt)
}
