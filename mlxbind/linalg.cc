// linalg.cc: the hand-written cores of the linalg ops: NumPy's dot rule
// (MLX has no dot) and norms that move the SVD-based orders to the CPU.
#include <cmath>
#include <stdexcept>

#include "cores.hpp"

namespace emily {

namespace {
std::string dims_of(const mx::array& a) {
  std::string out = "(";
  for (int i = 0; i < a.ndim(); i++) {
    if (i > 0) out += ", ";
    out += std::to_string(a.shape(i));
  }
  return out + ")";
}
}  // namespace

mx::array numpy_dot(const mx::array& a, const mx::array& b, const mx::Stream& s) {
  if (a.ndim() == 0 || b.ndim() == 0) return mx::multiply(a, b, s);
  int ax_b = b.ndim() == 1 ? 0 : b.ndim() - 2;
  if (a.shape(-1) != b.shape(ax_b)) {
    throw std::invalid_argument("Dot: a " + dims_of(a) + " and b " + dims_of(b) +
                                ": a's last dimension must equal b's " +
                                (b.ndim() == 1 ? std::string("only one") : std::string("second-to-last")) +
                                "; Transpose or Reshape an operand");
  }
  return mx::tensordot(a, b, {static_cast<int>(a.ndim()) - 1}, {ax_b}, s);
}

mx::array linalg_norm(const mx::array& x, bool use_ord, double ord, const std::vector<int>& axes, bool keepdims,
                      const mx::Stream& s) {
  std::optional<std::vector<int>> ax;
  if (!axes.empty()) ax = axes;
  if (!use_ord) return mx::linalg::norm(x, ax, keepdims, s);
  bool matrix = axes.size() == 2 || (axes.empty() && x.ndim() == 2);
  // Matrix orders ±2 are singular values: MLX's SVD runs on the CPU only,
  // in float32 or float64 (a half-precision x goes through float32).
  if (matrix && std::abs(ord) == 2) {
    auto cpu = cpu_stream();
    bool half = x.dtype() == mx::float16 || x.dtype() == mx::bfloat16;
    auto n = mx::linalg::norm(half ? mx::astype(x, mx::float32, cpu) : x, ord, ax, keepdims, cpu);
    return half ? mx::astype(n, x.dtype(), cpu) : n;
  }
  return mx::linalg::norm(x, ord, ax, keepdims, s);
}

// cross3 is the cross product along axis. MLX's linalg::cross builds an op
// on the calling thread's default stream (not s), so its result failed to
// evaluate on another OS thread; this is the same formula, every op on s.
mx::array cross3(const mx::array& a, const mx::array& b, int axis, const mx::Stream& s) {
  auto ab = mx::broadcast_arrays({a, b}, s);
  int nd = static_cast<int>(ab[0].ndim());
  if (axis < -nd || axis >= nd || ab[0].shape(axis < 0 ? axis + nd : axis) != 3) {
    throw std::invalid_argument("Cross: a " + dims_of(a) + " and b " + dims_of(b) + " need size 3 along axis " +
                                std::to_string(axis));
  }
  auto x = mx::split(ab[0], 3, axis, s);
  auto y = mx::split(ab[1], 3, axis, s);
  auto term = [&](int i, int j) {
    return mx::subtract(mx::multiply(x[i], y[j], s), mx::multiply(x[j], y[i], s), s);
  };
  return mx::concatenate({term(1, 2), term(2, 0), term(0, 1)}, axis, s);
}

namespace {
// largest_sign is +1 or -1: the sign of the largest-magnitude entry of m
// along axis (kept as size 1), so that m * largest_sign has it positive.
mx::array largest_sign(const mx::array& m, int axis, const mx::Stream& s) {
  auto idx = mx::argmax(mx::abs(m, s), axis, true, s);
  auto val = mx::take_along_axis(m, idx, axis, s);
  return mx::where(mx::less(val, mx::array(0, m.dtype()), s), mx::array(-1, m.dtype()),
                   mx::array(1, m.dtype()), s);
}
}  // namespace

// svd_signed is MLX's SVD (on the CPU) with a fixed sign convention, as
// scikit-learn's svd_flip: each column of U gets its largest-magnitude
// entry positive and the matching row of Vᵀ flips with it (U diag(S) Vᵀ is
// unchanged); rows of Vᵀ past min(m, n), which pair with no column of U,
// get their own largest entry positive. LAPACK builds differ in the signs
// they return; this makes SVD reproducible and comparable.
std::vector<mx::array> svd_signed(const mx::array& x) {
  auto cpu = cpu_stream();
  auto usv = mx::linalg::svd(x, true, cpu);
  auto& u = usv[0];
  auto& vt = usv[2];
  int k = static_cast<int>(usv[1].shape(-1));
  int n = vt.shape(-1);
  auto su = largest_sign(u, -2, cpu);                                 // (…, 1, m)
  auto sv = largest_sign(vt, -1, cpu);                                // (…, n, 1)
  auto su_t = mx::swapaxes(su, -1, -2, cpu);                         // (…, m, 1)
  auto stop = su_t.shape();
  stop[stop.size() - 2] = k;
  auto su_k = mx::slice(su_t, mx::Shape(su_t.ndim(), 0), stop, cpu);  // (…, k, 1)
  mx::array flip_v = su_k;
  if (n > k) {
    auto start = mx::Shape(sv.ndim(), 0);
    start[start.size() - 2] = k;
    flip_v = mx::concatenate({su_k, mx::slice(sv, start, sv.shape(), cpu)}, -2, cpu);
  }
  return {mx::multiply(u, su, cpu), usv[1], mx::multiply(vt, flip_v, cpu)};
}

// eigh_signed is MLX's eigh (on the CPU) with each eigenvector's
// largest-magnitude entry made positive.
std::pair<mx::array, mx::array> eigh_signed(const mx::array& x) {
  auto cpu = cpu_stream();
  auto [w, v] = mx::linalg::eigh(x, "L", cpu);
  return {w, mx::multiply(v, largest_sign(v, -2, cpu), cpu)};
}

}  // namespace emily
