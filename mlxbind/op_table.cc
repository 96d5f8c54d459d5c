// op_table.cc: validation of an op call against its generated row, the
// helpers the spec's C++ expressions share, and the eager entry point.
#include <limits>
#include <numeric>
#include <sstream>

#include "shim_internal.hpp"

namespace emily {
namespace {

bool valid_opcode(int op) { return op >= 0 && op < EMILY_OPCODE_COUNT; }

[[noreturn]] void bad_attr(const OpRow& row, const AttrSchema& at, const std::string& why) {
  throw std::invalid_argument(std::string(row.name) + ": attribute " + at.name + " " + why);
}

void check_i32(const OpRow& row, const AttrSchema& at, int64_t v) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    bad_attr(row, at, "value " + std::to_string(v) + " does not fit in 32 bits (MLX's axes and dimensions are int32)");
  }
}

}  // namespace

// kMaxResults bounds the result count an attribute may ask for.
constexpr int kMaxResults = 1 << 16;

int check_op(int opcode, int n_inputs, const int64_t* w, int n_words) {
  if (!valid_opcode(opcode)) {
    throw std::invalid_argument("unknown opcode " + std::to_string(opcode));
  }
  const OpRow& row = kOpRows[opcode];
  if (row.arity >= 0 ? n_inputs != row.arity : n_inputs < 1) {
    std::ostringstream msg;
    msg << row.name << ": takes " << (row.arity >= 0 ? std::to_string(row.arity) : "one or more")
        << " operand(s), got " << n_inputs;
    throw std::invalid_argument(msg.str());
  }
  int pc = 0;
  int n_out = row.n_out;
  auto need = [&](const AttrSchema& at, int64_t n) {
    if (n < 0 || n > n_words - pc) bad_attr(row, at, "is cut short (malformed attribute words)");
  };
  for (int i = 0; i < row.n_attrs; ++i) {
    const AttrSchema& at = row.attrs[i];
    need(at, 1);
    int64_t v = w[pc++];
    switch (at.kind) {
      case kAttrInt:
        check_i32(row, at, v);
        break;
      case kAttrInt64:
      case kAttrFloat:
        break;
      case kAttrBool:
        if (v != 0 && v != 1) bad_attr(row, at, "must be 0 or 1");
        break;
      case kAttrDType:
        dtype_from_code(v);  // throws on an unknown code
        break;
      case kAttrEnum:
        if (v < 0 || v >= at.n_enum) bad_attr(row, at, "has no value " + std::to_string(v));
        break;
      case kAttrInts:
      case kAttrShape:
        need(at, v);
        for (int64_t k = 0; k < v; ++k) {
          check_i32(row, at, w[pc + k]);
          if (at.kind == kAttrShape && w[pc + k] < -1) {
            bad_attr(row, at, "has a negative dimension " + std::to_string(w[pc + k]));
          }
        }
        pc += static_cast<int>(v);
        break;
      case kAttrString:
        need(at, (v + 7) / 8);
        pc += static_cast<int>((v + 7) / 8);
        break;
    }
    if (row.n_out == 0 && i == row.outputs_from) {
      n_out = at.kind == kAttrInts ? static_cast<int>(v) + 1 : static_cast<int>(v);
      if (n_out < 1) bad_attr(row, at, "must ask for at least one result");
      // The caller allocates room for n_out results before the op runs:
      // Split(x, 2^31-1, 0) made Go allocate 16 GiB and hang (issue 19).
      if (n_out > kMaxResults) {
        bad_attr(row, at, "asks for " + std::to_string(n_out) + " results; an op gives at most " +
                              std::to_string(kMaxResults));
      }
    }
  }
  if (pc != n_words) {
    throw std::invalid_argument(std::string(row.name) + ": " + std::to_string(n_words - pc) +
                                " attribute word(s) too many (malformed attributes)");
  }
  return n_out;
}

std::vector<int> axes_or_all(const mx::array& x, const std::vector<int>& axes) {
  if (!axes.empty()) return axes;
  std::vector<int> all(x.ndim());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

}  // namespace emily

extern "C" {

int emily_op(emily_array* outs, int cap, int* n_out, int opcode,
             const emily_array* inputs, int n_inputs, const int64_t* attrs,
             int n_attrs, int stream, char** err) {
  bool retry = false;
  int status = emily::guarded(err, [&] {
    int want = emily::check_op(opcode, n_inputs, attrs, n_attrs);
    if (want > cap) {  // the caller retries with room for want results
      *n_out = want;
      retry = true;
      return;
    }
    std::vector<mx::array> in;
    in.reserve(n_inputs);
    for (int i = 0; i < n_inputs; ++i) in.push_back(inputs[i]->a);
    emily::OpArgs args{in, attrs, n_attrs, emily::stream_at(stream)};
    std::vector<mx::array> result = emily::apply_op(opcode, args);
    if (static_cast<int>(result.size()) != want) {
      throw std::logic_error(std::string(emily::kOpRows[opcode].name) + ": core gave " +
                             std::to_string(result.size()) + " results, the spec says " +
                             std::to_string(want));
    }
    for (int i = 0; i < want; ++i) outs[i] = emily::wrap(std::move(result[i]));
    *n_out = want;
  });
  return retry ? 2 : status;
}

int emily_opcode_count(void) { return EMILY_OPCODE_COUNT; }

const char* emily_opcode_name(int op) {
  return emily::valid_opcode(op) ? emily::kOpRows[op].name : nullptr;
}

int emily_opcode_info(int op, int* arity, int* n_out, int* outputs_from, int* n_attrs) {
  if (!emily::valid_opcode(op)) return 1;
  const emily::OpRow& row = emily::kOpRows[op];
  *arity = row.arity;
  *n_out = row.n_out;
  *outputs_from = row.outputs_from;
  *n_attrs = row.n_attrs;
  return 0;
}

int emily_opcode_attr(int op, int i, int* kind, int* n_enum) {
  if (!emily::valid_opcode(op) || i < 0 || i >= emily::kOpRows[op].n_attrs) return 1;
  *kind = emily::kOpRows[op].attrs[i].kind;
  *n_enum = emily::kOpRows[op].attrs[i].n_enum;
  return 0;
}

}  // extern "C"
