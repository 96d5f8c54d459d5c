"""NumPy reference functions for ops whose NumPy form is more than one
expression (the spec's NumPy strings may call these by name: HELPERS).

The differential harness (tests/test_ops_numpy.py) evaluates each row's
NumPy expression with HELPERS in scope. Each function follows MLX's
semantics and layout (channels-last convolutions and pooling, MLX's RoPE
frequencies, bottom-right causal masks), written as plainly as possible so
it is an independent oracle, not a copy of MLX's algorithm: convolutions
are direct sums over kernel offsets, pooling uses sliding_window_view.
Results keep the input's dtype, as the MLX ops do.
"""

import functools
import math

import numpy as np



def _axes(axes, ndim):
    """Empty axes mean all of them (NumPy's axis=None), as a tuple."""
    return tuple(range(ndim)) if not axes else tuple(axes)


def _wide(x):
    """Compute half-precision inputs in float32, as MLX's kernels do."""
    return x.astype(np.float32) if x.dtype.itemsize < 4 else x


def norm_ref(x, ord, axes, keepdims):
    axis = tuple(axes) if axes else None
    if axis is not None and len(axis) == 1:
        axis = axis[0]
    out = np.linalg.norm(_wide(x), ord=ord, axis=axis, keepdims=keepdims)
    return np.asarray(out).astype(x.dtype)


def softmax_ref(x, axes):
    w = _wide(x)
    ax = _axes(axes, x.ndim)
    e = np.exp(w - np.max(w, axis=ax, keepdims=True)) if w.size else w
    return (e / np.sum(e, axis=ax, keepdims=True)).astype(x.dtype)


def log_softmax_ref(x, axes):
    w = _wide(x)
    ax = _axes(axes, x.ndim)
    if not w.size:
        return x
    m = np.max(w, axis=ax, keepdims=True)
    lse = m + np.log(np.sum(np.exp(w - m), axis=ax, keepdims=True))
    return (w - lse).astype(x.dtype)


def layer_norm_ref(xwb, has_weight, has_bias, eps):
    x, rest = xwb[0], list(xwb[1:])
    w = _wide(x)
    mean = w.mean(axis=-1, keepdims=True)
    var = ((w - mean) ** 2).mean(axis=-1, keepdims=True)
    out = (w - mean) / np.sqrt(var + eps)
    if has_weight:
        out = out * _wide(rest.pop(0))
    if has_bias:
        out = out + _wide(rest.pop(0))
    return out.astype(x.dtype)


def rms_norm_ref(xw, has_weight, eps):
    x = xw[0]
    w = _wide(x)
    out = w / np.sqrt((w * w).mean(axis=-1, keepdims=True) + eps)
    if has_weight:
        out = out * _wide(xw[1])
    return out.astype(x.dtype)


def rope_ref(x, dims, traditional, base, scale, offset):
    """Rotary embeddings over x (..., L, D): position p = offset + i along
    L, frequency j = base^(-j/(dims/2)), angle p*scale*freq_j; traditional
    rotates adjacent pairs (2j, 2j+1), otherwise (j, j + dims/2)."""
    w = _wide(x).astype(np.float64)
    L = x.shape[-2]
    half = dims // 2
    pos = (np.arange(L) + offset) * scale
    freq = base ** (-np.arange(half) / half)
    theta = pos[:, None] * freq[None, :]  # (L, half)
    cos, sin = np.cos(theta), np.sin(theta)
    out = w.copy()
    if traditional:
        a, b = w[..., 0:dims:2], w[..., 1:dims:2]
        out[..., 0:dims:2] = a * cos - b * sin
        out[..., 1:dims:2] = a * sin + b * cos
    else:
        a, b = w[..., :half], w[..., half:dims]
        out[..., :half] = a * cos - b * sin
        out[..., half:dims] = a * sin + b * cos
    return out.astype(x.dtype)


def sdpa_ref(q, k, v, scale, causal, mask):
    """softmax(scale * q k^T + mask) v with grouped-query heads: query head
    h reads key/value head h // (H_q / H_kv)."""
    qw, kw, vw = (_wide(a).astype(np.float64) for a in (q, k, v))
    rep = q.shape[1] // k.shape[1]
    kw = np.repeat(kw, rep, axis=1)
    vw = np.repeat(vw, rep, axis=1)
    scores = scale * qw @ np.swapaxes(kw, -1, -2)
    lq, lk = q.shape[-2], k.shape[-2]
    if causal:
        keep = np.arange(lk)[None, :] <= np.arange(lq)[:, None] + (lk - lq)
        scores = np.where(keep, scores, -np.inf)
    if mask is not None:
        if mask.dtype == np.bool_:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = scores + _wide(mask)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    return (p @ vw).astype(q.dtype)


def _per_axis(v, nd, default):
    v = list(v)
    if not v:
        return [default] * nd
    if len(v) == 1:
        return v * nd
    return v


