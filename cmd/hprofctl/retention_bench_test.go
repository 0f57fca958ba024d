package main

import "testing"

// BenchmarkDominators is `hprofctl dominators` on a ~1 GB dump: the object
// graph, the dominator tree and every retained size.
func BenchmarkDominators(b *testing.B) { benchCommand(b, "dominators", "--top", "20", "-o", "json") }

// BenchmarkRetainersClass is `hprofctl retainers --class` for one class
// on a ~1 GB dump: the graph, a breadth-first search, merged paths and the
// second read of the dump for the field names.
func BenchmarkRetainersClass(b *testing.B) {
	benchCommand(b, "retainers", "--class", `^java\.util\.HashMap$`, "-o", "json")
}
