// quant.cc: the cores of the quant family (MLX's affine quantization).
// MLX's CPU kernels walk the packed words by the shapes they are given,
// so every attribute and shape is checked here, in every lane, before MLX
// sees them; the errors name the op, the shapes and the fix.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cores.hpp"

namespace emily {

namespace {

std::string shape_str(const mx::array& a) {
  std::string out = "[";
  for (int i = 0; i < a.ndim(); i++) {
    if (i > 0) out += " ";
    out += std::to_string(a.shape(i));
  }
  return out + "]";
}

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw std::invalid_argument(std::string(op) + ": " + msg);
}

bool is_float(const mx::array& a) {
  return a.dtype() == mx::float32 || a.dtype() == mx::float16 || a.dtype() == mx::bfloat16;
}

std::string dtype_str(const mx::array& a) {
  std::ostringstream o;
  o << a.dtype();
  return o.str();
}

void check_attrs(const char* op, int group_size, int bits) {
  if (bits != 2 && bits != 3 && bits != 4 && bits != 6 && bits != 8) {
    fail(op, "bits is " + std::to_string(bits) + "; use 2, 3, 4, 6 or 8");
  }
  if (group_size != 32 && group_size != 64 && group_size != 128) {
    fail(op, "groupSize is " + std::to_string(group_size) + "; use 32, 64 or 128");
  }
}

// check_packed checks a quantized triple: wq uint32 (…, R, K·bits/32),
// scales and biases (…, R, K/groupSize) of one float dtype. It returns K.
int check_packed(const char* op, const mx::array& wq, const mx::array& scales, const mx::array& biases,
                 int group_size, int bits) {
  check_attrs(op, group_size, bits);
  if (wq.dtype() != mx::uint32) {
    fail(op, "wq is " + dtype_str(wq) + " " + shape_str(wq) + "; the packed codes are uint32, as Quantize returns them");
  }
  if (wq.ndim() < 2) {
    fail(op, "wq has shape " + shape_str(wq) + "; it needs at least 2 dimensions (…, rows, K·bits/32): Reshape a row to [1 n]");
  }
  if (!is_float(scales) || scales.dtype() != biases.dtype()) {
    fail(op, "scales are " + dtype_str(scales) + " and biases " + dtype_str(biases) +
                 "; both must be one of float32, float16, bfloat16 (Astype them)");
  }
  if (scales.shape() != biases.shape()) {
    fail(op, "scales " + shape_str(scales) + " and biases " + shape_str(biases) + " must have the same shape");
  }
  bool same_lead = scales.ndim() == wq.ndim() &&
                   std::equal(wq.shape().begin(), wq.shape().end() - 1, scales.shape().begin());
  int64_t words = wq.shape(-1);
  int64_t groups = scales.ndim() > 0 ? scales.shape(-1) : 0;
  if (!same_lead || words * 32 != groups * group_size * bits || groups == 0) {
    std::string want = "[";
    for (int i = 0; i + 1 < wq.ndim(); i++) want += std::to_string(wq.shape(i)) + " ";
    want += std::to_string(words * 32 / bits / group_size) + "]";
    fail(op, "wq " + shape_str(wq) + " with bits=" + std::to_string(bits) + " and groupSize=" +
                 std::to_string(group_size) + " needs scales and biases of shape " + want + ", got " +
                 shape_str(scales) + (groups == 0 ? " (no groups: wq's last dimension is 0)" : "") +
                 "; pass the groupSize and bits the weights were quantized with");
  }
  return static_cast<int>(words * 32 / bits);
}

void check_x(const char* op, const mx::array& x, const mx::array& scales) {
  if (!is_float(x)) {
    fail(op, "x is " + dtype_str(x) + "; it must be float32, float16 or bfloat16 (Astype it to the scales' dtype)");
  }
  if (x.ndim() < 1) {
    fail(op, "x is a scalar; it needs a last axis K (…, M, K)");
  }
}

// check_inner checks x's last axis against w's inner dimension and
// returns w's output dimension N.
void check_inner(const char* op, const mx::array& x, const mx::array& wq, bool transpose, int k) {
  int inner = transpose ? k : wq.shape(-2);
  if (x.shape(-1) != inner) {
    fail(op, "x " + shape_str(x) + " has " + std::to_string(x.shape(-1)) + " columns but the quantized w (" +
                 (transpose ? "transposed: N×K = " + std::to_string(wq.shape(-2)) + "×" + std::to_string(k)
                            : "K×N = " + std::to_string(wq.shape(-2)) + "×" + std::to_string(k)) +
                 ") needs " + std::to_string(inner) + (transpose ? "; pass transpose=false for a (K, N) w" : ""));
  }
}

// clamp_index clamps an integer index array into [0, n): MLX's gather
// kernels read the batch entry an index names without a bounds check.
mx::array clamp_index(const char* op, const char* name, const mx::array& idx, int n, const mx::Stream& s) {
  if (!mx::issubdtype(idx.dtype(), mx::integer)) {
    fail(op, std::string(name) + " is " + dtype_str(idx) + "; indices must be integers (Astype them to int32)");
  }
  mx::array i = mx::astype(idx, mx::int64, s);
  i = mx::clip(i, mx::array(int64_t{0}), mx::array(static_cast<int64_t>(std::max(n - 1, 0))), s);
  return mx::astype(i, mx::uint32, s);
}

int batch_of(const mx::array& a) {
  int64_t n = 1;
  for (int i = 0; i + 2 < a.ndim(); i++) n *= a.shape(i);
  return static_cast<int>(n);
}

// empty_product is the result of a quantized product with an empty
// operand: MLX's CPU kernel divides by the row count and the output size
// (SIGFPE on an empty x or w), so the shape comes from a plain matmul of
// zeros of the dequantized shape, which has none of that.
mx::array empty_product(const mx::array& x, const mx::array& wq, bool transpose, int k, const mx::Stream& s) {
  mx::Shape ws = wq.shape();
  ws.back() = k;
  mx::array w = mx::zeros(ws, x.dtype(), s);
  return mx::matmul(x, transpose ? mx::swapaxes(w, -1, -2, s) : w, s);
}

}  // namespace

