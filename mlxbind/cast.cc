// cast.cc: dtype conversion. attrs = [dtype code], checked by check_op.
#include "shim_internal.hpp"

namespace emily {
namespace {

mx::array astype(const OpArgs& a) {
  return mx::astype(a.in[0], dtype_from_code(a.attrs[0]), a.s);
}

}  // namespace

void register_cast_ops(OpCore* t) { t[EMILY_OP_ASTYPE] = astype; }

}  // namespace emily
