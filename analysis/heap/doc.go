// Package heap holds the reports hprofctl makes of a loaded heap:
// histogram, info, dominator rows, top consumers, leak suspects,
// collections, duplicate strings, native sizes, show, diff, and the
// labelling of retainer paths. They are functions from a *model.Heap (and
// its graph.Retention) to result values, which never print; the report
// package renders them. They open no file: Collections, DuplicateStrings,
// RegisteredNative and show read object values through the heap
// (model.EachValues and the like), which reads its dump again through
// the reader attached to it.
package heap