def conv_ref(x, w, stride, padding, dilation, groups):
    """Channels-last grouped convolution (cross-correlation) as a direct sum
    over kernel offsets: x (N, S..., C_in), w (C_out, K..., C_in/groups)."""
    nd = x.ndim - 2
    stride, padding, dilation = (_per_axis(a, nd, d) for a, d in ((stride, 1), (padding, 0), (dilation, 1)))
    xw = _wide(x).astype(np.float64)
    ww = _wide(w).astype(np.float64)
    xw = np.pad(xw, [(0, 0)] + [(p, p) for p in padding] + [(0, 0)])
    cout, ks, cin_g = w.shape[0], w.shape[1:-1], w.shape[-1]
    sizes = xw.shape[1:-1]
    outs = [(sizes[i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], *outs, cout))
    cout_g = cout // groups
    for g in range(groups):
        xg = xw[..., g * cin_g:(g + 1) * cin_g]
        wg = ww[g * cout_g:(g + 1) * cout_g]
        for off in np.ndindex(*ks):
            sl = tuple(slice(off[i] * dilation[i], off[i] * dilation[i] + (outs[i] - 1) * stride[i] + 1, stride[i])
                       for i in range(nd))
            patch = xg[(slice(None), *sl)]  # (N, outs..., cin_g)
            out[..., g * cout_g:(g + 1) * cout_g] += patch @ wg[(slice(None), *off)].T
    return out.astype(x.dtype)


def conv_transpose_ref(x, w, stride, padding, dilation, output_padding, groups):
    """Transposed convolution as a scatter: each input position i adds
    x[i] * w[:, k] at output position i*stride + k*dilation - padding; the
    output has (S-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1
    positions per axis. w is (C_out, K..., C_in/groups) as in MLX."""
    nd = x.ndim - 2
    stride, padding, dilation, output_padding = (
        _per_axis(a, nd, d) for a, d in ((stride, 1), (padding, 0), (dilation, 1), (output_padding, 0)))
    xw = _wide(x).astype(np.float64)
    ww = _wide(w).astype(np.float64)
    cout, ks, cin_g = w.shape[0], w.shape[1:-1], w.shape[-1]
    sizes = x.shape[1:-1]
    full = [(sizes[i] - 1) * stride[i] + dilation[i] * (ks[i] - 1) + 1 + output_padding[i] for i in range(nd)]
    buf = np.zeros((x.shape[0], *full, cout))
    cout_g = cout // groups
    for g in range(groups):
        xg = xw[..., g * cin_g:(g + 1) * cin_g]
        wg = ww[g * cout_g:(g + 1) * cout_g]
        for off in np.ndindex(*ks):
            sl = tuple(slice(off[i] * dilation[i], off[i] * dilation[i] + (sizes[i] - 1) * stride[i] + 1, stride[i])
                       for i in range(nd))
            buf[(slice(None), *sl, slice(g * cout_g, (g + 1) * cout_g))] += xg @ wg[(slice(None), *off)].T
    crop = tuple(slice(padding[i], full[i] - padding[i]) for i in range(nd))
    return buf[(slice(None), *crop)].astype(x.dtype)


def _pool(x, kernel, stride, padding, fill, reduce):
    nd = len(kernel)
    stride = [s if s > 0 else k for s, k in zip(_per_axis(stride, nd, 0), kernel)]
    padding = _per_axis(padding, nd, 0)
    xp = np.pad(x, [(0, 0)] + [(p, p) for p in padding] + [(0, 0)], constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, kernel, axis=tuple(range(1, nd + 1)))
    win = win[(slice(None), *[slice(None, None, s) for s in stride])]  # (N, out..., C, K...)
    red = tuple(range(win.ndim - nd, win.ndim))
    return reduce(win, red)


def max_pool_ref(x, kernel, stride, padding):
    return _pool(x, kernel, stride, padding, -np.inf, lambda w, a: np.max(w, axis=a)).astype(x.dtype)


def avg_pool_ref(x, kernel, stride, padding):
    return _pool(_wide(x), kernel, stride, padding, 0, lambda w, a: np.mean(w, axis=a)).astype(x.dtype)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_ref(x):
    w = x.astype(np.float64)
    return (w * 0.5 * (1 + _erf(w / math.sqrt(2)))).astype(x.dtype)


def gelu_tanh_ref(x):
    w = x.astype(np.float64)
    return (0.5 * w * (1 + np.tanh(math.sqrt(2 / math.pi) * (w + 0.044715 * w ** 3)))).astype(x.dtype)


def key_ref(seed):
    """MLX's key(seed): the high and low 32 bits of the 64-bit seed."""
    seed %= 1 << 64
    return np.array([seed >> 32, seed & 0xFFFFFFFF], dtype=np.uint32)


def _largest_sign(m, axis):
    idx = np.expand_dims(np.argmax(np.abs(m), axis=axis), axis)
    return np.where(np.take_along_axis(m, idx, axis) < 0, -1, 1).astype(m.dtype)


def svd_ref(x):
    """np.linalg.svd with SVD's sign convention: each column of U has its
    largest-magnitude entry positive, the matching row of Vt flips with it;
    rows of Vt past min(m, n) get their own largest entry positive."""
    u, s, vt = np.linalg.svd(x)
    k = s.shape[-1]
    su = _largest_sign(u, -2)
    flip = np.swapaxes(su, -1, -2)[..., :k, :]
    if vt.shape[-1] > k:
        flip = np.concatenate([flip, _largest_sign(vt, -1)[..., k:, :]], axis=-2)
    return u * su, s, vt * flip


def eigh_ref(x):
    """np.linalg.eigh with each eigenvector's largest-magnitude entry positive."""
    w, v = np.linalg.eigh(x)
    return w, v * _largest_sign(v, -2)


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
    **{name: fn for name, fn in list(globals().items()) if name.endswith("_ref")},
}

# The scan, shape and index families' references.
import numpy_refs_shape  # noqa: E402

HELPERS.update(numpy_refs_shape.HELPERS)

# The quant family's, RoPEAt's and the dynamic slices' references.
import numpy_refs_quant  # noqa: E402

HELPERS.update(numpy_refs_quant.HELPERS)
