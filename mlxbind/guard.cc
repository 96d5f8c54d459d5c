// guard.cc: the checks the op spec asks for before MLX sees an op's
// operands (issue 19). Each was a native fault: MLX divides by a
// dimension, a group count or a divisor value without looking, and x86
// turns an integer division by zero, or INT_MIN / -1, into SIGFPE. The
// generated cores (gen_*.cc) call these in every lane: eager, evaluator,
// native replay and the fuse trace all go through the same core.
#include <limits>
#include <optional>
#include <stdexcept>

#include "cores.hpp"

namespace emily {

namespace {
std::string join_ints(const std::vector<int>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); i++) {
    if (i > 0) out += " ";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

std::string shape_str(const mx::array& a) {
  std::vector<int> d(a.shape().begin(), a.shape().end());
  return join_ints(d);
}
}  // namespace

void check_at_least(const char* op, const char* attr, int64_t v, int64_t min) {
  if (v < min) {
    throw std::invalid_argument(std::string(op) + ": " + attr + " is " + std::to_string(v) + ", it must be at least " +
                                std::to_string(min));
  }
}

void check_each_at_least(const char* op, const char* attr, const std::vector<int>& v, int64_t min) {
  for (int x : v) {
    if (x < min) {
      throw std::invalid_argument(std::string(op) + ": " + attr + " is " + join_ints(v) +
                                  ", every entry must be at least " + std::to_string(min));
    }
  }
}

void check_nonempty(const char* op, const char* operand, const mx::array& a, const std::vector<int>& axes,
                    const char* what) {
  std::vector<int> dims = axes;
  if (dims.empty()) {  // every axis
    for (int i = 0; i < static_cast<int>(a.ndim()); ++i) dims.push_back(i);
  }
  for (int d : dims) {
    int nd = static_cast<int>(a.ndim());
    int ax = d < 0 ? d + nd : d;
    if (ax < 0 || ax >= nd) continue;  // the op's own rank check names it
    if (a.shape(ax) == 0) {
      throw std::invalid_argument(std::string(op) + ": " + operand + " has shape " + shape_str(a) + ": " + what +
                                  " must not be empty (size 0 along axis " + std::to_string(ax) + ")");
    }
  }
}

std::vector<mx::array> checked_outputs(const char* op, std::vector<mx::array> outs) {
  // MLX is lazy: the results are shapes until evaluated, so a result too
  // large for memory (FFT with n = 2^31-1, a Pad of 2^31) is refused here,
  // before anything is allocated, instead of hanging or faulting in MLX.
  size_t limit = mx::get_memory_limit();
  for (const auto& o : outs) {
    unsigned __int128 bytes = o.itemsize();
    for (int d : o.shape()) {
      bytes *= static_cast<unsigned __int128>(d < 0 ? 0 : d);
      if (bytes > std::numeric_limits<uint64_t>::max()) break;
    }
    if (limit > 0 && bytes > limit) {
      throw std::invalid_argument(std::string(op) + ": the result has shape " + shape_str(o) + " and needs " +
                                  (bytes > std::numeric_limits<uint64_t>::max()
                                       ? std::string("more than 2^64")
                                       : std::to_string(static_cast<uint64_t>(bytes))) +
                                  " bytes, more than the memory limit of " + std::to_string(limit) + " bytes");
    }
  }
  return outs;
}

namespace {

// int_operands promotes a and b to their common dtype and reports whether
// it is an integer one (the only case that needs the guard).
bool int_operands(mx::array& a, mx::array& b, const mx::Stream& s) {
  auto dt = mx::promote_types(a.dtype(), b.dtype());
  if (!mx::issubdtype(dt, mx::integer)) return false;
  a = mx::astype(a, dt, s);
  b = mx::astype(b, dt, s);
  return true;
}

// IntQuotient is NumPy's floor division of integers: x // 0 is 0, and
// INT_MIN // -1 wraps to INT_MIN (NumPy warns, we do not). The divisor
// MLX sees is never 0 or -1, so its kernel cannot trap.
struct IntDivision {
  mx::array q, r;
};

IntDivision int_division(const mx::array& a, const mx::array& b, const mx::Stream& s) {
  auto dt = a.dtype();
  auto zero = mx::equal(b, mx::array(0, dt), s);
  auto bad = zero;
  std::optional<mx::array> neg1;
  if (mx::issubdtype(dt, mx::signedinteger)) {
    neg1 = mx::equal(b, mx::array(-1, dt), s);
    bad = mx::logical_or(zero, *neg1, s);
  }
  auto safe = mx::where(bad, mx::array(1, dt), b, s);
  auto q = mx::floor_divide(a, safe, s);
  // a % 1 is 0, which is NumPy's remainder for a divisor of 0 and of -1.
  auto r = mx::remainder(a, safe, s);
  if (neg1) {
    // a // -1 is -a; 0 - INT_MIN wraps to INT_MIN as NumPy's does.
    q = mx::where(*neg1, mx::subtract(mx::array(0, dt), a, s), q, s);
  }
  q = mx::where(zero, mx::array(0, dt), q, s);
  return {q, r};
}

}  // namespace

mx::array int_floor_divide(mx::array a, mx::array b, const mx::Stream& s) {
  if (!int_operands(a, b, s)) return mx::floor_divide(a, b, s);
  return int_division(a, b, s).q;
}

mx::array int_remainder(mx::array a, mx::array b, const mx::Stream& s) {
  if (!int_operands(a, b, s)) return mx::remainder(a, b, s);
  return int_division(a, b, s).r;
}

std::vector<mx::array> int_divmod(mx::array a, mx::array b, const mx::Stream& s) {
  if (!int_operands(a, b, s)) return mx::divmod(a, b, s);
  auto d = int_division(a, b, s);
  return {d.q, d.r};
}

}  // namespace emily
