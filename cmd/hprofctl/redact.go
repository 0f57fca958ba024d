package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof/redact"
	"github.com/spf13/cobra"
)

func newRedactCommand() *cobra.Command {
	var keyFile string
	var keep []string
	var names bool
	cmd := &cobra.Command{
		Use:   "redact IN OUT",
		Short: "Write a copy of an HPROF dump with its values replaced, safe to share",
		Long: `redact writes OUT, a binary HPROF dump of IN's version and identifier size
(gzip-compressed when OUT ends in .gz, in members of 1 MiB of the dump each, as
the JVM's -gz writes them) in which every value is replaced: the
elements of every primitive array (so the characters of every String, thread
name and system property), every primitive instance, static and constant
field, and the thread names of START_THREAD records. IN may be plain, gzip
(also the JVM's -gz) or bzip2, HotSpot, agent or Android; it is read twice,
in constant memory beside its classes and names (a plain file on every core,
its heap records read at their offsets).

Replacement is keyed, with a random key per run unless --key-file gives one:
equal values stay equal and different ones different, lengths, String coders
and arrays whose elements are all equal stay, UTF-16 text stays decodable.
So histo, dominators, leaks, retainers, top, collections and the counts of
strings answer on OUT as on IN; show and the thread names differ in values.

These primitive fields keep their values by default (CLASS.FIELD, the class
that declares the field), because the analyses read them and they hold
sizes and states, not data; --keep-values adds more:
  ` + strings.Join(redact.DefaultKeep, "\n  ") + `
and so do the statics of platform classes that hold Unsafe field offsets
and array bases and shifts (named *Offset, *_OFFSET, in capitals, or base,
scale, shift), which the layout inference reads. String records no record
refers to (HotSpot writes every symbol, string literals too) are left out.

--names replaces the names of the classes outside the platform packages
(` + strings.Join(redact.PlatformPackages, " ") + `), of their fields and of the methods
of their stack frames too, and writes OUT.mapping, a ProGuard mapping back
to the real names: keep it, and give it to --mapping to read OUT with real
names. A summary of what was replaced and kept goes to standard error.`,
		Example: `  hprofctl redact heap.hprof shared.hprof.gz
  hprofctl redact --keep-values com.acme.Cache.limit heap.hprof.gz shared.hprof
  hprofctl redact --names heap.hprof shared.hprof && hprofctl leaks --mapping shared.hprof.mapping shared.hprof`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := redact.Options{Keep: append(slices.Clone(redact.DefaultKeep), keep...), Names: names}
			if keyFile != "" {
				key, err := os.ReadFile(keyFile)
				if err != nil {
					return err
				}
				if len(key) < 16 {
					return fmt.Errorf("--key-file %s: %d bytes, expected at least 16", keyFile, len(key))
				}
				opt.Key = key
			}
			if args[0] == "-" {
				return fmt.Errorf("redact reads IN twice: standard input cannot be read again")
			}
			sum, err := redact.File(args[0], args[1], opt)
			if err != nil {
				return err
			}
			if names {
				if err := os.WriteFile(args[1]+".mapping", []byte(sum.Mapping), 0o600); err != nil {
					os.Remove(args[1])
					return err
				}
			}
			printRedactSummary(cmd.ErrOrStderr(), args[1], sum, names)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&keyFile, "key-file", "", "file whose bytes (at least 16) key the replacement, so that runs agree (default: a random key per run)")
	f.StringArrayVar(&keep, "keep-values", nil, "also keep the values of this primitive field, as CLASS.FIELD (repeatable)")
	f.BoolVar(&names, "names", false, "replace application class, field and method names too, and write OUT.mapping")
	return cmd
}

// printRedactSummary tells what redact replaced and kept.
func printRedactSummary(w io.Writer, out string, s *redact.Summary, names bool) {
	fmt.Fprintf(w, "redact: read %d bytes, wrote %d bytes to %s\n", s.Read, s.Written, out)
	fmt.Fprintf(w, "  replaced:\n")
	for _, t := range slices.Sorted(maps.Keys(s.Arrays)) {
		fmt.Fprintf(w, "    %-26s %12d values %14d bytes\n", t+"[] arrays", s.Arrays[t].Values, s.Arrays[t].Bytes)
	}
	rows := []struct {
		what string
		c    redact.Count
	}{{"instance fields", s.InstanceFields}, {"static fields", s.StaticFields}, {"constant pool values", s.Constants},
		{"unlaid-out instance bytes", s.Opaque}, {"unused strings (left out)", s.UnusedStrings}, {"thread names (records)", s.ThreadNames}, {"new names", s.Names}}
	for _, r := range rows {
		if r.c.Values > 0 || r.what == "instance fields" {
			fmt.Fprintf(w, "    %-26s %12d values %14d bytes\n", r.what, r.c.Values, r.c.Bytes)
		}
	}
	fmt.Fprintf(w, "  kept:\n")
	for _, k := range slices.Sorted(maps.Keys(s.Kept)) {
		fmt.Fprintf(w, "    %-60s %12d values\n", k, s.Kept[k])
	}
	if s.DroppedBytes > 0 {
		fmt.Fprintf(w, "  dropped: %d bytes of unknown and lock-statistics records\n", s.DroppedBytes)
	}
	if names {
		fmt.Fprintf(w, "  mapping: %s.mapping (keep it private; read OUT with --mapping)\n", out)
	}
}
