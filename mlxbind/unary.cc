// unary.cc: elementwise unary ops.
#include "shim_internal.hpp"

namespace emily {
namespace {

#define EMILY_UNARY(name, fn) \
  mx::array name(const OpArgs& a) { return fn(a.in[0], a.s); }

EMILY_UNARY(negate, mx::negative)
EMILY_UNARY(exp, mx::exp)
EMILY_UNARY(log, mx::log)
EMILY_UNARY(tanh, mx::tanh)
EMILY_UNARY(sqrt, mx::sqrt)
EMILY_UNARY(abs, mx::abs)
EMILY_UNARY(sigmoid, mx::sigmoid)

#undef EMILY_UNARY
}  // namespace

void register_unary_ops(OpCore* t) {
  t[EMILY_OP_NEGATE] = negate;
  t[EMILY_OP_EXP] = exp;
  t[EMILY_OP_LOG] = log;
  t[EMILY_OP_TANH] = tanh;
  t[EMILY_OP_SQRT] = sqrt;
  t[EMILY_OP_ABS] = abs;
  t[EMILY_OP_SIGMOID] = sigmoid;
}

}  // namespace emily
