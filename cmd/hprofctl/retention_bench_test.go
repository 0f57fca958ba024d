package main

import "testing"

// retentionTargets are the dumps the retention benchmarks run on.
var retentionTargets = []benchTarget{syntheticTarget, realTarget}

// BenchmarkDominators is `hprofctl dominators`: the object graph, the
// dominator tree and every retained size.
func BenchmarkDominators(b *testing.B) {
	benchCommand(b, retentionTargets, "dominators", "--top", "20", "-o", "json")
}

// BenchmarkLeaks is `hprofctl leaks`: the dominator tree, the suspects and
// the labeled path to each.
func BenchmarkLeaks(b *testing.B) { benchCommand(b, retentionTargets, "leaks", "-o", "json") }

// BenchmarkRetainersClass is `hprofctl retainers --class` for one class:
// the graph, a breadth-first search, merged paths and the second read of
// the dump for the field names.
func BenchmarkRetainersClass(b *testing.B) {
	benchCommand(b, retentionTargets, "retainers", "--class", `^java\.util\.HashMap$`, "-o", "json")
}
