"""NumPy references for the quant family (MLX's affine quantization), the
position-as-tensor RoPE and the dynamic slices.

The packing is written from its definition, not from MLX's loops: the
codes of a row form one little-endian bit stream, element j at bits
j*bits .. j*bits+bits-1 (so 3- and 6-bit codes straddle bytes and words),
read back as little-endian uint32 words.
"""
import numpy as np

from numpy_refs import rope_ref


def _unpack(wq, bits):
    """The codes of wq (..., W) uint32: (..., W*32/bits) integers."""
    b = np.ascontiguousarray(wq.astype("<u4")).view(np.uint8)  # (..., 4W)
    stream = np.unpackbits(b, axis=-1, bitorder="little")  # (..., 32W)
    stream = stream.reshape(*stream.shape[:-1], -1, bits).astype(np.uint64)
    return (stream << np.arange(bits, dtype=np.uint64)).sum(axis=-1)


def _pack(q, bits):
    """The inverse of _unpack: codes (..., K) to (..., K*bits/32) uint32."""
    q = q.astype(np.uint64)
    stream = ((q[..., None] >> np.arange(bits, dtype=np.uint64)) & 1).astype(np.uint8)
    stream = stream.reshape(*q.shape[:-1], -1)
    b = np.packbits(stream, axis=-1, bitorder="little")
    return np.ascontiguousarray(b).view("<u4").astype(np.uint32)


def quantize_ref(w, groupSize, bits):
    """MLX's affine quantization per group of groupSize along the last axis,
    in float32: the scale spans the group's range in 2^bits - 1 steps; the
    edge of larger magnitude is the bias and is hit exactly (the scale is
    adjusted so that it is a whole number of steps from zero), so a group
    keeps its largest weight exactly and zero stays zero-ish."""
    dt = w.dtype
    g = w.astype(np.float32).reshape(*w.shape[:-1], -1, groupSize)
    n_bins = np.float32(2**bits - 1)
    wmax, wmin = g.max(axis=-1), g.min(axis=-1)
    mask = np.abs(wmin) > np.abs(wmax)
    scale = np.maximum((wmax - wmin) / n_bins, np.float32(1e-7))
    scale = np.where(mask, scale, -scale).astype(np.float32)
    edge = np.where(mask, wmin, wmax).astype(np.float32)
    q0 = np.rint(edge / scale)
    nz = q0 != 0
    scale = np.where(nz, edge / np.where(nz, q0, 1), scale).astype(np.float32)
    bias = np.where(nz, edge, np.float32(0)).astype(np.float32)
    q = np.clip(np.rint((g - bias[..., None]) / scale[..., None]), 0, n_bins)
    q = q.reshape(w.shape).astype(np.uint32)
    return _pack(q, bits), scale.astype(dt), bias.astype(dt)


def dequantize_ref(wq, scales, biases, groupSize, bits):
    """scale * q + bias, each code with its group's scale and bias."""
    q = _unpack(wq, bits).astype(np.float64)
    q = q.reshape(*q.shape[:-1], -1, groupSize)
    w = q * scales.astype(np.float64)[..., None] + biases.astype(np.float64)[..., None]
    return w.reshape(*w.shape[:-2], -1).astype(scales.dtype)


def qmm_ref(x, wq, scales, biases, transpose, groupSize, bits):
    """x @ w.T (transpose) or x @ w, w dequantized, in float64."""
    w = dequantize_ref(wq, scales.astype(np.float64), biases.astype(np.float64), groupSize, bits)
    if transpose:
        w = np.swapaxes(w, -1, -2)
    return np.matmul(x.astype(np.float64), w).astype(x.dtype)


def gather_qmm_ref(x, wq, scales, biases, lhsIndices, rhsIndices, transpose, groupSize, bits):
    """For each index pair i (lhsIndices and rhsIndices broadcast): matrix
    lhs[i] of x's flattened batch times quantized matrix rhs[i] of w's."""
    w = dequantize_ref(wq, scales.astype(np.float64), biases.astype(np.float64), groupSize, bits)
    if transpose:
        w = np.swapaxes(w, -1, -2)
    xs = x.astype(np.float64).reshape(-1, *x.shape[-2:])
    ws = w.reshape(-1, *w.shape[-2:])
    lhs, rhs = np.broadcast_arrays(lhsIndices, rhsIndices)
    out = np.matmul(xs[lhs.ravel()], ws[rhs.ravel()])
    return out.reshape(*lhs.shape, *out.shape[-2:]).astype(x.dtype)


def rope_at_ref(x, dims, traditional, base, scale, offset):
    """RoPE with the offset a scalar or one per x.shape[0]."""
    offset = np.asarray(offset)
    if offset.size == 1:
        return rope_ref(x, dims, traditional, base, scale, int(offset.ravel()[0]))
    return np.concatenate([rope_ref(x[b:b + 1], dims, traditional, base, scale, int(o))
                           for b, o in enumerate(offset.ravel())])


def _starts(x, start, axes, sizes):
    """Each (axis, clamped start, size): a start is clamped into
    [0, dim - size] so that the block stays inside x."""
    axes = tuple(axes or ())
    out = []
    for a, st, sz in zip(axes, np.atleast_1d(start).astype(np.int64).ravel(), sizes):
        a %= x.ndim
        out.append((a, int(min(max(st, 0), x.shape[a] - sz)), sz))
    return out


def dynamic_slice_ref(x, start, axes, sizes):
    key = [slice(None)] * x.ndim
    for a, st, sz in _starts(x, start, axes, sizes):
        key[a] = slice(st, st + sz)
    return x[tuple(key)]


def dynamic_set_slice_ref(x, update, start, axes):
    axes = tuple(axes or ())
    sizes = [update.shape[a % x.ndim] for a in axes]
    key = [slice(0, update.shape[i]) for i in range(x.ndim)]
    for a, st, sz in _starts(x, start, axes, sizes):
        key[a] = slice(st, st + sz)
    r = x.copy()
    r[tuple(key)] = update.astype(x.dtype)
    return r


HELPERS = {f.__name__: f for f in (quantize_ref, dequantize_ref, qmm_ref, gather_qmm_ref, rope_at_ref,
                                   dynamic_slice_ref, dynamic_set_slice_ref)}
