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
  // Matrix orders ±2 are singular values: MLX's SVD runs on the CPU only.
  mx::Stream st = matrix && std::abs(ord) == 2 ? cpu_stream() : s;
  return mx::linalg::norm(x, ord, ax, keepdims, st);
}

}  // namespace emily