std::vector<mx::array> quantize_affine(const mx::array& w, int group_size, int bits, const mx::Stream& s) {
  const char* op = "Quantize";
  check_attrs(op, group_size, bits);
  if (!is_float(w)) {
    fail(op, "w is " + dtype_str(w) + "; it must be float32, float16 or bfloat16 (Astype it)");
  }
  if (w.ndim() < 2) {
    fail(op, "w has shape " + shape_str(w) + "; it needs at least 2 dimensions (…, rows, K): Reshape a vector to [1 K]");
  }
  int k = w.shape(-1);
  if (k == 0 || k % group_size != 0) {
    fail(op, "w " + shape_str(w) + " has a last dimension of " + std::to_string(k) +
                 ", which does not divide into groups of " + std::to_string(group_size) +
                 "; pad the last axis to a multiple of groupSize or pick a groupSize that divides it");
  }
  return mx::quantize(w, group_size, bits, "affine", std::nullopt, s);
}

mx::array dequantize_affine(const mx::array& wq, const mx::array& scales, const mx::array& biases, int group_size,
                            int bits, const mx::Stream& s) {
  check_packed("Dequantize", wq, scales, biases, group_size, bits);
  return mx::dequantize(wq, scales, biases, group_size, bits, "affine", std::nullopt, std::nullopt, s);
}

mx::array quantized_matmul_affine(const mx::array& x, const mx::array& wq, const mx::array& scales,
                                  const mx::array& biases, bool transpose, int group_size, int bits,
                                  const mx::Stream& s) {
  const char* op = "QuantizedMatmul";
  int k = check_packed(op, wq, scales, biases, group_size, bits);
  check_x(op, x, scales);
  check_inner(op, x, wq, transpose, k);
  if (x.size() == 0 || wq.size() == 0) return empty_product(x, wq, transpose, k, s);
  return mx::quantized_matmul(x, wq, scales, biases, transpose, group_size, bits, "affine", s);
}

mx::array gather_qmm_affine(const mx::array& x, const mx::array& wq, const mx::array& scales,
                            const mx::array& biases, const mx::array& lhs_indices, const mx::array& rhs_indices,
                            bool transpose, int group_size, int bits, const mx::Stream& s) {
  const char* op = "GatherQMM";
  int k = check_packed(op, wq, scales, biases, group_size, bits);
  check_x(op, x, scales);
  if (x.ndim() < 2) {
    fail(op, "x has shape " + shape_str(x) + "; it needs (…, M, K): Reshape a row to [1 K]");
  }
  check_inner(op, x, wq, transpose, k);
  // Clamping cannot make an index into an empty batch valid.
  if ((batch_of(x) == 0 && lhs_indices.size() > 0) || (batch_of(wq) == 0 && rhs_indices.size() > 0)) {
    fail(op, "x " + shape_str(x) + " or wq " + shape_str(wq) + " has no matrices for the indices to pick");
  }
  mx::array lhs = clamp_index(op, "lhsIndices", lhs_indices, batch_of(x), s);
  mx::array rhs = clamp_index(op, "rhsIndices", rhs_indices, batch_of(wq), s);
  if (x.size() == 0 || wq.size() == 0 || lhs.size() == 0 || rhs.size() == 0) {
    // As empty_product: MLX's kernel divides by the empty sizes.
    mx::Shape out = mx::broadcast_shapes(lhs.shape(), rhs.shape());
    out.push_back(x.shape(-2));
    out.push_back(transpose ? wq.shape(-2) : k);
    return mx::zeros(out, x.dtype(), s);
  }
  return mx::gather_qmm(x, wq, scales, biases, lhs, rhs, transpose, group_size, bits, "affine", std::nullopt, false,
                        s);
}

}  // namespace emily
