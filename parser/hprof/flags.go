package hprof

// The flag bits of the hprof agent's records (docs/hprof.md): the
// CONTROL_SETTINGS word says what the agent recorded, the ALLOC_SITES word
// what kind of site table follows. CPU_SAMPLES and HEAP_SUMMARY carry no
// flags.
const (
	controlAllocTraces uint32 = 0x1 // CONTROL_SETTINGS: allocation traces recorded
	controlCPUSampling uint32 = 0x2 // CONTROL_SETTINGS: CPU sampling on

	sitesIncremental        uint16 = 0x1 // ALLOC_SITES: only the changes since the last table
	sitesSortedByAllocation uint16 = 0x2 // ALLOC_SITES: ordered by allocated, not live, bytes
	sitesGCForced           uint16 = 0x4 // ALLOC_SITES: a GC ran before the table was taken
)

// AllocTraces reports whether the agent recorded the trace at which each
// object was allocated (flag 0x1).
func (c ControlSettings) AllocTraces() bool { return c.Flags&controlAllocTraces != 0 }

// CPUSampling reports whether the agent sampled the threads' stacks for
// CPU time (flag 0x2).
func (c ControlSettings) CPUSampling() bool { return c.Flags&controlCPUSampling != 0 }

// Incremental reports whether the table holds only the sites changed
// since the agent's previous ALLOC_SITES record (flag 0x1).
func (a AllocSites) Incremental() bool { return a.Flags&sitesIncremental != 0 }

// SortedByAllocation reports whether the sites are ordered by the bytes
// they allocated (flag 0x2); without it they are ordered by live bytes.
func (a AllocSites) SortedByAllocation() bool { return a.Flags&sitesSortedByAllocation != 0 }

// GCForced reports whether the agent forced a garbage collection before
// it took the table (flag 0x4).
func (a AllocSites) GCForced() bool { return a.Flags&sitesGCForced != 0 }
