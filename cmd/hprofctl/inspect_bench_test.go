package main

import "testing"

// The questions of issue #11, on the real benchmark dump (its objects,
// Strings and collections are known from the program that made it).

// BenchmarkStrings is `hprofctl strings`: the Strings whose array
// checksums another's shares, read again and grouped by value.
func BenchmarkStrings(b *testing.B) {
	benchCommand(b, []benchTarget{realTarget}, "strings", "-o", "json")
}

// BenchmarkCollections is `hprofctl collections`: every JDK collection's
// fields read again, and the wasteful arrays from the index.
func BenchmarkCollections(b *testing.B) {
	benchCommand(b, []benchTarget{realTarget}, "collections", "-o", "json")
}

// BenchmarkThreadsRetained is `hprofctl threads --retained`: what each
// thread's frames retain.
func BenchmarkThreadsRetained(b *testing.B) {
	benchCommand(b, []benchTarget{realTarget}, "threads", "--retained", "-o", "json")
}

// BenchmarkTopPackages is `hprofctl top --by package`: the top of the
// dominator tree grouped by package.
func BenchmarkTopPackages(b *testing.B) {
	benchCommand(b, []benchTarget{realTarget}, "top", "--by", "package", "-o", "json")
}
