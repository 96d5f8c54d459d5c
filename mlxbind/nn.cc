// nn.cc: the hand-written cores of the nn ops MLX has no single function
// for: pooling (MLX core has none; built from pad + as_strided + max/mean
// as mlx.nn does), convolutions taking per-axis lists, the norms with
// optional weight and bias, and the activations mlx.nn composes in Python.
#include <limits>
#include <sstream>
#include <stdexcept>

#include "cores.hpp"

namespace emily {

namespace {

std::string shape_str(const mx::array& a) {
  std::string out = "(";
  for (int i = 0; i < a.ndim(); i++) {
    if (i > 0) out += ", ";
    out += std::to_string(a.shape(i));
  }
  return out + ")";
}

// per_axis turns a per-axis list into nd entries: empty means def on every
// axis, one entry means that entry on every axis.
std::vector<int> per_axis(const std::string& op, const char* what, const std::vector<int>& v, int nd,
                          int def) {
  if (v.empty()) return std::vector<int>(nd, def);
  if (v.size() == 1) return std::vector<int>(nd, v[0]);
  if (static_cast<int>(v.size()) != nd) {
    throw std::invalid_argument(op + ": " + what + " has " + std::to_string(v.size()) + " entries for " +
                                std::to_string(nd) +
                                " spatial axes; give one per axis, one for all, or none for the default");
  }
  return v;
}

void check_rank(const std::string& op, const char* what, const mx::array& a, int rank, const char* layout) {
  if (a.ndim() != rank) {
    throw std::invalid_argument(op + ": " + what + " has shape " + shape_str(a) + ", want rank " +
                                std::to_string(rank) + " " + layout);
  }
}

const char* conv_layout(int nd) {
  switch (nd) {
    case 1: return "(N, L, C) channels-last; weight (C_out, K, C_in/groups)";
    case 2: return "(N, H, W, C) channels-last; weight (C_out, KH, KW, C_in/groups)";
    default: return "(N, D, H, W, C) channels-last; weight (C_out, KD, KH, KW, C_in/groups)";
  }
}

}  // namespace

mx::array conv_nd(const mx::array& x, const mx::array& w, int nd, const std::vector<int>& stride,
                  const std::vector<int>& padding, const std::vector<int>& dilation, int groups,
                  const mx::Stream& s) {
  std::string op = "Conv" + std::to_string(nd) + "d";
  check_rank(op, "x", x, nd + 2, conv_layout(nd));
  check_rank(op, "w", w, nd + 2, conv_layout(nd));
  auto st = per_axis(op, "stride", stride, nd, 1);
  auto pad = per_axis(op, "padding", padding, nd, 0);
  auto dil = per_axis(op, "dilation", dilation, nd, 1);
  return mx::conv_general(x, w, st, pad, pad, dil, std::vector<int>(nd, 1), groups, false, s);
}

mx::array conv_transpose_nd(const mx::array& x, const mx::array& w, int nd, const std::vector<int>& stride,
                            const std::vector<int>& padding, const std::vector<int>& dilation,
                            const std::vector<int>& output_padding, int groups, const mx::Stream& s) {
  std::string op = "ConvTranspose" + std::to_string(nd) + "d";
  check_rank(op, "x", x, nd + 2, conv_layout(nd));
  check_rank(op, "w", w, nd + 2, conv_layout(nd));
  auto st = per_axis(op, "stride", stride, nd, 1);
  auto pad = per_axis(op, "padding", padding, nd, 0);
  auto dil = per_axis(op, "dilation", dilation, nd, 1);
  auto opad = per_axis(op, "output_padding", output_padding, nd, 0);
  switch (nd) {
    case 1:
      return mx::conv_transpose1d(x, w, st[0], pad[0], dil[0], opad[0], groups, s);
    case 2:
      return mx::conv_transpose2d(x, w, {st[0], st[1]}, {pad[0], pad[1]}, {dil[0], dil[1]},
                                  {opad[0], opad[1]}, groups, s);
    default:
      return mx::conv_transpose3d(x, w, {st[0], st[1], st[2]}, {pad[0], pad[1], pad[2]},
                                  {dil[0], dil[1], dil[2]}, {opad[0], opad[1], opad[2]}, groups, s);
  }
}

// pool reduces kernel windows of the spatial axes of channels-last x: pad
// (with -inf for max, 0 for mean, as mlx.nn does), view the windows with
// as_strided as (N, out…, kernel…, C), reduce the kernel axes.
mx::array pool(const mx::array& x, const std::vector<int>& kernel, const std::vector<int>& stride,
               const std::vector<int>& padding, bool is_max, const char* name, const mx::Stream& s) {
  std::string op = name;
  int nd = static_cast<int>(kernel.size());
  check_rank(op, "x", x, nd + 2, nd == 1 ? "(N, L, C) channels-last" : "(N, H, W, C) channels-last");
  if (!mx::issubdtype(x.dtype(), mx::floating)) {
    throw std::invalid_argument(op + ": x has an integer or bool dtype; Astype it to a float type");
  }
  auto st = per_axis(op, "stride", stride, nd, 0);
  auto pad = per_axis(op, "padding", padding, nd, 0);
  for (int i = 0; i < nd; i++) {
    if (kernel[i] < 1) throw std::invalid_argument(op + ": kernel sizes must be positive");
    if (st[i] <= 0) st[i] = kernel[i];
    if (pad[i] < 0 || 2 * pad[i] > kernel[i]) {
      throw std::invalid_argument(op + ": padding " + std::to_string(pad[i]) + " on spatial axis " +
                                  std::to_string(i) + " must be between 0 and half the kernel (" +
                                  std::to_string(kernel[i]) + ")");
    }
  }
  mx::array xp = x;
  bool padded = false;
  for (int p : pad) padded = padded || p > 0;
  if (padded) {
    std::vector<int> axes(nd);
    mx::Shape lo(nd), hi(nd);
    for (int i = 0; i < nd; i++) {
      axes[i] = i + 1;
      lo[i] = hi[i] = pad[i];
    }
    double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    xp = mx::pad(x, axes, lo, hi, mx::array(fill, x.dtype()), "constant", s);
  }
  int rank = nd + 2;
  std::vector<int> red(nd);
  for (int i = 0; i < nd; i++) red[i] = nd + 1 + i;
  // Windows that tile the (padded) input, stride = kernel dividing each
  // spatial size (the usual 2×2 pool): a reshape (N, H/kh, kh, W/kw, kw,
  // C) and a transpose to (N, H/kh, W/kw, kh, kw, C), as mlx.nn's pooling
  // does. Same values as the as_strided view below, but its gradient is a
  // reshape and a transpose: as_strided's VJP is a scatter-add over
  // computed indices, which took a fifth of a small CNN's train step on
  // the CPU (bench/train, BENCHMARKS.md).
  bool tiles = true;
  for (int i = 0; i < nd; i++) tiles = tiles && st[i] == kernel[i] && xp.shape(i + 1) % kernel[i] == 0;
  if (tiles) {
    mx::Shape split{xp.shape(0)};
    std::vector<int> order{0};
    for (int i = 0; i < nd; i++) {
      split.push_back(xp.shape(i + 1) / kernel[i]);
      split.push_back(kernel[i]);
      order.push_back(1 + 2 * i);
    }
    for (int i = 0; i < nd; i++) order.push_back(2 + 2 * i);
    split.push_back(xp.shape(rank - 1));
    order.push_back(2 * nd + 1);
    auto windows = mx::transpose(mx::reshape(xp, split, s), order, s);
    return is_max ? mx::max(windows, red, false, s) : mx::mean(windows, red, false, s);
  }
  // Row-major strides of the (contiguous) padded array, in elements.
  std::vector<int64_t> el(rank);
  int64_t acc = 1;
  for (int i = rank - 1; i >= 0; i--) {
    el[i] = acc;
    acc *= xp.shape(i);
  }
  mx::Shape shape;
  mx::Strides strides;
  shape.push_back(xp.shape(0));
  strides.push_back(el[0]);
  for (int i = 0; i < nd; i++) {
    int size = xp.shape(i + 1);
    if (size < kernel[i]) {
      throw std::invalid_argument(op + ": spatial axis " + std::to_string(i) + " of x " + shape_str(x) +
                                  " is shorter than the kernel (" + std::to_string(kernel[i]) + ") plus padding");
    }
    shape.push_back((size - kernel[i]) / st[i] + 1);
    strides.push_back(el[i + 1] * st[i]);
  }
  for (int i = 0; i < nd; i++) {
    shape.push_back(kernel[i]);
    strides.push_back(el[i + 1]);
  }
  shape.push_back(xp.shape(rank - 1));
  strides.push_back(el[rank - 1]);
  auto windows = mx::as_strided(xp, shape, strides, 0, s);
  return is_max ? mx::max(windows, red, false, s) : mx::mean(windows, red, false, s);
}

mx::array layer_norm(const std::vector<mx::array>& xwb, bool has_weight, bool has_bias, double eps,
                     const mx::Stream& s) {
  size_t want = 1 + (has_weight ? 1 : 0) + (has_bias ? 1 : 0);
  if (xwb.size() != want) {
    throw std::invalid_argument("LayerNorm: got " + std::to_string(xwb.size()) + " operands, want " +
                                std::to_string(want));
  }
  std::optional<mx::array> w, b;
  size_t i = 1;
  if (has_weight) w = xwb[i++];
  if (has_bias) b = xwb[i++];
  return mx::fast::layer_norm(xwb[0], w, b, static_cast<float>(eps), s);
}

mx::array rms_norm(const std::vector<mx::array>& xw, bool has_weight, double eps, const mx::Stream& s) {
  size_t want = has_weight ? 2 : 1;
  if (xw.size() != want) {
    throw std::invalid_argument("RMSNorm: got " + std::to_string(xw.size()) + " operands, want " +
                                std::to_string(want));
  }
  std::optional<mx::array> w;
  if (has_weight) w = xw[1];
  return mx::fast::rms_norm(xw[0], w, static_cast<float>(eps), s);
}

// Activations: constants take x's dtype so a half-precision x stays half.

mx::array relu(const mx::array& x, const mx::Stream& s) {
  return mx::maximum(x, mx::array(0, x.dtype()), s);
}

mx::array leaky_relu(const mx::array& x, double slope, const mx::Stream& s) {
  return mx::maximum(mx::multiply(x, mx::array(slope, x.dtype()), s), x, s);
}

mx::array elu(const mx::array& x, double alpha, const mx::Stream& s) {
  auto neg = mx::multiply(mx::array(alpha, x.dtype()), mx::expm1(x, s), s);
  return mx::where(mx::greater(x, mx::array(0, x.dtype()), s), x, neg, s);
}

mx::array gelu(const mx::array& x, const mx::Stream& s) {
  auto t = x.dtype();
  auto cdf = mx::multiply(mx::add(mx::array(1, t), mx::erf(mx::multiply(x, mx::array(M_SQRT1_2, t), s), s), s),
                          mx::array(0.5, t), s);
  return mx::multiply(x, cdf, s);
}

mx::array gelu_tanh(const mx::array& x, const mx::Stream& s) {
  auto t = x.dtype();
  auto cube = mx::multiply(mx::multiply(x, x, s), x, s);
  auto inner = mx::multiply(mx::array(std::sqrt(2.0 / M_PI), t),
                            mx::add(x, mx::multiply(mx::array(0.044715, t), cube, s), s), s);
  return mx::multiply(mx::multiply(mx::array(0.5, t), x, s), mx::add(mx::array(1, t), mx::tanh(inner, s), s), s);
}

mx::array silu(const mx::array& x, const mx::Stream& s) { return mx::multiply(x, mx::sigmoid(x, s), s); }

// rope_at is mx::fast::rope with the position offset as an array, so that
// one traced program serves every decode position (an int offset is an
// attribute: a new program per token). MLX checks x and dims as for RoPE
// and the offset's shape (a scalar, or one entry per x.shape[0]); the
// offset is read as int32, so any integer dtype is taken and converted.
mx::array rope_at(const mx::array& x, int dims, bool traditional, double base, double scale, const mx::array& offset,
                  const mx::Stream& s) {
  if (!mx::issubdtype(offset.dtype(), mx::integer)) {
    std::ostringstream o;
    o << offset.dtype();
    throw std::invalid_argument("RoPEAt: offset is " + o.str() +
                                "; the position offset must be an integer tensor (Astype it to int32)");
  }
  mx::array off = offset.dtype() == mx::int32 ? offset : mx::astype(offset, mx::int32, s);
  return mx::fast::rope(x, dims, traditional, static_cast<float>(base), static_cast<float>(scale), off, std::nullopt,
                        s);
}

}  // namespace emily
