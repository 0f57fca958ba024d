package session

import (
	"fmt"
	"strconv"
	"strings"
)

// OptionError is a value an option of a question cannot take. The
// command line and the web API check their options through the same
// session methods and name the option each its own way: Error writes it
// as the flag (--sort "size"), Param as the query parameter
// (sort="size").
type OptionError struct {
	// Option is the option's name, Value the value given (quoted when it
	// is text), Want what the option takes.
	Option, Value, Want string
}

// Error names the option as a command-line flag.
func (e *OptionError) Error() string {
	return fmt.Sprintf("--%s %s: want %s", e.Option, e.Value, e.Want)
}

// Param names the option as a query parameter.
func (e *OptionError) Param() string {
	return fmt.Sprintf("%s=%s: want %s", e.Option, e.Value, e.Want)
}

// textOption is the error of option given the text value.
func textOption(option, value, want string) *OptionError {
	return &OptionError{Option: option, Value: strconv.Quote(value), Want: want}
}

// checkCount refuses a count below least.
func checkCount(option string, n, least int) error {
	if n >= least {
		return nil
	}
	return &OptionError{Option: option, Value: strconv.Itoa(n), Want: fmt.Sprintf("%d or more", least)}
}

// MinThresholdPercent is the smallest leak threshold, in percent. The
// suspects a threshold finds retain disjoint parts of the heap, each more
// than the threshold, so there are fewer than 100/threshold of them: at
// most 10,000, whose paths and classes an answer can hold.
const MinThresholdPercent = 0.01

// ParseThreshold reads a leak threshold, a percentage from
// MinThresholdPercent to 100 ("10" or "10%"), as a share of 1.
func ParseThreshold(threshold string) (float64, error) {
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(threshold), "%"), 64)
	if err != nil || !(pct >= MinThresholdPercent && pct <= 100) {
		return 0, textOption("threshold", threshold, "a percentage from 0.01 to 100")
	}
	return pct / 100, nil
}

// CheckCPUBy checks what a CPU profile is ranked by: stack traces or
// methods ("" is traces).
func CheckCPUBy(by string) error {
	switch by {
	case "", "trace", "method":
		return nil
	}
	return textOption("by", by, "trace or method")
}

// checkHistogramSort checks a histogram's order; native lists the native
// order among those it takes, which every dump takes but only those that
// show native sizes make sense of.
func checkHistogramSort(sort string, native bool) error {
	switch sort {
	case "", "bytes", "count", "name", "native":
		return nil
	}
	if native {
		return textOption("sort", sort, "bytes, count, name or native")
	}
	return textOption("sort", sort, "bytes, count or name")
}
