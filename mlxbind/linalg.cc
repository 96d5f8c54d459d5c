// linalg.cc: matrix products.
#include "shim_internal.hpp"

namespace emily {
namespace {

mx::array matmul(const OpArgs& a) { return mx::matmul(a.in[0], a.in[1], a.s); }

}  // namespace

void register_linalg_ops(OpCore* t) { t[EMILY_OP_MATMUL] = matmul; }

}  // namespace emily
