package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/spf13/pflag"
)

// jvmpiFlags describe a bare JVMPI buffer, one with no capture manifest
// beside it (docs/jvmpi.md#bare-buffers).
type jvmpiFlags struct {
	kind      string
	level     int
	idSize    int
	byteOrder string
	// set is the flag set they belong to, to tell given flags from
	// defaults.
	set *pflag.FlagSet
}

// add adds the bare-buffer flags to fs.
func (j *jvmpiFlags) add(fs *pflag.FlagSet) {
	j.set = fs
	fs.StringVar(&j.kind, "jvmpi", "", "read FILE as a bare JVMPI buffer (no capture manifest beside it): heap, object or monitor; a manifest beside FILE wins over the JVMPI flags (a note on stderr says where they disagree)")
	fs.IntVar(&j.level, "level", 2, "with --jvmpi heap: the dump level, 0, 1 or 2; without class layouts level 1 and 2 are read up to the first class dump")
	fs.IntVar(&j.idSize, "id-size", 0, "with --jvmpi: the pointer width, 4 or 8 (required)")
	fs.StringVar(&j.byteOrder, "byte-order", "big", "with --jvmpi: big, little, or ids-little (little-endian pointers, big-endian scalars: HotSpot on x86)")
}

// options returns the description of the bare buffer at path the flags
// give, nil without --jvmpi or when a capture manifest describes path (a
// note on stderr then says where the flags disagree with it). The other
// JVMPI flags without --jvmpi are an error.
func (j *jvmpiFlags) options(path string, stderr io.Writer) (*jvmpi.Options, error) {
	if j.kind == "" {
		for _, name := range []string{"level", "id-size", "byte-order"} {
			if j.set != nil && j.set.Changed(name) {
				return nil, fmt.Errorf("--%s describes a bare JVMPI buffer: give --jvmpi heap|object|monitor too", name)
			}
		}
		return nil, nil
	}
	kind, err := jvmpi.ParseKind(j.kind)
	if err != nil {
		return nil, fmt.Errorf("--jvmpi: %w", err)
	}
	opt := jvmpi.Options{Kind: kind, Level: j.level, IDSize: j.idSize}
	if opt.IDOrder, opt.ScalarOrder, err = jvmpi.ParseByteOrders(j.byteOrder); err != nil {
		return nil, fmt.Errorf("--byte-order: %w", err)
	}
	if j.idSize != 4 && j.idSize != 8 {
		return nil, fmt.Errorf("--jvmpi needs --id-size 4 or 8: a buffer does not say its pointer width")
	}
	switch {
	case kind == jvmpi.HeapDump && (j.level < 0 || j.level > 2):
		return nil, fmt.Errorf("--level %d: expected 0, 1 or 2", j.level)
	case kind != jvmpi.HeapDump && j.set != nil && j.set.Changed("level"):
		return nil, fmt.Errorf("--level applies to --jvmpi heap only: a JVMPI %s has no level", kind)
	}
	if kind != jvmpi.HeapDump {
		opt.Level = 2
	}
	if manifest, ok := input.CaptureManifest(path); ok {
		if c, err := jvmpi.LoadCapture(manifest); err == nil {
			if diff := c.Disagreements(opt); len(diff) > 0 {
				fmt.Fprintf(stderr, "hprofctl: note: %s describes %s and wins over the JVMPI flags, which say: %s\n", manifest, path, strings.Join(diff, "; "))
			}
		}
		return nil, nil
	}
	return &opt, nil
}
