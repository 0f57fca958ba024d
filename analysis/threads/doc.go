// Package threads holds the thread analyses: thread tables with their
// stacks as reports show them, lock state read from a heap (its JVMTI
// thread states decoded) and an agent's MONITOR DUMP, both as thread.Dump
// values (model/thread), deadlock detection over thread dumps and heaps,
// and the objects each thread retains. Its functions compute result
// values and never print.
package threads
