// binary.cc: elementwise binary ops with NumPy broadcasting.
#include "shim_internal.hpp"

namespace emily {
namespace {

#define EMILY_BINARY(name, fn)                   \
  mx::array name(const OpArgs& a) {              \
    return fn(a.in[0], a.in[1], a.s);            \
  }

// Arithmetic
EMILY_BINARY(add, mx::add)
EMILY_BINARY(subtract, mx::subtract)
EMILY_BINARY(multiply, mx::multiply)
EMILY_BINARY(divide, mx::divide)
EMILY_BINARY(power, mx::power)
// Compare
EMILY_BINARY(maximum, mx::maximum)
EMILY_BINARY(minimum, mx::minimum)

#undef EMILY_BINARY
}  // namespace

void register_binary_ops(OpCore* t) {
  t[EMILY_OP_ADD] = add;
  t[EMILY_OP_SUBTRACT] = subtract;
  t[EMILY_OP_MULTIPLY] = multiply;
  t[EMILY_OP_DIVIDE] = divide;
  t[EMILY_OP_POWER] = power;
  t[EMILY_OP_MAXIMUM] = maximum;
  t[EMILY_OP_MINIMUM] = minimum;
}

}  // namespace emily
