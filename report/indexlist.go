package report

import (
	"fmt"
	"io"
	"time"
)

// CachedIndex is one file of a directory of indexes, as `hprofctl index
// --list` and `--prune` show it.
type CachedIndex struct {
	Index string `json:"index"`
	// Dump is the dump it describes, when the index records it.
	Dump     string    `json:"dump,omitempty"`
	Bytes    int64     `json:"bytes"`
	Modified time.Time `json:"modified"`
	// State is what became of the dump: fresh, stale, dump gone, no
	// record, old version, unusable, abandoned, being built.
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
	// Removed reports that --prune removed it.
	Removed bool `json:"removed"`
}

// IndexList is a directory of indexes, listed or pruned.
type IndexList struct {
	Dir     string        `json:"dir"`
	Indexes []CachedIndex `json:"indexes"`
}

// IndexListing renders a directory of indexes; the table's footer counts
// the files, sums their sizes and counts those removed.
func IndexListing(w io.Writer, l IndexList, o Options) error {
	return Generate(w, indexList{l}, o)
}

// indexList is an IndexList as a Document.
type indexList struct{ IndexList }

// JSON writes the list.
func (l indexList) JSON(w io.Writer) error {
	l.Indexes = nonNil(l.Indexes)
	return writeJSON(w, l.IndexList)
}

// CSV writes a row per file, with exact numbers.
func (l indexList) CSV(w io.Writer, o Options) error { return o.writeCSV(w, l.grid()) }

// Table writes a row per file, sizes made readable, the totals below.
func (l indexList) Table(w io.Writer, o Options) error { return o.writeTable(w, l.grid()) }

func (l indexList) grid() grid {
	g := grid{
		columns: []column{{"index", text, "index"}, {"bytes", bytes, "bytes"}, {"modified", text, "modified"}, {"state", text, "state"}, {"dump", text, "dump"}, {"removed", text, "removed"}},
		none:    fmt.Sprintf("no index in %s", l.Dir),
	}
	var total, removed int64
	for _, c := range l.Indexes {
		state := c.State
		if c.Detail != "" {
			state += ": " + c.Detail
		}
		gone := "no"
		if c.Removed {
			gone = "yes"
			removed++
		}
		g.rows = append(g.rows, []any{c.Index, c.Bytes, c.Modified.UTC().Format(time.DateTime), state, c.Dump, gone})
		total += c.Bytes
	}
	g.footer = []any{fmt.Sprintf("%d in all", len(l.Indexes)), total, "", "", "", fmt.Sprintf("%d removed", removed)}
	return g
}
