// shim_internal.hpp: what the shim's C++ files share: the handle types,
// the process-wide lock, the exception guard and the op core table.
#pragma once

#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "mlx/mlx.h"
#include "shim.h"

namespace mx = mlx::core;

struct emily_array_s {
  mx::array a;
};

namespace emily {

// The lock every entry point holds while it touches MLX. Streams are
// thread-unsafe streams (usable from any OS thread when serialized), and
// Go moves goroutines between threads, so one lock serializes all MLX work.
// Uncontended it costs ~20 ns, next to a ~36 ns cgo call.
std::mutex& mlx_mutex();

inline void set_error(char** err, const char* msg) {
  if (err != nullptr) *err = strdup(msg);
}

// guarded runs f under the MLX lock and turns every exception into a status
// return and an error message: nothing thrown may unwind into Go.
template <class F>
int guarded(char** err, F&& f) {
  try {
    std::lock_guard<std::mutex> lock(mlx_mutex());
    f();
    return 0;
  } catch (const std::exception& e) {
    set_error(err, e.what());
  } catch (...) {
    set_error(err, "unknown C++ exception in the MLX shim");
  }
  return 1;
}

mx::Stream stream_at(int index);
mx::Dtype dtype_from_code(int64_t code);
int dtype_code(mx::Dtype d);
emily_array wrap(mx::array a);

// OpArgs is what an op core receives. Attributes were validated against the
// op's row in opcodes.h before the core runs (once per program for replay).
struct OpArgs {
  const std::vector<mx::array>& in;
  const int64_t* attrs;
  int n_attrs;
  mx::Stream s;
};

using OpCore = mx::array (*)(const OpArgs&);

// Each op family file fills its rows of the table.
void register_binary_ops(OpCore* table);
void register_unary_ops(OpCore* table);
void register_reduce_ops(OpCore* table);
void register_shape_ops(OpCore* table);
void register_linalg_ops(OpCore* table);
void register_cast_ops(OpCore* table);

// apply_op runs the core of opcode: the single path shared by emily_op and
// program replay.
mx::array apply_op(int opcode, const OpArgs& args);

// check_op validates an op's arity and attribute count (and attribute
// values where a bad one would crash rather than throw), naming the op.
void check_op(int opcode, int n_inputs, const int64_t* attrs, int n_attrs);

mx::Shape shape_from_attrs(const int64_t* attrs, int n);
std::vector<int> ints_from_attrs(const int64_t* attrs, int n);

}  // namespace emily
