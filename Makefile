# gpuhash: GPU hash joins for PostgreSQL 15.
#
#   make                 build gpuhash.so (C through PGXS, CUDA through nvcc)
#   make install         install into the PostgreSQL that pg_config names
#   make installcheck    pg_regress against a running server
#   make test-core       unit tests of the hash tables (GPU + host twin)
#   make bench           build and run the hash-table benchmark (needs a GPU)
#   make bench-multi-gpu probing a table partitioned over the GPUs (needs GPUs)
#   make bench-chain     the multi-level probe on TPC-H's snowflake (needs a GPU)
#   make bench-page      the page walk over lineitem-like heap pages (GPU and host twin)
#   make bench-agg       partial aggregation over lineitem-like heap pages (GPU and host twin)
#   make bench-cuco CUCO_DIR=.../include
#                        bench's grid on cuCollections, to compare (needs a GPU)
#
# The CUDA runtime is linked statically, so the .so loads and works on a
# machine without a CUDA installation or GPU (the host twin then runs).
#
# Without nvcc (a fresh Debian 12 has none: its main archive ships no CUDA)
# the host twin alone is built: cuda/gpu_absent.cpp stands in for the .cu
# files, finds no GPU and says "built without CUDA".  HAVE_NVCC=no forces it.

MODULE_big = gpuhash
EXTENSION = gpuhash
DATA = sql/gpuhash--1.0.sql sql/gpuhash--1.1.sql sql/gpuhash--1.0--1.1.sql
PGFILEDESC = "gpuhash - GPU hash joins"

# Run in this order; every file runs unchanged on the GPU and on the host twin.
REGRESS = gpuhash_init gpuhash_exact_keys gpuhash_join_shapes gpuhash_join_types gpuhash_chain gpuhash_fingerprint_keys gpuhash_explain gpuhash_service gpuhash_parallel_joins gpuhash_right_semi gpuhash_rescan gpuhash_memory gpuhash_security gpuhash_outer_scan gpuhash_inner_scan gpuhash_scan_filter gpuhash_page_scan gpuhash_page_inner gpuhash_page_cache gpuhash_join_hook gpuhash_gpus gpuhash_agg_states gpuhash_gpu_agg_plan gpuhash_gpu_agg_join_plan gpuhash_gpu_agg gpuhash_gpu_agg_fuzz gpuhash_gpu_agg_exec gpuhash_gpu_agg_resident gpuhash_gpu_agg_owned gpuhash_gpu_agg_widekeys gpuhash_dim_service gpuhash_gpu_agg_join gpuhash_gpu_agg_join_fuzz gpuhash_gpu_agg_join_par gpuhash_gpu_agg_carry gpuhash_gpu_agg_join_outer gpuhash_gpu_agg_join_conds gpuhash_gpu_agg_join_pages gpuhash_gpu_agg_star gpuhash_big_table
REGRESS_OPTS = --inputdir=. --outputdir=. --load-extension=gpuhash --encoding=UTF8

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
# Machine code for Hopper (H100/H200) and Ampere, plus PTX for newer GPUs.
GPU_ARCHS ?= 80 90
GENCODE = $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(GPU_ARCHS)),code=compute_$(lastword $(GPU_ARCHS))
NVCCFLAGS ?= -O3
NVCCFLAGS += -std=c++17 $(GENCODE) -Xcompiler -fPIC -Xcompiler -fno-exceptions -Icuda \
	--expt-relaxed-constexpr -Xcudafe --diag_suppress=20012
CORE_CXXFLAGS = -O2 -g -std=c++17 -fPIC -fno-exceptions -Wall -Wextra -Icuda \
	-I$(CUDA_HOME)/include

NVCC_FOUND := $(if $(shell command -v $(NVCC) 2>/dev/null),yes,no)
HAVE_NVCC ?= $(NVCC_FOUND)
GPU_STUB = cuda/gpu_absent.cpp

ifeq ($(HAVE_NVCC),yes)
CUDA_SRCS = $(wildcard cuda/*.cu)
CORE_CPP_SRCS = $(filter-out $(GPU_STUB),$(wildcard cuda/*.cpp))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
BUILD_MODE = cuda
else
$(info gpuhash: $(if $(filter yes,$(NVCC_FOUND)),HAVE_NVCC=no,no nvcc at $(NVCC)): building the host twin only, without GPU support)
CUDA_SRCS =
CORE_CPP_SRCS = $(wildcard cuda/*.cpp)
CUDA_LIBS = -lstdc++
BUILD_MODE = host-only
endif
CORE_OBJS = $(CUDA_SRCS:.cu=.o) $(CORE_CPP_SRCS:.cpp=.o)
C_OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c src/*/*.c))
OBJS = $(C_OBJS) $(CORE_OBJS)

SHLIB_LINK += $(CUDA_LIBS)
# src/ is in folders by subsystem; its headers are included by name
PG_CPPFLAGS = -Isrc -Isrc/executor -Isrc/service -Isrc/agg -Icuda

