// op_table.cc: the opcode table, its validation, and the eager entry point.
#include <climits>
#include <cstdint>
#include <sstream>

#include "shim_internal.hpp"

namespace emily {
namespace {

struct OpRow {
  const char* name;
  int arity;
  int min_attrs;
  int max_attrs;  // -1: any number
};

constexpr OpRow kRows[] = {
#define EMILY_OPCODE_ROW(e, name, arity, min_attrs, max_attrs) \
  {name, arity, min_attrs, max_attrs},
    EMILY_OPCODES(EMILY_OPCODE_ROW)
#undef EMILY_OPCODE_ROW
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == EMILY_OPCODE_COUNT);

struct OpTable {
  OpCore cores[EMILY_OPCODE_COUNT] = {};
  OpTable() {
    register_binary_ops(cores);
    register_unary_ops(cores);
    register_reduce_ops(cores);
    register_shape_ops(cores);
    register_linalg_ops(cores);
    register_cast_ops(cores);
  }
};

const OpTable& table() {
  static const OpTable t;
  return t;
}

bool valid_opcode(int op) { return op >= 0 && op < EMILY_OPCODE_COUNT; }

}  // namespace

void check_op(int opcode, int n_inputs, const int64_t* attrs, int n_attrs) {
  if (!valid_opcode(opcode)) {
    throw std::invalid_argument("unknown opcode " + std::to_string(opcode));
  }
  const OpRow& row = kRows[opcode];
  if (table().cores[opcode] == nullptr) {
    throw std::logic_error(std::string(row.name) + ": opcode has no core");
  }
  std::ostringstream msg;
  if (n_inputs != row.arity) {
    msg << row.name << ": takes " << row.arity << " operand(s), got "
        << n_inputs;
    throw std::invalid_argument(msg.str());
  }
  if (n_attrs < row.min_attrs || (row.max_attrs >= 0 && n_attrs > row.max_attrs)) {
    msg << row.name << ": takes " << row.min_attrs << ".."
        << (row.max_attrs < 0 ? std::string("n") : std::to_string(row.max_attrs))
        << " integer attribute(s), got " << n_attrs;
    throw std::invalid_argument(msg.str());
  }
  if (opcode == EMILY_OP_ASTYPE) dtype_from_code(attrs[0]);  // throws if bad
}

mx::array apply_op(int opcode, const OpArgs& args) {
  return table().cores[opcode](args);
}

// int32_attr narrows one attribute to MLX's 32-bit dimensions and axes.
// A silent cast made Reshape(1<<32 + 6) a shape of [6].
static int32_t int32_attr(int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) {
    throw std::invalid_argument("dimension or axis " + std::to_string(v) +
                                " is out of range: MLX dimensions and axes are 32-bit");
  }
  return static_cast<int32_t>(v);
}

mx::Shape shape_from_attrs(const int64_t* attrs, int n) {
  mx::Shape shape;
  shape.reserve(n);
  for (int i = 0; i < n; ++i) shape.push_back(int32_attr(attrs[i]));
  return shape;
}

std::vector<int> ints_from_attrs(const int64_t* attrs, int n) {
  std::vector<int> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(int32_attr(attrs[i]));
  return out;
}

}  // namespace emily

extern "C" {

int emily_op(emily_array* out, int opcode, const emily_array* inputs,
             int n_inputs, const int64_t* attrs, int n_attrs, int stream,
             char** err) {
  return emily::guarded(err, [&] {
    emily::check_op(opcode, n_inputs, attrs, n_attrs);
    std::vector<mx::array> in;
    in.reserve(n_inputs);
    for (int i = 0; i < n_inputs; ++i) in.push_back(inputs[i]->a);
    emily::OpArgs args{in, attrs, n_attrs, emily::stream_at(stream)};
    *out = emily::wrap(emily::apply_op(opcode, args));
  });
}

int emily_opcode_count(void) { return EMILY_OPCODE_COUNT; }

const char* emily_opcode_name(int op) {
  return emily::valid_opcode(op) ? emily::kRows[op].name : nullptr;
}

int emily_opcode_arity(int op) {
  return emily::valid_opcode(op) ? emily::kRows[op].arity : -1;
}

void emily_opcode_attr_range(int op, int* min_attrs, int* max_attrs) {
  if (!emily::valid_opcode(op)) {
    *min_attrs = *max_attrs = -1;
    return;
  }
  *min_attrs = emily::kRows[op].min_attrs;
  *max_attrs = emily::kRows[op].max_attrs;
}

}  // extern "C"
