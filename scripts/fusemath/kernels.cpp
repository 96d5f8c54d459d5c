// kernels.cpp: MLX's Log, Log2, Log10 and Exp in the loop form of a fused
// CPU kernel, for scripts/check-fuse-math.sh.
#include "mlx/backend/cpu/compiled_preamble.h"
using namespace mlx::core;
using namespace mlx::core::detail;
extern "C" void k0(const float* a, float* b, size_t n){ for(size_t i=0;i<n;i++) b[i]=Log()(a[i]); }
extern "C" void k1(const float* a, float* b, size_t n){ for(size_t i=0;i<n;i++) b[i]=Log2()(a[i]); }
extern "C" void k2(const float* a, float* b, size_t n){ for(size_t i=0;i<n;i++) b[i]=Log10()(a[i]); }
extern "C" void k3(const float* a, float* b, size_t n){ for(size_t i=0;i<n;i++) b[i]=Exp()(a[i]); }
