// Package analysis holds no code: its subpackages are the analyses
// hprofctl runs over what a dump holds, functions from the model to
// result values that never print (the report package renders them).
// None opens a file: object values are asked of the heap, which reads its
// dump again through the reader attached to it (model.DumpReader).
//
//   - graph: the retention graph's dominator tree and retained sizes,
//     shortest path trees from the GC roots, and their persistence in the
//     index file.
//   - heap: heap reports: histogram, info, dominator rows, top consumers,
//     leak suspects, collections, duplicate strings, native sizes, show,
//     diff, and the labelling of retainer paths.
//   - threads: thread tables, lock state read from a heap, deadlocks and
//     the objects each thread retains.
//   - profile: the tables of an agent profile: allocation sites, CPU and
//     monitors.
//   - oql: the object query language.
package analysis
