/* shim.h: the C ABI over MLX's C++ API that Go calls through cgo.
 *
 * Conventions (same spirit as mlx-c): opaque handles; every entry point
 * returns 0 on success or 1 on failure, with a malloc'd message in *err
 * that the caller frees with free(); no C++ exception ever crosses this
 * boundary. Every entry point holds one process-wide lock while it touches
 * MLX: streams are made with new_thread_unsafe_stream, which any OS thread
 * may use if access is serialized (DESIGN.md decision 2). */
#ifndef EMILY_SHIM_H
#define EMILY_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "opcodes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dtype codes: the order of mlx::core::Dtype::Val. */
enum emily_dtype {
  EMILY_BOOL = 0,
  EMILY_UINT8,
  EMILY_UINT16,
  EMILY_UINT32,
  EMILY_UINT64,
  EMILY_INT8,
  EMILY_INT16,
  EMILY_INT32,
  EMILY_INT64,
  EMILY_FLOAT16,
  EMILY_FLOAT32,
  EMILY_FLOAT64,
  EMILY_BFLOAT16,
  EMILY_COMPLEX64,
  EMILY_DTYPE_COUNT
};

enum emily_device { EMILY_CPU = 0, EMILY_GPU = 1 };

typedef struct emily_array_s* emily_array;
typedef struct emily_program_s* emily_program;

/* Devices and streams (device.cc). A stream is an index into the shim's
 * table of thread-unsafe streams. */
int emily_device_available(int device);
int emily_stream_new(int* out, int device, char** err);
int emily_synchronize(int stream, char** err);
int emily_memory_stats(size_t* active, size_t* peak, size_t* cache, char** err);
int emily_set_memory_limit(size_t* previous, size_t limit, char** err);
/* Frees the buffers MLX's allocator keeps for reuse. */
int emily_clear_cache(char** err);
int emily_memory_limit(size_t* limit, char** err);
int emily_reset_peak_memory(char** err);
const char* emily_mlx_version(void);

/* Arrays (array.cc). */
int emily_array_from_bytes(emily_array* out, const void* data, size_t nbytes,
                           const int64_t* shape, int ndim, int dtype,
                           char** err);
void emily_array_free(emily_array a);
/* Frees n handles in one call (one lock): the finalizers' queue. */
void emily_array_free_n(const emily_array* a, int n);
/* A second handle to a's array (the same buffer and graph node), freed
 * on its own. */
int emily_array_share(emily_array* out, emily_array a, char** err);
/* Reads a's dtype code and rank, and its dims into dims when the rank is at
 * most cap (call again with a larger buffer otherwise). One call, no lock:
 * shape and dtype are fixed when an array is made. */
int emily_array_meta(emily_array a, int* dtype, int64_t* dims, int cap);
/* emily_array_meta for n arrays in one call: out holds stride words per
 * array, its dtype code, its rank, then its dims when the rank is at most
 * stride - 2 (the caller asks emily_array_meta for the rest). */
void emily_arrays_meta(const emily_array* a, int n, int64_t* out, int stride);
/* Evaluates a and copies its row-major bytes into dst (nbytes long); a
 * strided array is made contiguous on stream first. */
int emily_array_to_bytes(emily_array a, void* dst, size_t nbytes, int stream,
                         char** err);
int emily_eval(const emily_array* arrays, int n, char** err);
int emily_async_eval(const emily_array* arrays, int n, char** err);
/* Readbacks of GPU buffers up to max_bytes are copied with the CUDA driver
 * instead of MLX's move to managed memory (gpumem.cc); 0 turns that off. */
int emily_set_direct_read_max(size_t* previous, size_t max_bytes, char** err);
/* 1 when the direct GPU readback can be used (MLX's CUDA backend). */
int emily_direct_read_available(void);
/* Whether replays on GPU streams read their one-element constants from
 * copies in device memory (gpumem.cc); on by default. */
int emily_set_device_scalars(int* previous, int on, char** err);
int emily_device_scalars(void);
/* *out: a copy of the one-element a in device memory for stream's GPU, or
 * NULL where none is wanted (a CPU stream, more than one element, device
 * scalars off). */
int emily_array_device_resident(emily_array* out, emily_array a, int stream, char** err);

/* MLX's distributed layer (distributed.cc). A group is an index into the
 * shim's group table; the distributed ops take it as an attribute. init
 * with strict=0 gives a one-process group when backend finds no world.
 * *backend gets "ring", "nccl", "mpi", "jaccl" or "none" (one process),
 * owned by the shim. */
