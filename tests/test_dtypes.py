"""dtypes against NumPy: tensors made by FromSlice hold NumPy's bytes for
the same values, readback converts as NumPy's astype does, and previews
print numbers that NumPy reads back to the same values. Go runs in the
real emily-repl binary (script mode), so the yaegi exports are used too."""
import re
import subprocess

import numpy as np
import pytest


def run_go(binary, tmp_path, code):
    script = tmp_path / "cell.go"
    script.write_text(code)
    res = subprocess.run([str(binary), str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr + res.stdout
    return res.stdout


# Go slice type, Go literal, NumPy dtype of the tensor FromSlice makes.
SLICES = [
    ("float32", "1.5, -0.1, 3e38, 1e-45", np.float32),
    ("float64", "0.1, 1e300, -2.5e-310", np.float64),
    ("int8", "-128, 127, 0", np.int8),
    ("int16", "-32768, 32767", np.int16),
    ("int32", "-2147483648, 2147483647", np.int32),
    ("int64", "-9223372036854775808, 9007199254740993, 9223372036854775807", np.int64),
    ("uint8", "0, 255", np.uint8),
    ("uint16", "0, 65535", np.uint16),
    ("uint32", "0, 4294967295", np.uint32),
    ("uint64", "0, 18446744073709551615, 9223372036854775809", np.uint64),
    ("int", "-7, 2147483647", np.int32),
    ("uint", "4294967295, 1", np.uint32),
    ("bool", "true, false, true", np.bool_),
    ("complex64", "1+2i, -0.1-3e-20i", np.complex64),
    ("complex128", "0.1+0.2i, 1e30", np.complex64),
]


def literal(go_type, values):
    return [complex(v.replace("i", "j")) if "complex" in go_type else
            (v == "true" if go_type == "bool" else float(v) if "float" in go_type else int(v))
            for v in (s.strip() for s in values.split(","))]


def test_fromslice_bytes_match_numpy(binary, tmp_path):
    code = "\n".join(f'fmt.Printf("{t} %x\\n", emily.FromSlice([]{t}{{{vals}}}).Bytes())' for t, vals, _ in SLICES)
    out = dict(line.split(" ", 1) for line in run_go(binary, tmp_path, code).splitlines())
    for go_type, vals, dtype in SLICES:
        want = np.array(literal(go_type, vals), dtype=dtype).tobytes().hex()
        assert out[go_type].strip() == want, go_type


def cells(preview):
    """The values of a 1-D preview, e.g. 'Tensor f16[3]\\n[ 0.1 2.]'."""
    return preview.split("\n", 1)[1].strip("[]").split()


def test_previews_read_back_to_the_same_values(binary, tmp_path):
    f32 = [0.1, 1 / 3, 65504.0, -2.0, 6e-8, 1e-4, 2049.0, -1e-3, 3.14159]  # no -0.0: Go constants have no negative zero
    go = ", ".join(repr(v) for v in f32)
    code = f"""
x := emily.FromSlice([]float32{{{go}}})
fmt.Println(x.Astype(emily.Float16))
fmt.Println(x.Astype(emily.BFloat16))
fmt.Printf("%x\\n", x.Astype(emily.BFloat16).Bytes())
fmt.Println(emily.FromSlice([]int64{{9007199254740993, -9223372036854775807}}))
fmt.Println(emily.FromSlice([]uint64{{18446744073709551615}}))
fmt.Println(emily.FromSlice([]complex64{{1.5-2i, -0.1+1e-10i}}))
"""
    blocks = ["Tensor " + b.strip() for b in run_go(binary, tmp_path, code).split("Tensor ")[1:]]
    f16, bf16, ints, uints, cplx = blocks
    bf16, bf16_hex = bf16.rsplit("\n", 1)

    # float16: NumPy's own shortest repr names the same values.
    want16 = np.array(f32, dtype=np.float32).astype(np.float16)
    got16 = [float(c) for c in cells(f16)]
    assert np.array_equal(np.array(got16).astype(np.float16), want16)
    assert [float(c) for c in cells(f16)] == [float(str(v)) for v in want16]

    # bfloat16 (not in NumPy): the printed value, rounded to bfloat16 with
    # NumPy integer ops (round to nearest even on the top 16 bits of a
    # float32), gives MLX's bits.
    def to_bf16_bits(a):
        u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    mlx_bits = np.frombuffer(bytes.fromhex(bf16_hex), dtype=np.uint16)
    assert np.array_equal(to_bf16_bits(f32), mlx_bits)
    printed = [float(c) for c in cells(bf16)]
    assert np.array_equal(to_bf16_bits(printed), mlx_bits)

    assert cells(ints) == [str(np.int64(9007199254740993)), str(np.int64(-9223372036854775807))]
    assert cells(uints) == [str(np.iinfo(np.uint64).max)]
    got_c = np.array([complex(c.replace("i", "j")) for c in cells(cplx)], dtype=np.complex64)
    np.testing.assert_allclose(got_c, np.array([1.5 - 2j, -0.1 + 1e-10j], dtype=np.complex64), rtol=1e-6)


# (Go readback, NumPy dtype it converts to as astype does)
READBACKS = [
    ("ToInt8s", np.int8), ("ToInt16s", np.int16), ("ToInt32s", np.int32), ("ToInt64s", np.int64),
    ("ToUint8s", np.uint8), ("ToUint16s", np.uint16), ("ToUint32s", np.uint32), ("ToUint64s", np.uint64),
    ("ToFloat32s", np.float32), ("ToFloat64s", np.float64), ("ToBools", np.bool_),
]


@pytest.mark.parametrize("src_type,vals,src_dtype", [
    ("int32", "300, -1, 70000, -129", np.int32),
    ("int64", "9007199254740993, -2, 4294967297", np.int64),
    ("uint64", "18446744073709551615, 255, 65536", np.uint64),
    ("float32", "-2.75, 2.5, 0, 100.9", np.float32),
])
def test_readback_converts_like_numpy_astype(binary, tmp_path, src_type, vals, src_dtype):
    code = f"x := emily.FromSlice([]{src_type}{{{vals}}})\n" + "\n".join(
        f'fmt.Println("{fn}", x.{fn}())' for fn, _ in READBACKS)
    out = dict(line.split(" ", 1) for line in run_go(binary, tmp_path, code).splitlines())
    src = np.array(literal(src_type, vals), dtype=src_dtype)
    for fn, dtype in READBACKS:
        got = out[fn].strip("[]").split()
        with np.errstate(invalid="ignore"):
            want = src.astype(dtype)
        if dtype is np.bool_:
            assert got == [str(bool(v)).lower() for v in want], fn
        elif np.issubdtype(dtype, np.integer):
            assert [int(g) for g in got] == [int(v) for v in want], fn
        else:
            assert np.array_equal(np.array([float(g) for g in got], dtype=dtype), want), fn
