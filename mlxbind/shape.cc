// shape.cc: ops that change shape but not values.
#include "shim_internal.hpp"

namespace emily {
namespace {

// attrs = target dims; one of them may be -1 (inferred).
mx::array reshape(const OpArgs& a) {
  return mx::reshape(a.in[0], shape_from_attrs(a.attrs, a.n_attrs), a.s);
}

// attrs = permutation; none reverses the axes.
mx::array transpose(const OpArgs& a) {
  if (a.n_attrs == 0) return mx::transpose(a.in[0], a.s);
  return mx::transpose(a.in[0], ints_from_attrs(a.attrs, a.n_attrs), a.s);
}

// attrs = target dims.
mx::array broadcast_to(const OpArgs& a) {
  return mx::broadcast_to(a.in[0], shape_from_attrs(a.attrs, a.n_attrs), a.s);
}

}  // namespace

void register_shape_ops(OpCore* t) {
  t[EMILY_OP_RESHAPE] = reshape;
  t[EMILY_OP_TRANSPOSE] = transpose;
  t[EMILY_OP_BROADCAST_TO] = broadcast_to;
}

}  // namespace emily
