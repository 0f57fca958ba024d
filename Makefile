# hprofctl — build, test, benchmark, fuzz, lint.
GO ?= go
BIN := bin/hprofctl
FUZZTIME ?= 5m
BENCH_GB ?= 1
STRESS_N ?= 300
STRESS_SEED ?= $(shell date +%s)

.PHONY: build test bench bench-dump bench-huge bench-many fuzz stress lint clean

build:
	$(GO) build -o $(BIN) ./cmd/hprofctl

# The tests CI runs (.ci/run): unit, fixture and corpus tests, the race
# detector off to stay well inside CI's time. cmd's index identity test
# runs every heap command on about 90 dumps three ways (several minutes on
# 2 cores), past go test's default 10-minute limit on a busy machine.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 18m ./...

# Benchmarks: the reader on a generated ~100 MB dump, and histo / the full
# model / redact on a generated $(BENCH_GB) GB dump (MB/s and peak RSS).
bench: build
	HPROFCTL_BENCH_GB=$(BENCH_GB) $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./...

# A realistic synthetic dump of HPROFCTL_HUGE_GIB GiB (default 32: more
# than most machines' memory) written into $$HPROFCTL_BENCH_DIR, indexed
# under --memory $$HPROFCTL_HUGE_MEMORY (default 3GiB), then histo,
# dominators, leaks and retainers from the index: each one's time and
# peak RssAnon and the disk it took, the build's phases, and histo's
# instance counts checked against the writer's. The dump is written
# gzipped as the JVM's -gz dumps are (1 MiB members) when the disk has
# less than 2.4x its size free, or as HPROFCTL_HUGE_GZIP says (1 or 0): the
# run then takes about 1.9x the dump's size on disk, not 2.4x. The dump
# and its index are removed afterwards.
HPROFCTL_HUGE_GIB ?= 32
bench-huge:
	HPROFCTL_HUGE_GIB=$(HPROFCTL_HUGE_GIB) $(GO) test -run '^$$' -bench '^BenchmarkHugeDump$$' -benchtime 1x -timeout 0 -v ./cmd/hprofctl

# A dump of HPROFCTL_MANY_OBJECTS small instances with 4-byte ids (default
# 2^31 + 2^25: past the 2^31 - 9 objects Eclipse MAT stops at), gzipped as
# the JVM's -gz dumps are, indexed under --memory $$HPROFCTL_HUGE_MEMORY
# (default 3GiB), then histo (its counts checked against the writer's),
# dominators and retainers from the index. It takes about 70 bytes of disk
# an object at its peak (about 150 GB at the default) and fails at once
# where the disk has less. The dump and its index are removed afterwards.
HPROFCTL_MANY_OBJECTS ?= 2181038080
bench-many:
	HPROFCTL_MANY_OBJECTS=$(HPROFCTL_MANY_OBJECTS) $(GO) test -run '^$$' -bench '^BenchmarkManyObjects$$' -benchtime 1x -timeout 0 -v ./cmd/hprofctl

# The real HotSpot dump the benchmarks also run on (~2.3 GB, ~40 M objects,
# plain and -gz=1, with the JVM's class histograms): a JDK 17 runs
# testdata/bench and jcmd dumps it into $$HPROFCTL_BENCH_DIR (default
# $$TMPDIR/hprofctl-bench). Never committed. About 1–3 minutes.
bench-dump:
	bash testdata/bench/gen.sh

# Each fuzz target for $(FUZZTIME).
FUZZ_TARGETS := ./parser/hprof:FuzzReader ./parser/hprofascii:FuzzReader \
	./parser/threaddump:FuzzReader ./parser/jvmpi:FuzzHeapDump \
	./parser/jvmpi:FuzzObjectDump ./parser/jvmpi:FuzzMonitorDump \
	./model:FuzzLoad ./model/store:FuzzOpen ./analysis/oql:FuzzParse \
	./parser/proguard:FuzzRead ./parser/hprof/redact:FuzzRedact \
	./parser/hprof:FuzzSkimmer ./internal/session:FuzzIndexSections \
	./model:FuzzLoadInPieces
fuzz:
	for t in $(FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}" || exit 1; \
	done

# The stress test with $(STRESS_N) mutants per input family (make test
# runs a few): hprofctl on cut, bit-flipped, zeroed and shuffled real
# inputs with lengths set to huge values; prints the counts per family.
# STRESS_SEED=N replays a run; STRESS_KEEP=DIR keeps the failing mutants.
stress:
	$(GO) test -count=1 -timeout 0 -v -run '^TestStress$$' ./cmd/hprofctl -stress.n=$(STRESS_N) -stress.seed=$(STRESS_SEED) \
		$(if $(STRESS_KEEP),-stress.keep=$(STRESS_KEEP))

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; exit 1)
	$(GO) vet ./...

clean:
	rm -rf bin
