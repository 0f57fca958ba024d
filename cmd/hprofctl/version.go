package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the hprofctl version",
		Example: "  hprofctl version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "hprofctl", versionString())
			return err
		},
	}
}

// versionString is hprofctl's version: the one set at build time, else
// what the binary's build information says (versionFrom).
func versionString() string {
	if version != "" {
		return version
	}
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom is the version build information gives: the main module's
// version (go install of a release, or of a commit: a pseudo-version),
// else the commit the binary was built from ("+dirty" when the work tree
// had changes), else "devel".
func versionFrom(bi *debug.BuildInfo) string {
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "+dirty"
	}
	return "devel-" + revision
}
