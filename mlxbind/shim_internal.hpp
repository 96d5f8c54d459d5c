// shim_internal.hpp: what the shim's C++ files share: the handle types,
// the process-wide lock, the exception guard and the op core table.
#pragma once

#include <cstdlib>
#include <cstring>
#include <exception>
#include <tuple>
#include <utility>
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

// read_device_bytes copies an evaluated, row-contiguous array held in GPU
// memory straight into dst (gpumem.cc); false when it cannot, and the
// caller reads through MLX.
bool read_device_bytes(const mx::array& x, void* dst, size_t nbytes);

// device_resident returns an evaluated copy of the one-element constant c
// whose buffer is GPU memory rather than managed memory (gpumem.cc says
// why); device_scalars reports whether replays use such copies on GPU
// streams (emily_set_device_scalars).
mx::array device_resident(const mx::array& c, mx::Stream s);
bool device_scalars();

// OpArgs is what an op core receives. Attributes were validated against the
// op's schema before the core runs (once per program for replay).
struct OpArgs {
  const std::vector<mx::array>& in;
  const int64_t* attrs;
  int n_attrs;
  mx::Stream s;
};

// An op core makes the op's result(s). The generated table (ops_gen.cc)
// holds one per opcode; eager ops, the evaluator and the replay all call it.
using OpCore = std::vector<mx::array> (*)(const OpArgs&);

// Attribute kinds: internal/opspec's AttrKind, in the same order.
enum AttrKind : int {
  kAttrInt = 0,
  kAttrInt64,
  kAttrInts,
  kAttrShape,
  kAttrBool,
  kAttrFloat,
  kAttrDType,
  kAttrEnum,
  kAttrString,
};

struct AttrSchema {
  const char* name;
  AttrKind kind;
  int n_enum;  // kAttrEnum: how many values
};

// OpRow is one generated row of the op table.
struct OpRow {
  const char* name;
  int arity;         // -1: one list of any length >= 1
  int n_out;         // 0: given by the attribute outputs_from
  int outputs_from;  // Int: its value; Ints: its length + 1
  const AttrSchema* attrs;
  int n_attrs;
  OpCore core;
};

// The generated table, EMILY_OPCODE_COUNT rows in opcode order.
extern const OpRow kOpRows[];

// AttrReader decodes an op's attribute words in schema order. The words
// were validated, so it does no checks.
class AttrReader {
 public:
  explicit AttrReader(const int64_t* w) : w_(w) {}
  int i32() { return static_cast<int>(*w_++); }
  int64_t i64() { return *w_++; }
  bool boolean() { return *w_++ != 0; }
  double f64() {
    double d;
    int64_t bits = *w_++;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  mx::Dtype dtype() { return dtype_from_code(*w_++); }
  std::vector<int> ints() {
    int64_t n = *w_++;
    std::vector<int> v(w_, w_ + n);
    w_ += n;
    return v;
  }
  mx::Shape shape() {
    int64_t n = *w_++;
    mx::Shape v(w_, w_ + n);
    w_ += n;
    return v;
  }
  std::string str() {
    int64_t n = *w_++;
    std::string out(static_cast<size_t>(n), '\0');
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<char>(static_cast<uint64_t>(w_[i / 8]) >> (8 * (i % 8)));
    }
    w_ += (n + 7) / 8;
    return out;
  }

 private:
  const int64_t* w_;
};

// check_op validates an op's arity and attribute words against its schema
// (counts, int32 ranges, dtype codes, enum values), naming the op, and
// returns its result count.
int check_op(int opcode, int n_inputs, const int64_t* attrs, int n_attrs);

// apply_op runs the core of opcode: the single path shared by emily_op and
// program replay.
inline std::vector<mx::array> apply_op(int opcode, const OpArgs& args) {
  return kOpRows[opcode].core(args);
}

// Helpers the spec's C++ expressions use.

// axes_or_all: no axes means every axis (NumPy's axis=None).
std::vector<int> axes_or_all(const mx::array& x, const std::vector<int>& axes);

// The CPU stream for ops MLX runs only on the CPU (most of linalg).
mx::Stream cpu_stream();

// outputs turns what an MLX function returns into the core's result list.
inline std::vector<mx::array> outputs(mx::array a) { return {std::move(a)}; }
inline std::vector<mx::array> outputs(std::vector<mx::array> v) { return v; }
inline std::vector<mx::array> outputs(std::pair<mx::array, mx::array> p) {
  return {std::move(p.first), std::move(p.second)};
}
template <class... T>
std::vector<mx::array> outputs(std::tuple<T...> t) {
  return std::apply([](auto&&... a) { return std::vector<mx::array>{std::move(a)...}; },
                    std::move(t));
}

}  // namespace emily
