// Package threads holds the thread analyses: thread tables with their
// stacks as reports show them, lock state read from a heap, deadlock
// detection over thread dumps and heaps, and the objects each thread
// retains. Its functions compute result values and never print.
package threads
