package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newShowCommand(g *globalFlags) *cobra.Command {
	var so heap.ShowOptions
	cmd := &cobra.Command{
		Use:   "show FILE ID...",
		Short: "One object in full: sizes, GC roots, field values, elements, referrers",
		Long: `show prints each object: its class, shallow and retained size, whether and how
it is a GC root (kind, thread and frame), and every field with its type and
value (instance fields over the class chain, the class's own first; the static
fields of a class object). References show the object's id and class, and a
short text where there is one: a String's value (JDK 8 char[], JDK 9+ byte[]
with coder), a boxed number, an enum's or a Thread's name, a byte[] or char[]
that is printable text. An array shows its length and its first --elements.

--referrers lists the references to the object: the object holding each and
the field, [index] or static field it goes through, in object order, the first
--max-referrers of them (0: all), and how many there are in all
("referrers_total" in JSON). --path adds a shortest path from a GC root: the
one of the breadth-first tree of shortest paths (which the index keeps, and
leaks shows), whose last step is the first object in that order to reference
it. retainers --object may show another path of the same length.

IDs are 0x-hex or decimal. Values come from a second read of FILE (of the
copy kept of standard input).`,
		Example: `  hprofctl show heap.hprof 0x7a1b2c3d8
  hprofctl show --referrers --path heap.hprof 0x7a1b2c3d8 0x7a1b2c400
  hprofctl show --elements 100 -o json heap.hprof.gz 0x7a1b2c3d8 | jq '.fields'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			show := func(s *session.Session) ([]heap.ShowObject, error) {
				objs, err := objectIndexes(s, args[1:], "object id", "object")
				if err != nil {
					return nil, err
				}
				return s.Show(objs, so)
			}
			return answer(cmd, g, args[0], show, report.Show)
		},
	}
	cmd.Flags().IntVar(&so.Elements, "elements", 10, "list an array's first N elements")
	cmd.Flags().BoolVar(&so.Referrers, "referrers", false, "list the objects that reference it, with the field or index")
	cmd.Flags().IntVar(&so.MaxReferrers, "max-referrers", 100, "with --referrers, list the first N references (0: all); the total is counted anyway")
	cmd.Flags().BoolVar(&so.Path, "path", false, "add a shortest path from a GC root")
	return cmd
}

// objectIndexes looks up the objects of ids as given (0x-hex or decimal)
// in the session's heap; an id that does not parse is named after
// parseName, one the dump lacks after name.
func objectIndexes(s *session.Session, ids []string, parseName, name string) ([]model.ObjectIndex, error) {
	var objs []model.ObjectIndex
	for _, id := range ids {
		n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(id), "0x"), base(id), 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%s %q: larger than any 64-bit id", parseName, id)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %q: expected 0x and hexadecimal digits, as hprofctl prints ids (0x7a1b2c3d8), or a decimal number", parseName, id)
		}
		i, err := s.Lookup(n)
		if errors.Is(err, session.ErrNoSuchObject) {
			return nil, fmt.Errorf("%s %s: %w", name, id, err)
		}
		if err != nil {
			return nil, err
		}
		objs = append(objs, i)
	}
	return objs, nil
}

// base is the number base of an object id as given: 16 with "0x".
func base(s string) int {
	if strings.HasPrefix(strings.ToLower(s), "0x") {
		return 16
	}
	return 10
}
