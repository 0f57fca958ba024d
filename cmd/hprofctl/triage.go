package main

import (
	"fmt"
	"os"

	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

// triageArgs accepts, for hprofctl without a command, nothing (help) or
// one file to triage; anything else is a command it does not know.
func triageArgs(_ *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case len(args) > 1:
		return fmt.Errorf("unknown command %q for hprofctl (hprofctl --help lists the commands)", args[0])
	}
	if args[0] == "-" {
		return nil
	}
	if _, err := os.Stat(args[0]); err != nil {
		return fmt.Errorf("%q is neither a command nor a file (hprofctl --help lists the commands): %w", args[0], err)
	}
	return nil
}

// runTriage is hprofctl FILE: a first look at the file (session.Triage).
func runTriage(cmd *cobra.Command, g *globalFlags, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	opt, err := g.reportOptions()
	if err != nil {
		return err
	}
	s, err := g.open(args[0])
	if err != nil {
		return err
	}
	t, err := s.Triage()
	if err != nil {
		return err
	}
	return report.WriteTriage(cmd.OutOrStdout(), t, opt)
}
