# mscclpp-bench build. `make` compiles the CUDA kernels with nvcc into fatbins that the
# Go worker embeds, then builds two binaries into bin/:
#   bin/mscclpp-bench      front end: CLI, reports, compare/plot; no cgo, runs anywhere
#   bin/mscclpp-bench-gpu  GPU worker: links libcuda.so.1 and libmpi.so.40
# and links in bin/ named like nccl-tests' eleven benchmarks (all_reduce_perf, ...) to the
# front end, which runs that collective when started under such a name: with
# PATH=$PWD/bin:$PATH, scripts written for nccl-tests run mscclpp-bench.
# `make test` runs everything that needs no GPU; `make gpu-test` runs the GPU suite on a
# GPU machine under mpirun (`make gpu-test-bin` builds what it runs: bin/ and bin/gputest.test).

NVCC      ?= nvcc
CUDA_HOME ?= /usr
GENCODE   ?= -gencode=arch=compute_80,code=sm_80 \
             -gencode=arch=compute_90,code=sm_90 \
             -gencode=arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3 -std=c++17
GO        ?= go
# A count, not a duration: a duration-based -fuzztime can end in a spurious
# "context deadline exceeded" failure in Go 1.26's fuzz coordinator (golang/go#75804).
FUZZTIME  ?= 200000x
# Targets that parse a whole file or command line cost more per input: fewer inputs each.
FUZZTIME_INPUT ?= 5000x
NP        ?= 2

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0-dev)
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X github.com/mscclpp-bench/mscclpp-bench/internal/version.Version=$(VERSION) \
           -X github.com/mscclpp-bench/mscclpp-bench/internal/version.Commit=$(COMMIT)

# Every .cu file of kernels/ and collectives/ (a collective's folder, a family's), wherever
# it lives, compiles into the fatbin/ folder beside it: adding one needs no edit here.
CU_SRCS  := $(sort $(shell find kernels collectives -name '*.cu' -not -path '*/include/*'))
CU_HDRS  := $(wildcard kernels/include/mscclpp/*)
fatbin_of = $(dir $(1))fatbin/$(basename $(notdir $(1))).fatbin
FATBINS  := $(foreach f,$(CU_SRCS),$(call fatbin_of,$(f)))
# A fatbin whose .cu moved or went away would still be embedded (and clash with the moved
# one's): the worker's and the tests' builds remove such leftovers first.
STALE_FATBINS := $(filter-out $(FATBINS),$(shell find kernels collectives -path '*/fatbin/*.fatbin'))
GO_SRCS  := $(shell find . -name '*.go' -not -path './third_party/*') go.mod go.sum

# Go's build cache does not notice edits of headers outside a package's folder, so the
# shared headers' hash goes into the cgo flags: kernels/layout's C side is then rebuilt
# whenever handles.h changes.
HDR_HASH := $(shell cat $(CU_HDRS) | cksum | cut -d' ' -f1)
export CGO_CFLAGS := -I$(CUDA_HOME)/include -DMB_HEADERS_CKSUM=$(HDR_HASH)

.PHONY: all kernels test vet fuzz gpu-test-bin gpu-test clean nccl-tests-links stale-fatbins

# nccl-tests 2.19.6's benchmark programs (cmd/internal/cli/nccltests_compat.go maps them).
NCCL_TESTS_NAMES := all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf \
                    alltoallv_perf broadcast_perf reduce_perf gather_perf scatter_perf \
                    sendrecv_perf hypercube_perf

all: bin/mscclpp-bench bin/mscclpp-bench-gpu nccl-tests-links

nccl-tests-links: bin/mscclpp-bench
	@for n in $(NCCL_TESTS_NAMES); do ln -sfn mscclpp-bench bin/$$n; done

kernels: $(FATBINS) stale-fatbins

stale-fatbins:
	$(if $(STALE_FATBINS),rm -f $(STALE_FATBINS))

# One rule per .cu file: DIR/NAME.cu -> DIR/fatbin/NAME.fatbin, rebuilt when it, a shared
# header or a header of its own folder (DIR/*.cuh) changes.
define fatbin_rule
$(call fatbin_of,$(1)): $(1) $$(CU_HDRS) $$(wildcard $(dir $(1))*.cuh)
	@mkdir -p $$(@D)
	$$(NVCC) $$(GENCODE) $$(NVCCFLAGS) -Ikernels/include -fatbin -o $$@ $$<
endef
$(foreach f,$(CU_SRCS),$(eval $(call fatbin_rule,$(f))))

bin/mscclpp-bench: $(GO_SRCS)
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $@ ./cmd/mscclpp-bench

bin/mscclpp-bench-gpu: $(GO_SRCS) $(FATBINS) $(if $(STALE_FATBINS),stale-fatbins)
	@mkdir -p bin
	CGO_ENABLED=1 $(GO) build -ldflags '$(LDFLAGS)' -o $@ ./cmd/mscclpp-bench-gpu

vet: $(FATBINS) stale-fatbins
	$(GO) vet ./...
	$(GO) vet -tags gpu ./cmd/mscclpp-bench-gpu/gputest/

# Unit, golden, layout, multi-process and mpirun tests, then each fuzz target briefly.
test: vet
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./bootstrap/ ./channels/...
	$(MAKE) fuzz

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzUniqueIDDecode$$' -fuzztime=$(FUZZTIME) ./bootstrap/
	$(GO) test -run='^$$' -fuzz='^FuzzFrameDecode$$' -fuzztime=$(FUZZTIME) ./bootstrap/
	$(GO) test -run='^$$' -fuzz='^FuzzExpandNodeList$$' -fuzztime=$(FUZZTIME) ./bootstrap/
	$(GO) test -run='^$$' -fuzz='^FuzzHelloDecode$$' -fuzztime=$(FUZZTIME) ./bootstrap/
	$(GO) test -run='^$$' -fuzz='^FuzzParseAddr$$' -fuzztime=$(FUZZTIME) ./bootstrap/
	$(GO) test -run='^$$' -fuzz='^FuzzEndpointDecode$$' -fuzztime=$(FUZZTIME) ./channels/
	$(GO) test -run='^$$' -fuzz='^FuzzRegisteredMemoryDecode$$' -fuzztime=$(FUZZTIME) ./channels/
	$(GO) test -run='^$$' -fuzz='^FuzzTriggerDecode$$' -fuzztime=$(FUZZTIME) ./channels/
	$(GO) test -run='^$$' -fuzz='^FuzzReadJSON$$' -fuzztime=$(FUZZTIME_INPUT) ./results/
	$(GO) test -run='^$$' -fuzz='^FuzzCompareFiles$$' -fuzztime=$(FUZZTIME_INPUT) ./compare/
	$(GO) test -run='^$$' -fuzz='^FuzzLoadSpec$$' -fuzztime=$(FUZZTIME_INPUT) ./acceptance/
	$(GO) test -run='^$$' -fuzz='^FuzzFigureSize$$' -fuzztime=$(FUZZTIME_INPUT) ./plot/
	$(GO) test -run='^$$' -fuzz='^FuzzMain$$' -fuzztime=$(FUZZTIME_INPUT) ./cmd/internal/cli/

# The GPU suite: a Go test binary (build tag gpu) plus checked runs of the benchmark.
gpu-test-bin: all
	CGO_ENABLED=1 $(GO) test -c -tags gpu -o bin/gputest.test ./cmd/mscclpp-bench-gpu/gputest/

gpu-test:
	NP=$(NP) HOSTS=$(HOSTS) scripts/gpu-test.sh

clean:
	rm -rf bin $(FATBINS)
