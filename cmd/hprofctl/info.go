package main

import (
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newInfoCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "info FILE",
		Short: "Summarize a dump: format, counts, GC roots, threads and anomalies",
		Long: `info reads the whole dump and reports its format and version, identifier
size, timestamp, record and sub-record counts, objects, classes, GC roots by
kind, threads, the total shallow heap, the JVM layout sizes are computed with,
and every anomaly found (dangling references, truncation, duplicate classes,
unknown records). An Android dump that shows native memory registered to Java
objects (NativeAllocationRegistry) adds their count and total size.`,
		Example: `  hprofctl info heap.hprof
  hprofctl info -o json heap.hprof.gz | jq .gc_roots
  cat heap.hprof | hprofctl info -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answer(cmd, g, args[0], (*session.Session).Info, report.Info)
		},
	}
}
