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

namespace {

// clamped_start converts a dynamic start (an integer scalar or vector, one
// entry per axis) to the int32 vector MLX takes, each entry clamped into
// [0, dim - size] of its axis, as XLA's dynamic_slice does: MLX's kernels
// add the start to the data pointer without a bounds check, so an
// out-of-range start read or wrote outside the array.
mx::array clamped_start(const char* op, const mx::array& x, const mx::array& start, std::vector<int>& axes,
                        const mx::Shape& sizes, const mx::Stream& s) {
  std::string name(op);
  if (!mx::issubdtype(start.dtype(), mx::integer)) {
    throw std::invalid_argument(name + ": start must be an integer tensor (Astype it to int32), one entry per axis");
  }
  if (start.ndim() > 1 || start.size() != axes.size()) {
    throw std::invalid_argument(name + ": start has shape " + shape_str(start.shape()) + " for axes of length " +
                                std::to_string(axes.size()) + "; give one start per axis (a scalar for one axis)");
  }
  int nd = static_cast<int>(x.ndim());
  std::vector<int64_t> hi;
  for (size_t i = 0; i < axes.size(); i++) {
    int a = axes[i] < 0 ? axes[i] + nd : axes[i];
    if (a < 0 || a >= nd) {
      throw std::invalid_argument(name + ": axis " + std::to_string(axes[i]) + " is out of range for x of shape " +
                                  shape_str(x.shape()));
    }
    for (size_t j = 0; j < i; j++) {
      if (axes[j] == a) throw std::invalid_argument(name + ": axis " + std::to_string(a) + " is given twice");
    }
    axes[i] = a;
    if (sizes[a] < 0 || sizes[a] > x.shape(a)) {
      throw std::invalid_argument(name + ": the slice's size " + std::to_string(sizes[a]) + " along axis " +
                                  std::to_string(a) + " is not within 0.." + std::to_string(x.shape(a)) +
                                  " for x of shape " + shape_str(x.shape()));
    }
    hi.push_back(static_cast<int64_t>(x.shape(a)) - sizes[a]);
  }
  mx::array st = mx::astype(mx::reshape(start, {static_cast<int>(axes.size())}, s), mx::int64, s);
  mx::array bound(hi.begin(), {static_cast<int>(hi.size())}, mx::int64);
  st = mx::clip(st, mx::array(int64_t{0}), bound, s);
  return mx::astype(st, mx::int32, s);
}

}  // namespace

// dynamic_slice is mx::slice with a start array: sizes has one entry per
// axis in axes (the other axes are taken whole).
mx::array dynamic_slice(const mx::array& x, const mx::array& start, const std::vector<int>& axes,
                        const std::vector<int>& sizes, const mx::Stream& s) {
  if (sizes.size() != axes.size()) {
    throw std::invalid_argument("DynamicSlice: " + std::to_string(sizes.size()) + " sizes for " +
                                std::to_string(axes.size()) + " axes; give one size per axis in axes");
  }
  mx::Shape full = x.shape();
  std::vector<int> ax = axes;
  int nd = static_cast<int>(x.ndim());
  for (size_t i = 0; i < ax.size(); i++) {
    int a = ax[i] < 0 ? ax[i] + nd : ax[i];
    if (a >= 0 && a < nd) full[a] = sizes[i];
  }
  mx::array st = clamped_start("DynamicSlice", x, start, ax, full, s);
  return mx::slice(x, st, ax, full, s);
}

// dynamic_set_slice is mx::slice_update with a start array: update (cast
// to x's dtype, x's rank) lands at start along axes and at 0 elsewhere.
mx::array dynamic_set_slice(const mx::array& x, const mx::array& update, const mx::array& start,
                            const std::vector<int>& axes, const mx::Stream& s) {
  if (update.ndim() != x.ndim()) {
    throw std::invalid_argument("DynamicSetSlice: update has shape " + shape_str(update.shape()) + " and x " +
                                shape_str(x.shape()) + "; the update needs x's rank (Reshape it)");
  }
  for (int i = 0; i < x.ndim(); i++) {
    if (update.shape(i) > x.shape(i)) {
      throw std::invalid_argument("DynamicSetSlice: update " + shape_str(update.shape()) + " does not fit in x " +
                                  shape_str(x.shape()) + " along axis " + std::to_string(i));
    }
  }
  std::vector<int> ax = axes;
  mx::array st = clamped_start("DynamicSetSlice", x, start, ax, update.shape(), s);
  mx::array u = update.dtype() == x.dtype() ? update : mx::astype(update, x.dtype(), s);
  return mx::slice_update(x, u, st, ax, s);
}

}  // namespace emily
