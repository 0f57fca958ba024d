// Package graph holds the graph indexes of a heap: the dominator tree of
// its strong reference graph with every object's retained size
// (Retention), shortest path trees from the GC roots and the paths they
// give (PathTree, ShortestPaths), and their persistence in the index file
// (WriteIndex, ReadIndex). Its functions take a loaded *model.Heap and
// neither print nor read the dump.
package graph
