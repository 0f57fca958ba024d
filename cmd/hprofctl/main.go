// Command hprofctl analyzes Java heap, object and monitor dumps: class
// histograms, what retains memory, allocation sites and deadlocks, as
// tables for people or JSON and CSV for scripts.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "hprofctl:", err)
		os.Exit(1)
	}
}
