package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names the environment variable that makes hprofctl write a
// CPU profile of the whole run to the file it names (for benchmarks and
// `go tool pprof`).
const cpuProfileEnv = "HPROFCTL_CPUPROFILE"

// startCPUProfile starts profiling into path and returns the function that
// stops and writes the profile.
func startCPUProfile(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
