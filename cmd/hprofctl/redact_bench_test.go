package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRedact is `hprofctl redact IN OUT`: both reads of the dump, the
// keyed replacement of every value and the writing of OUT, plain and
// gzip-compressed, at each of benchProcs. MB/s is of IN as stored; OUT
// goes to a temporary directory, which should be on a disk as fast as the
// dump's.
func BenchmarkRedact(b *testing.B) {
	bin := benchBinary(b)
	key := filepath.Join(b.TempDir(), "key")
	if err := os.WriteFile(key, []byte("benchmark key, sixteen bytes or more"), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, t := range []benchTarget{syntheticTarget, realTarget, realGzTarget} {
		b.Run(t.name, func(b *testing.B) {
			dump := t.path(b)
			warm(b, dump)
			for _, out := range []string{"out.hprof", "out.hprof.gz"} {
				b.Run(out, func(b *testing.B) {
					dst := filepath.Join(b.TempDir(), out)
					for _, procs := range benchProcs {
						b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
							runArgs(b, bin, dump, procs, []string{"redact", "--key-file", key, dump, dst})
						})
					}
				})
			}
		})
	}
}
