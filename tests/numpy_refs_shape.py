"""NumPy references for the scan, shape and index ops whose NumPy form is
a statement or needs MLX's extra flags (reverse, exclusive scans)."""
import numpy as np


def scan(f, x, axis, reverse, inclusive, identity):
    """f (np.cumsum, np.maximum.accumulate, ...) along axis, from the end
    when reverse, shifted by one from identity when not inclusive (MLX's
    flags)."""
    y = np.flip(x, axis) if reverse else x
    c = f(y, axis=axis)
    if not inclusive:
        first = np.full_like(np.take(y, [0], axis=axis), identity)
        c = np.concatenate([first, c], axis=axis).take(range(y.shape[axis]), axis=axis)
    return np.flip(c, axis) if reverse else c


def assign(x, key, value):
    """x[key] = value on a copy."""
    r = x.copy()
    r[key] = value
    return r


def at(ufunc, x, key, value):
    """ufunc.at(x, key, value) on a copy: repeated indices combine."""
    r = x.copy()
    ufunc.at(r, key, value)
    return r


def put_along_axis(x, indices, values, axis):
    r = x.copy()
    np.put_along_axis(r, indices, values, axis=axis)
    return r


def masked_scatter(x, mask, values):
    """x[mask] = values[:count] on a copy, mask broadcast to x."""
    m = np.broadcast_to(mask, x.shape)
    return assign(x, m, values.ravel()[: int(m.sum())])


def axis_key(x, axis, indices):
    """The NumPy key x[:, ..., indices] with indices at axis."""
    return (slice(None),) * (axis % x.ndim) + (indices,)


def slices(start, stop, strides):
    return tuple(map(slice, start, stop, strides))


HELPERS = {f.__name__: f for f in (scan, assign, at, put_along_axis, masked_scatter, axis_key, slices)}
