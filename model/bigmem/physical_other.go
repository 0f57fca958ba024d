//go:build !linux

package bigmem

// PhysicalMemory returns the machine's memory in bytes, 0 when unknown
// (always, on this system).
func PhysicalMemory() int64 { return 0 }
