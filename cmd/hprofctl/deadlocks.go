package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

// Exit statuses of --exit-code: a deadlock found, or only a possible one
// (a heap dump's java.util.concurrent waits that end at a thread blocked on
// a monitor it cannot name).
const (
	deadlockExitCode         = 3
	possibleDeadlockExitCode = 4
)

func newDeadlocksCommand(g *globalFlags) *cobra.Command {
	var exitCode bool
	var heapPath string
	cmd := &cobra.Command{
		Use:   "deadlocks FILE...",
		Short: "Deadlocked threads in thread dumps: the locks, their owners, the stacks",
		Long: `deadlocks reads thread dumps — jstack [-l] or jcmd Thread.print [-l] output, a
SIGQUIT (kill -3) dump inside an application log, a JDK 21+ jcmd
Thread.dump_to_file dump in JSON or plain text, a JVMPI monitor dump capture —
and finds the deadlocks itself, whatever verdict the dump prints.

It builds the wait-for graph: a thread blocked entering a monitor, or parked on
a ReentrantLock or another ownable synchronizer, waits for the thread that
holds it; a thread in Object.wait() waits for nobody. Each cycle is a
deadlock, shown with the lock each thread waits for (kind, class, address or
name), the thread holding it, and each thread's stack down to the frame that
took a lock of the cycle. Threads that wait for a deadlocked thread without
being part of the cycle are listed as blocked behind it.

Dumps that do not record who owns an ownable synchronizer (jstack without -l,
SIGQUIT dumps, Thread.dump_to_file dumps up to JDK 25 at least) cannot prove a
deadlock through a ReentrantLock: threads parked on one are listed apart, as
waits with an unknown owner.

An hprof agent file (java.hprof.txt, or binary) is read for its MONITOR DUMP:
the threads waiting to enter a Java or raw monitor wait for its owner; those
waiting to be notified wait for nobody. A HotSpot heap dump proves only
java.util.concurrent deadlocks: each thread's parkBlocker and the
synchronizer's exclusiveOwnerThread give the edges. No heap dump records who
owns a monitor (HotSpot writes no monitor-used roots after JDK 11), so notes on
stderr say what it cannot tell and suggest a thread dump. Where such waits end
at a thread BLOCKED entering a monitor (Thread.threadStatus), the dump cannot
tell whether a waiting thread holds that monitor: the threads, the lock, the
blocked thread's state and frame are reported as a possible deadlock. With --heap-dump HEAP, a
heap dump taken right after the thread dump, each lock of a deadlock is tied to
the object at its address: its class and the shortest path retaining it.

Every dump of each file is read (a log may hold several); --dump N reads only
the Nth (from 0; -1: the last). JSON is one document: the dump's object, or
{"reports": [...]} with one object per dump; with --heap-dump,
{"reports": [...], "heap_dump", "heap_locks": [...]}.`,
		Example: `  jstack -l 1234 > threads.txt && hprofctl deadlocks threads.txt
  hprofctl deadlocks --exit-code app.log || echo "deadlock or error: $?"
  hprofctl deadlocks -o json threads.json | jq '.deadlocks[].threads[].name'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions()
			if err != nil {
				return err
			}
			for _, name := range g.heaps {
				if _, err := os.Stat(name); err == nil {
					return fmt.Errorf("--heap %s: --heap selects an Android heap by name; give a heap dump of the same moment with --heap-dump", name)
				}
			}
			which := session.AllDumps
			if cmd.Flags().Changed("dump") {
				which = g.dump
			}
			var reports []threads.DeadlockReport
			var errs []error
			for _, path := range args {
				rs, err := fileDeadlocks(g, path, which)
				if err != nil {
					errs = append(errs, err)
				}
				reports = append(reports, rs...)
			}
			if err := writeDeadlocks(cmd, g, heapPath, reports, opt); err != nil {
				return err
			}
			if err := errors.Join(errs...); err != nil {
				return err
			}
			if !exitCode {
				return nil
			}
			switch threads.DeadlockVerdict(reports) {
			case threads.DeadlockFound:
				return &ExitError{Code: deadlockExitCode}
			case threads.OnlyPossibleDeadlocks:
				return &ExitError{Code: possibleDeadlockExitCode}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit with status 3 when a deadlock is found, 4 when only a possible one (heap dumps; 0: none, 1: error)")
	cmd.Flags().StringVar(&heapPath, "heap-dump", "", "a heap dump of the same process and moment (jcmd PID GC.heap_dump -all): show the class and retainers of each deadlock lock")
	return cmd
}

// fileDeadlocks finds the deadlocks of the file at path (see
// session.Deadlocks).
func fileDeadlocks(g *globalFlags, path string, which int) ([]threads.DeadlockReport, error) {
	s, err := g.open(path)
	if err != nil {
		return nil, err
	}
	return s.Deadlocks(which)
}

// writeDeadlocks writes the reports; with a heap dump at heapPath, it
// ties the locks the deadlocks of reports wait for to the objects of that
// dump (session.TieLocks; its last heap dump, whatever --dump says) and
// writes each lock's class and shortest retaining path with them.
func writeDeadlocks(cmd *cobra.Command, g *globalFlags, heapPath string, reports []threads.DeadlockReport, opt report.Options) error {
	if heapPath == "" {
		return report.Deadlocks(cmd.OutOrStdout(), reports, opt)
	}
	s, err := g.open(heapPath, func(o *session.Options) { o.Dump = -1 })
	if err != nil {
		return err
	}
	tied, err := s.TieLocks(reports)
	if err != nil {
		return err
	}
	if tied == nil {
		return report.Deadlocks(cmd.OutOrStdout(), reports, opt)
	}
	return report.DeadlocksWithHeapLocks(cmd.OutOrStdout(), reports, tied.Heap, tied.Locks, opt)
}
