// Package heap holds the reports hprofctl makes of a loaded heap:
// histogram, info, dominator rows, top consumers, leak suspects,
// collections, duplicate strings, native sizes, show, diff, and the
// labelling of retainer paths. They are functions from a *model.Heap (and
// its graph.Retention) to result values, which never print; the report
// package renders them. Collections, DuplicateStrings and
// RegisteredNative still take the dump's path to read object values.
package heap
