// Command hprofctl analyzes Java heap, object and monitor dumps: class
// histograms, what retains memory, allocation sites and deadlocks, as
// tables for people or JSON and CSV for scripts.
package main

import (
	"errors"
	"fmt"
	"os"
)

// ExitError makes hprofctl exit with status Code after the command printed
// its output; nothing more is printed.
type ExitError struct {
	Code int
}

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

func main() {
	if err := newRootCommand().Execute(); err != nil {
		var exit *ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.Code)
		}
		fmt.Fprintln(os.Stderr, "hprofctl:", err)
		os.Exit(1)
	}
}
