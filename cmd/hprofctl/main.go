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

func main() { os.Exit(run()) }

// run runs the command line and returns the exit status.
func run() int {
	if path := os.Getenv(cpuProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hprofctl:", err)
			return 1
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintln(os.Stderr, "hprofctl:", err)
			}
		}()
	}
	if err := newRootCommand().Execute(); err != nil {
		var exit *ExitError
		if errors.As(err, &exit) {
			return exit.Code
		}
		fmt.Fprintln(os.Stderr, "hprofctl:", err)
		return 1
	}
	return 0
}
