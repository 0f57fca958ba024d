package threaddump_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// FuzzReader reads arbitrary input, seeded with the fixture dumps of every
// format: the Reader must not panic, must end in nil or a *FormatError,
// must keep the threads of a dump it yields consistent (every lock line
// tied to a frame the thread has), and the deadlock analysis must run on
// whatever it yields.
func FuzzReader(f *testing.F) {
	for _, path := range fixtures(f, "jdk*") {
		data := readFile(f, path)
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	f.Add([]byte(`{"threadDump": {"threadContainers": [{"threads": [{"tid": 1, "name": "a", "parkBlocker": {"object": "X@1", "owner": "1"}, "stack": []}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := threaddump.NewReader(bytes.NewReader(data), threaddump.Options{Name: "fuzz"})
		for r.Next() {
			d := r.Dump()
			for _, th := range d.Threads {
				for _, l := range th.Locks {
					if l.Frame < -1 || l.Frame >= len(th.Frames) {
						t.Fatalf("thread %q: lock %+v tied to frame %d of %d", th.Name, l.Lock, l.Frame, len(th.Frames))
					}
				}
			}
			rep := threads.FindDeadlocks(d)
			for _, dl := range rep.Deadlocks {
				if len(dl.Threads) == 0 {
					t.Fatal("empty deadlock")
				}
			}
		}
		var fe *threaddump.FormatError
		if err := r.Err(); err != nil && !errors.As(err, &fe) {
			t.Fatalf("error %v (%T) is not a FormatError", err, err)
		}
	})
}
