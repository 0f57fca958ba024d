package main

import (
	"fmt"

	"github.com/hprofctl/hprofctl/parser/proguard"
)

// mappingFlag is --mapping: the ProGuard/R8 mapping file whose original
// names every heap and profile a command opens is shown with
// (docs/proguard.md), read once however many dumps the command opens.
type mappingFlag struct {
	path    string
	mapping *proguard.Mapping
}

// read returns the mapping, reading the file the first time; nil without
// --mapping. A file that cannot be read or is no mapping is an error.
func (f *mappingFlag) read() (*proguard.Mapping, error) {
	if f.path == "" || f.mapping != nil {
		return f.mapping, nil
	}
	m, err := proguard.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("--mapping: %w", err)
	}
	f.mapping = m
	return m, nil
}