int emily_dist_available(const char* backend);
int emily_dist_init(int* out, const char* backend, int strict, char** err);
int emily_dist_group_info(int id, int* rank, int* size, const char** backend, char** err);
int emily_dist_split(int* out, int id, int color, int key, char** err);

/* Ops (op_table.cc): one entry point for every opcode, the same core the
 * program replay calls, so eager, evaluator and native lanes cannot drift.
 * outs has room for cap results; *n_out gets how many the op made. When
 * the op gives more than cap, it returns 2 with *n_out set and makes
 * nothing: call again with room for them. */
int emily_op(emily_array* outs, int cap, int* n_out, int opcode,
             const emily_array* inputs, int n_inputs, const int64_t* attrs,
             int n_attrs, int stream, char** err);
int emily_opcode_count(void);
const char* emily_opcode_name(int opcode);
/* The opcode's row: arity (-1: a list), result count (0: from the
 * attribute outputs_from), attribute count. Returns 1 for a bad opcode. */
int emily_opcode_info(int opcode, int* arity, int* n_out, int* outputs_from, int* n_attrs);
int emily_opcode_attr(int opcode, int i, int* kind, int* n_enum);

/* Programs (program.cc). code holds, per instruction: opcode, n_results,
 * n_operands, operand refs..., n_attr_words, attr words... An operand ref
 * packs its kind in bits 48 and up (0 input, 1 const, 2 instruction), the
 * result of a multi-result instruction in bits 32..47, the index below.
 * Opcode -1 is a region instruction: its attribute words hold a region
 * kind, parameters and nested programs (program.cc, decode_region).
 * Construction validates everything once; replay trusts it. */
int emily_program_new(emily_program* out, int n_inputs, const emily_array* consts,
                      int n_consts, const int64_t* code, size_t n_code,
                      const int64_t* outputs, int n_outputs, char** err);
void emily_program_free(emily_program p);
/* Replays p on inputs and evaluates the outputs, all in one call; with fuse
 * set, the replay runs under mlx::core::compile. outs has n_outputs slots.
 * *active_memory gets MLX's active memory afterwards (for the Go side's GC
 * pressure check, without another locked call). */
/* emily_program_run's flags: replay under mx::compile, and queue the
 * evaluation (mx::async_eval) instead of waiting for it. */
#define EMILY_RUN_FUSE 1
#define EMILY_RUN_ASYNC 2
/* donate (NULL: none) marks the inputs the call consumes: once the graph
 * is built, their handles let go of their arrays (each then holds a 0-d
 * placeholder, to be freed), so an op that overwrites one (a cache's
 * slice update) can take its buffer instead of copying it. */
int emily_program_run(emily_program p, const emily_array* inputs, int n_inputs,
                      const unsigned char* donate, emily_array* outs, int stream, int flags,
                      int* inplace,
                      size_t* active_memory, char** err);
/* *inplace = n > 0 (state updated in place, as MLX Python's
 * mx.compile(..., inputs=state, outputs=state)): output i < n replaces
 * input i, whose handle takes the output's array before the evaluation, so
 * the old array is held only by the graph and MLX can write the update
 * into its buffer (a graph the caller built on the old array still holds
 * it and keeps it); outs[i] is then left NULL: the caller's input handle
 * is the result. Only if every pair matches in shape and dtype: *inplace
 * comes back as n if it was done, else 0 (all outputs new). NULL: none. */
/* Builds p's outputs on inputs lazily, without evaluating them: the
 * evaluator lane and eager autodiff run region instructions this way, and
 * tracing applies it to placeholders to infer result types. */
int emily_program_apply(emily_program p, const emily_array* inputs, int n_inputs,
                        emily_array* outs, int stream, char** err);
/* Stops every while loop running now at its next iteration, with an error
 * that starts "interrupted" (control.cc). Takes no lock. */
void emily_interrupt(void);
/* How many times mlx::core::compile has traced a fused replay so far. */
int64_t emily_fused_traces(void);
/* The time emily_program_run has spent, summed over all calls: building
 * programs' MLX graphs (the replay), and in mx::eval or mx::async_eval
 * (for an async call on a GPU, the host's share: ordering the graph and
 * encoding its kernels). A host-bound decode loop shows here. */
void emily_program_times(int64_t* build_ns, int64_t* eval_ns);
void emily_program_call_times(int64_t* call_ns, int64_t* after_ns);

#ifdef __cplusplus
}
#endif
#endif
