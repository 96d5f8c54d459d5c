// cores.hpp: what the generated cores (gen_<family>.cc) include: the shim's
// internals plus the hand-written cores of ops MLX has no single function
// for. Each such core lives in the family file it belongs to
// (index.cc, nn.cc, ...) and is named by its spec row's Cpp expression.
#pragma once

#include "mlx/distributed/distributed.h"
#include "mlx/distributed/ops.h"
#include "mlx/einsum.h"
#include "mlx/fast.h"
#include "mlx/fft.h"
#include "mlx/linalg.h"
#include "mlx/random.h"
#include "shim_internal.hpp"

namespace emily {

// linalg.cc
mx::array numpy_dot(const mx::array& a, const mx::array& b, const mx::Stream& s);
mx::array linalg_norm(const mx::array& x, bool use_ord, double ord, const std::vector<int>& axes, bool keepdims,
                      const mx::Stream& s);
std::vector<mx::array> svd_signed(const mx::array& x);
std::pair<mx::array, mx::array> eigh_signed(const mx::array& x);
mx::array cross3(const mx::array& a, const mx::array& b, int axis, const mx::Stream& s);

// nn.cc
mx::array conv_nd(const mx::array& x, const mx::array& w, int nd, const std::vector<int>& stride,
                  const std::vector<int>& padding, const std::vector<int>& dilation, int groups,
                  const mx::Stream& s);
mx::array conv_transpose_nd(const mx::array& x, const mx::array& w, int nd, const std::vector<int>& stride,
                            const std::vector<int>& padding, const std::vector<int>& dilation,
                            const std::vector<int>& output_padding, int groups, const mx::Stream& s);
mx::array pool(const mx::array& x, const std::vector<int>& kernel, const std::vector<int>& stride,
               const std::vector<int>& padding, bool is_max, const char* name, const mx::Stream& s);
mx::array layer_norm(const std::vector<mx::array>& xwb, bool has_weight, bool has_bias, double eps,
                     const mx::Stream& s);
mx::array rms_norm(const std::vector<mx::array>& xw, bool has_weight, double eps, const mx::Stream& s);
mx::array relu(const mx::array& x, const mx::Stream& s);
mx::array leaky_relu(const mx::array& x, double slope, const mx::Stream& s);
mx::array elu(const mx::array& x, double alpha, const mx::Stream& s);
mx::array gelu(const mx::array& x, const mx::Stream& s);
mx::array gelu_tanh(const mx::array& x, const mx::Stream& s);
mx::array silu(const mx::array& x, const mx::Stream& s);
mx::array rope_at(const mx::array& x, int dims, bool traditional, double base, double scale, const mx::array& offset,
                  const mx::Stream& s);

// fft.cc: kind 0 fft, 1 ifft, 2 rfft, 3 irfft.
mx::array fft1(int kind, const mx::array& x, int n, int axis, const mx::Stream& s);
mx::array fftn_op(int kind, const mx::array& x, const mx::Shape& n, const std::vector<int>& axes,
                  const mx::Stream& s);

// random.cc
std::vector<mx::array> key_split(const mx::array& key, int num, const mx::Stream& s);
mx::array categorical_n(const mx::array& logits, int axis, int num, const mx::array& key, const mx::Stream& s);

// distributed.cc: group is an index into the shim's group table.
mx::distributed::Group group_at(int id);
mx::array dist_all_sum(const mx::array& x, int group, const mx::Stream& s);
mx::array dist_all_gather(const mx::array& x, int group, const mx::Stream& s);
mx::array dist_all_max(const mx::array& x, int group, const mx::Stream& s);
mx::array dist_all_min(const mx::array& x, int group, const mx::Stream& s);
mx::array dist_sum_scatter(const mx::array& x, int group, const mx::Stream& s);
mx::array dist_send(const mx::array& x, int dst, int group, const mx::Stream& s);
mx::array dist_recv(const mx::Shape& shape, mx::Dtype dtype, int src, int group, const mx::Stream& s);

// shape_of: an Ints attribute where MLX wants a Shape (slice bounds may be
// negative, which the Shape attribute kind forbids).
inline mx::Shape shape_of(const std::vector<int>& v) { return mx::Shape(v.begin(), v.end()); }

// guard.cc: the checks the spec's Attr.Min and Op.NonEmpty generate, the
// result-size check of every core, and NumPy's integer division.
void check_at_least(const char* op, const char* attr, int64_t v, int64_t min);
void check_each_at_least(const char* op, const char* attr, const std::vector<int>& v, int64_t min);
void check_nonempty(const char* op, const char* operand, const mx::array& a, const std::vector<int>& dims,
                    const char* what);
std::vector<mx::array> checked_outputs(const char* op, std::vector<mx::array> outs);
mx::array int_floor_divide(mx::array a, mx::array b, const mx::Stream& s);
mx::array int_remainder(mx::array a, mx::array b, const mx::Stream& s);
std::vector<mx::array> int_divmod(mx::array a, mx::array b, const mx::Stream& s);

// reduce.cc
bool one_axis(const char* op, const std::vector<int>& axes);

// index.cc
mx::array scatter_axis(const mx::array& x, const mx::array& indices, const mx::array& updates, int axis,
                       int mode, const mx::Stream& s);
mx::array dynamic_slice(const mx::array& x, const mx::array& start, const std::vector<int>& axes,
                        const std::vector<int>& sizes, const mx::Stream& s);
mx::array dynamic_set_slice(const mx::array& x, const mx::array& update, const mx::array& start,
                            const std::vector<int>& axes, const mx::Stream& s);
mx::array masked_scatter_safe(const mx::array& x, const mx::array& mask, const mx::array& values,
                              const mx::Stream& s);

// quant.cc: MLX's affine quantization, with every attribute and shape
// checked first.
std::vector<mx::array> quantize_affine(const mx::array& w, int group_size, int bits, const mx::Stream& s);
mx::array dequantize_affine(const mx::array& wq, const mx::array& scales, const mx::array& biases, int group_size,
                            int bits, const mx::Stream& s);
mx::array quantized_matmul_affine(const mx::array& x, const mx::array& wq, const mx::array& scales,
                                  const mx::array& biases, bool transpose, int group_size, int bits,
                                  const mx::Stream& s);
mx::array gather_qmm_affine(const mx::array& x, const mx::array& wq, const mx::array& scales,
                            const mx::array& biases, const mx::array& lhs_indices, const mx::array& rhs_indices,
                            bool transpose, int group_size, int bits, const mx::Stream& s);

}  // namespace emily
