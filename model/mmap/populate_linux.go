package mmap

import "syscall"

// populate asks MapRange's mappings to be filled at once, not page by
// page as they are read.
const populate = syscall.MAP_POPULATE
