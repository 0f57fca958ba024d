package hprof_test

import (
	"bytes"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestControlSettingsFlags reads the CONTROL_SETTINGS flag word as
// docs/hprof.md describes it: 0x1 allocation traces, 0x2 CPU sampling.
func TestControlSettingsFlags(t *testing.T) {
	for _, c := range []struct {
		flags                    uint32
		allocTraces, cpuSampling bool
	}{
		{0, false, false},
		{0x1, true, false},
		{0x2, false, true},
		{0x3, true, true},
		{0xFFFFFFFC, false, false},
	} {
		cs := hprof.ControlSettings{Flags: c.flags}
		if cs.AllocTraces() != c.allocTraces || cs.CPUSampling() != c.cpuSampling {
			t.Errorf("flags 0x%x: AllocTraces %v, CPUSampling %v; want %v, %v",
				c.flags, cs.AllocTraces(), cs.CPUSampling(), c.allocTraces, c.cpuSampling)
		}
	}
}

// TestAllocSitesFlags reads the ALLOC_SITES flag word as docs/hprof.md
// describes it: 0x1 incremental, 0x2 sorted by allocation rather than by
// live bytes, 0x4 a GC was forced.
func TestAllocSitesFlags(t *testing.T) {
	for _, c := range []struct {
		flags                             uint16
		incremental, byAllocation, forced bool
	}{
		{0, false, false, false},
		{0x1, true, false, false},
		{0x2, false, true, false},
		{0x4, false, false, true},
		{0x6, false, true, true},
		{0x7, true, true, true},
		{0xFFF8, false, false, false},
	} {
		a := hprof.AllocSites{Flags: c.flags}
		if a.Incremental() != c.incremental || a.SortedByAllocation() != c.byAllocation || a.GCForced() != c.forced {
			t.Errorf("flags 0x%x: Incremental %v, SortedByAllocation %v, GCForced %v; want %v, %v, %v", c.flags,
				a.Incremental(), a.SortedByAllocation(), a.GCForced(), c.incremental, c.byAllocation, c.forced)
		}
	}
}

// TestFlagsRead checks the accessors on records the Reader decoded from
// a dump: the agent's usual CONTROL_SETTINGS (allocation traces and CPU
// sampling on) and a site table sorted by allocation after a forced GC.
func TestFlagsRead(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{Version: "1.0.1", IDSize: 4})
	w.ControlSettings(0x3, 4)
	w.AllocSites(hproftest.AllocSites{Flags: 0x6})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := hprof.NewReader(bytes.NewReader(buf.Bytes()), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var control, sites bool
	for r.Next() {
		rec := r.Record()
		switch rec.Tag {
		case hprof.TagControlSettings:
			control = true
			if cs := rec.ControlSettings; !cs.AllocTraces() || !cs.CPUSampling() {
				t.Errorf("CONTROL_SETTINGS 0x3: AllocTraces %v, CPUSampling %v; want both", cs.AllocTraces(), cs.CPUSampling())
			}
		case hprof.TagAllocSites:
			sites = true
			if a := rec.AllocSites; a.Incremental() || !a.SortedByAllocation() || !a.GCForced() {
				t.Errorf("ALLOC_SITES 0x6: Incremental %v, SortedByAllocation %v, GCForced %v; want false, true, true",
					a.Incremental(), a.SortedByAllocation(), a.GCForced())
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !control || !sites {
		t.Errorf("read CONTROL_SETTINGS %v, ALLOC_SITES %v; want both", control, sites)
	}
}
