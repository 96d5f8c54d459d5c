// cores.hpp: what the generated cores (gen_<family>.cc) include: the shim's
// internals plus the hand-written cores of ops MLX has no single function
// for. Each such core lives in the family file it belongs to
// (index.cc, nn.cc, ...) and is named by its spec row's Cpp expression.
#pragma once

#include "mlx/einsum.h"
#include "mlx/fast.h"
#include "mlx/fft.h"
#include "mlx/linalg.h"
#include "mlx/random.h"
#include "shim_internal.hpp"

namespace emily {

// shape_of: an Ints attribute where MLX wants a Shape (slice bounds may be
// negative, which the Shape attribute kind forbids).
inline mx::Shape shape_of(const std::vector<int>& v) { return mx::Shape(v.begin(), v.end()); }

// reduce.cc
bool one_axis(const char* op, const std::vector<int>& axes);

// index.cc
mx::array scatter_axis(const mx::array& x, const mx::array& indices, const mx::array& updates, int axis,
                       int mode, const mx::Stream& s);
mx::array masked_scatter_safe(const mx::array& x, const mx::array& mask, const mx::array& values,
                              const mx::Stream& s);

}  // namespace emily
