// index.cc: hand-written cores of the index family, for ops MLX has no
// single function for. The generated gen_index.cc calls them from the
// spec rows' Cpp expressions.
#include <numeric>
#include <stdexcept>
#include <string>

#include "cores.hpp"

namespace emily {

namespace {

std::string shape_str(const mx::Shape& sh) {
  std::string out = "[";
  for (size_t i = 0; i < sh.size(); ++i) {
    if (i > 0) out += " ";
    out += std::to_string(sh[i]);
  }
  return out + "]";
}

}  // namespace

// scatter_axis is the inverse of take(x, indices, axis): updates, broadcast
// to take's result shape x.shape[:axis] + indices.shape + x.shape[axis+1:],
// are combined into x (mode 0 set, 1 add, 2 prod, 3 max, 4 min). MLX's
// scatter wants the index dimensions first and a size-1 slice dimension at
// the axis, so the updates are moved into that layout, as MLX's Python
// x[..., idx] = v does.
mx::array scatter_axis(const mx::array& x, const mx::array& indices, const mx::array& updates, int axis,
                       int mode, const mx::Stream& s) {
  int nd = static_cast<int>(x.ndim());
  if (nd == 0) {
    throw std::invalid_argument("cannot scatter into a scalar; Reshape it to [1] first");
  }
  int ax = axis < 0 ? axis + nd : axis;
  if (ax < 0 || ax >= nd) {
    throw std::invalid_argument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(nd));
  }
  int k = static_cast<int>(indices.ndim());
  mx::Shape target(x.shape().begin(), x.shape().begin() + ax);
  target.insert(target.end(), indices.shape().begin(), indices.shape().end());
  target.insert(target.end(), x.shape().begin() + ax + 1, x.shape().end());
  mx::array u = updates.dtype() == x.dtype() ? updates : mx::astype(updates, x.dtype(), s);
  try {
    u = mx::broadcast_to(u, target, s);
  } catch (const std::exception&) {
    throw std::invalid_argument("updates of shape " + shape_str(updates.shape()) +
                                " do not broadcast to the scattered shape " + shape_str(target));
  }
  // Nothing to scatter, or nowhere to scatter it: MLX's scatter divides by
  // the empty sizes (SIGFPE, issue 19). An index into an empty axis is out
  // of range whatever its value, which MLX does not check either.
  if (x.size() == 0 || u.size() == 0) return x;
  std::vector<int> perm;
  for (int i = 0; i < k; ++i) perm.push_back(ax + i);
  for (int i = 0; i < ax; ++i) perm.push_back(i);
  for (int i = ax + k; i < static_cast<int>(target.size()); ++i) perm.push_back(i);
  u = mx::expand_dims(mx::transpose(u, perm, s), k + ax, s);
  std::vector<mx::array> idx{indices};
  std::vector<int> axes{ax};
  switch (mode) {
    case 0:
      return mx::scatter(x, idx, u, axes, s);
    case 1:
      return mx::scatter_add(x, idx, u, axes, s);
    case 2:
      return mx::scatter_prod(x, idx, u, axes, s);
    case 3:
      return mx::scatter_max(x, idx, u, axes, s);
    default:
      return mx::scatter_min(x, idx, u, axes, s);
  }
}

// masked_scatter_safe is MLX's masked_scatter with the mask broadcast to
// x's shape and the values flattened; when values has fewer elements than
// x it is padded with zeros, so a mask with more true positions than
// values (which only a jitted call can reach: eager calls check the count)
// reads zeros instead of memory past the end.
mx::array masked_scatter_safe(const mx::array& x, const mx::array& mask, const mx::array& values,
                              const mx::Stream& s) {
  if (mask.dtype() != mx::bool_) {
    throw std::invalid_argument("the mask must be bool; compare to make one (e.g. Greater(x, 0))");
  }
  mx::array m = mx::broadcast_to(mask, x.shape(), s);
  mx::array src = mx::flatten(values.dtype() == x.dtype() ? values : mx::astype(values, x.dtype(), s), s);
  if (src.size() < x.size()) {
    int pad = static_cast<int>(x.size() - src.size());
    src = mx::concatenate({src, mx::zeros({pad}, x.dtype(), s)}, 0, s);
  }
  return mx::masked_scatter(x, m, src, s);
}

}  // namespace emily
