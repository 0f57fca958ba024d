// Package profile holds the tables of an hprof agent profile: allocation
// sites, CPU samples or times ranked by trace and method (with their call
// tree and, for CPU TIME, each trace's milliseconds), and monitor
// contention. Its functions compute result values and never print.
package profile
