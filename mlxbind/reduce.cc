// reduce.cc: reductions. attrs = [keepdims, axes...]; no axes reduces all.
#include "shim_internal.hpp"

namespace emily {
namespace {

#define EMILY_REDUCE(name, fn)                                         \
  mx::array name(const OpArgs& a) {                                    \
    bool keepdims = a.attrs[0] != 0;                                   \
    if (a.n_attrs == 1) return fn(a.in[0], keepdims, a.s);             \
    return fn(a.in[0], ints_from_attrs(a.attrs + 1, a.n_attrs - 1),    \
              keepdims, a.s);                                          \
  }

EMILY_REDUCE(sum, mx::sum)
EMILY_REDUCE(max, mx::max)
EMILY_REDUCE(min, mx::min)
EMILY_REDUCE(mean, mx::mean)

#undef EMILY_REDUCE
}  // namespace

void register_reduce_ops(OpCore* t) {
  t[EMILY_OP_SUM] = sum;
  t[EMILY_OP_MAX] = max;
  t[EMILY_OP_MIN] = min;
  t[EMILY_OP_MEAN] = mean;
}

}  // namespace emily
