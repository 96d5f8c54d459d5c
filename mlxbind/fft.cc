// fft.cc: the FFT cores: one entry per transform kind (0 fft, 1 ifft,
// 2 rfft, 3 irfft) with NumPy's n/axes defaults.
#include <stdexcept>

#include "cores.hpp"

namespace emily {

namespace {
constexpr auto kBackward = mx::fft::FFTNorm::Backward;
}

mx::array fft1(int kind, const mx::array& x, int n, int axis, const mx::Stream& s) {
  if (n < 0) throw std::invalid_argument("FFT: n must be positive (0 keeps the axis length)");
  bool sized = n > 0;
  switch (kind) {
    case 0: return sized ? mx::fft::fft(x, n, axis, kBackward, s) : mx::fft::fft(x, axis, kBackward, s);
    case 1: return sized ? mx::fft::ifft(x, n, axis, kBackward, s) : mx::fft::ifft(x, axis, kBackward, s);
    case 2: return sized ? mx::fft::rfft(x, n, axis, kBackward, s) : mx::fft::rfft(x, axis, kBackward, s);
    default: return sized ? mx::fft::irfft(x, n, axis, kBackward, s) : mx::fft::irfft(x, axis, kBackward, s);
  }
}

mx::array fftn_op(int kind, const mx::array& x, const mx::Shape& n, const std::vector<int>& axes,
                  const mx::Stream& s) {
  std::vector<int> ax = axes;
  if (ax.empty()) {
    // NumPy: no axes means all of them, or the last len(n) when n is given.
    int k = n.empty() ? x.ndim() : static_cast<int>(n.size());
    for (int i = x.ndim() - k; i < x.ndim(); i++) ax.push_back(i);
  }
  if (n.empty()) {
    switch (kind) {
      case 0: return mx::fft::fftn(x, ax, kBackward, s);
      case 1: return mx::fft::ifftn(x, ax, kBackward, s);
      case 2: return mx::fft::rfftn(x, ax, kBackward, s);
      default: return mx::fft::irfftn(x, ax, kBackward, s);
    }
  }
  switch (kind) {
    case 0: return mx::fft::fftn(x, n, ax, kBackward, s);
    case 1: return mx::fft::ifftn(x, n, ax, kBackward, s);
    case 2: return mx::fft::rfftn(x, n, ax, kBackward, s);
    default: return mx::fft::irfftn(x, n, ax, kBackward, s);
  }
}

}  // namespace emily