EXTRA_CLEAN = test/core_test test/core_test.o test/core_chain.o test/core_page.o test/core_page_dim.o test/core_page_bad.o test/core_agg.o test/core_agg_join.o test/core_agg_join_bad.o test/core_agg_star.o test/core_agg_set.o bench/bench_core bench/bench_core.o bench/bench_multi_gpu bench/bench_multi_gpu.o bench/bench_chain bench/bench_chain.o bench/bench_page bench/bench_page.o bench/bench_agg bench/bench_agg.o bench/bench_cuco \
	$(patsubst %.cu,%.o,$(wildcard cuda/*.cu)) $(GPU_STUB:.cpp=.o) .build-mode

# The mode of the last build: switching relinks the .so and core_test, whose
# objects from both modes may all be older than them.
$(shell test "$$(cat .build-mode 2>/dev/null)" = $(BUILD_MODE) || echo $(BUILD_MODE) >.build-mode)

# PGXS would want LLVM bitcode of every source, .cu included.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

CORE_HEADERS = $(wildcard cuda/*.h cuda/*.cuh cuda/schemes/*.cuh)

$(shlib): .build-mode

cuda/%.o: cuda/%.cu $(CORE_HEADERS)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

cuda/%.o: cuda/%.cpp $(CORE_HEADERS)
	$(CXX) $(CORE_CXXFLAGS) -c $< -o $@

# The scheme table names the GPU entry points only where the .cu files are
# built; it is the one C++ object that differs between the two modes.
ifneq ($(BUILD_MODE),cuda)
cuda/scheme_ops.o: CORE_CXXFLAGS += -DGH_NO_CUDA
endif
cuda/scheme_ops.o: .build-mode

# every C file sees the shared headers: a changed struct rebuilds them all
$(C_OBJS): $(wildcard src/*.h src/*/*.h) $(CORE_HEADERS)

test/%.o: test/%.cpp $(CORE_HEADERS) $(wildcard test/*.h)
	$(CXX) $(CORE_CXXFLAGS) -c $< -o $@

test/core_test: test/core_test.o test/core_chain.o test/core_page.o test/core_page_dim.o test/core_page_bad.o test/core_agg.o test/core_agg_join.o test/core_agg_join_bad.o test/core_agg_star.o test/core_agg_set.o $(CORE_OBJS) .build-mode
	$(CXX) -o $@ $(filter %.o,$^) $(CUDA_LIBS)

bench/bench_core.o: bench/bench_core.cu bench/bench_common.cuh $(CORE_HEADERS)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

bench/bench_core: bench/bench_core.o $(CORE_OBJS)
	$(CXX) -o $@ $^ $(CUDA_LIBS)

bench/bench_multi_gpu.o: bench/bench_multi_gpu.cu bench/bench_common.cuh $(CORE_HEADERS)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

bench/bench_multi_gpu: bench/bench_multi_gpu.o $(CORE_OBJS)
	$(CXX) -o $@ $^ $(CUDA_LIBS)

bench/bench_page.o: bench/bench_page.cpp bench/bench_pages.h test/page_builder.h $(CORE_HEADERS)
	$(CXX) $(CORE_CXXFLAGS) -c $< -o $@

bench/bench_page: bench/bench_page.o $(CORE_OBJS) .build-mode
	$(CXX) -o $@ $(filter %.o,$^) $(CUDA_LIBS)

bench/bench_agg.o: bench/bench_agg.cpp bench/bench_pages.h test/page_builder.h $(CORE_HEADERS)
	$(CXX) $(CORE_CXXFLAGS) -c $< -o $@

bench/bench_agg: bench/bench_agg.o $(CORE_OBJS) .build-mode
	$(CXX) -o $@ $(filter %.o,$^) $(CUDA_LIBS)

bench/bench_chain.o: bench/bench_chain.cpp $(CORE_HEADERS)
	$(CXX) $(CORE_CXXFLAGS) -c $< -o $@

bench/bench_chain: bench/bench_chain.o $(CORE_OBJS) .build-mode
	$(CXX) -o $@ $(filter %.o,$^) $(CUDA_LIBS)

# GPU-only regression tests (device failures, fallbacks): run by
# test/run-all.sh where a GPU is usable.
REGRESS_GPU = gpuhash_init gpuhash_gpu

# cuCollections is not part of gpuhash: only this target reads it, from the
# include directory CUCO_DIR names.  Its own flags: cuCollections throws, and
# its bulk operations take device lambdas.
CUCO_NVCCFLAGS = -O3 -std=c++17 $(GENCODE) --expt-relaxed-constexpr --expt-extended-lambda \
	-Xcudafe --diag_suppress=20012 -Icuda -I$(CUCO_DIR)

bench/bench_cuco: bench/bench_cuco.cu bench/bench_common.cuh cuda/hash.cuh
	$(if $(CUCO_DIR),,$(error bench-cuco: set CUCO_DIR to cuCollections' include directory, e.g. make bench-cuco CUCO_DIR=.device/cuco/include))
	@test -f $(CUCO_DIR)/cuco/static_map.cuh || { echo "bench-cuco: no cuco/static_map.cuh under CUCO_DIR=$(CUCO_DIR)" >&2; exit 1; }
	$(NVCC) $(CUCO_NVCCFLAGS) $< -o $@

.PHONY: test-core bench bench-multi-gpu bench-chain bench-page bench-agg bench-cuco installcheck-gpu
installcheck-gpu:
	$(pg_regress_installcheck) $(REGRESS_OPTS) $(REGRESS_GPU)

test-core: test/core_test
	test/core_test $(CORE_TEST_ARGS)

bench: bench/bench_core
	bench/bench_core $(BENCH_ARGS)

bench-multi-gpu: bench/bench_multi_gpu
	bench/bench_multi_gpu $(BENCH_ARGS)

bench-chain: bench/bench_chain
	bench/bench_chain $(BENCH_ARGS)

bench-page: bench/bench_page
	bench/bench_page $(BENCH_ARGS)

bench-agg: bench/bench_agg
	bench/bench_agg $(BENCH_ARGS)

bench-cuco: bench/bench_cuco
	bench/bench_cuco $(BENCH_ARGS)
