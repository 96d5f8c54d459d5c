"""NumPy reference functions for ops whose NumPy form is more than one
expression (the spec's NumPy strings may call these by name)."""
import functools
import math

import numpy as np


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# NumPy has no erf or erfinv (SciPy has them, and is not a test dependency).
_erf64 = np.vectorize(math.erf, otypes=[np.float64])


def erf(x):
    return _erf64(x).astype(x.dtype)


def erfinv(x):
    """Solves erf(y) = x by Newton's method from y = 0: erf is concave on
    the side of the root it starts from, so the iterates rise monotonically
    to it for |x| < 1; |x| = 1 gives +-inf and |x| > 1 NaN, as MLX does."""
    x64 = np.asarray(x, np.float64)
    step = lambda y, _: y - (_erf64(y) - x64) * np.exp(y * y) * np.sqrt(np.pi) / 2
    with np.errstate(all="ignore"):
        y = functools.reduce(step, range(50), np.zeros(x64.shape))
        y = np.where(np.abs(x64) == 1, np.copysign(np.inf, x64), y)
        y = np.where(np.abs(x64) > 1, np.nan, y)
    return y.astype(x.dtype)


HELPERS = {
    "sigmoid": sigmoid,
    "erf": erf,
    "erfinv": erfinv,
}

# The scan, shape and index families' references.
import numpy_refs_shape  # noqa: E402

HELPERS.update(numpy_refs_shape.HELPERS)
