// Package profile holds the tables of an hprof agent profile: allocation
// sites, CPU samples or times ranked by trace and method, and monitor
// contention. Its functions compute result values and never print.
package profile
