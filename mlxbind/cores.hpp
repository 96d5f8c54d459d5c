// cores.hpp: what the generated cores (gen_<family>.cc) include: the shim's
// internals plus the hand-written cores of ops MLX has no single function
// for. Each such core lives in the family file it belongs to
// (index.cc, nn.cc, ...) and is named by its spec row's Cpp expression.
#pragma once

#include "mlx/einsum.h"
#include "mlx/fast.h"
#include "mlx/fft.h"
#include "mlx/linalg.h"
#include "mlx/random.h"
#include "shim_internal.hpp"

namespace emily {}  // namespace emily
