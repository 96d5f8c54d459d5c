"""Files that Emily writes load in NumPy and in the safetensors package, and
files they write load in Emily, for every dtype both sides have. Emily runs
in the real emily-repl binary (script mode), through the yaegi exports."""
import json
import struct
import subprocess

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

# NumPy dtype -> emily.FromSlice literal of the same values.
VALUES = {
    "bool": ([True, False, True], "[]bool{true, false, true}"),
    "uint8": ([0, 255, 7], "[]uint8{0, 255, 7}"),
    "uint16": ([0, 65535, 7], "[]uint16{0, 65535, 7}"),
    "uint32": ([0, 4294967295, 7], "[]uint32{0, 4294967295, 7}"),
    "uint64": ([0, 18446744073709551615, 9007199254740993], "[]uint64{0, 18446744073709551615, 9007199254740993}"),
    "int8": ([-128, 127, -7], "[]int8{-128, 127, -7}"),
    "int16": ([-32768, 32767, -7], "[]int16{-32768, 32767, -7}"),
    "int32": ([-2147483648, 2147483647, -7], "[]int32{-2147483648, 2147483647, -7}"),
    "int64": ([-9223372036854775808, 9007199254740993, -7], "[]int64{-9223372036854775808, 9007199254740993, -7}"),
    "float32": ([0.1, -2.5e-38, 3.4e38], "[]float32{0.1, -2.5e-38, 3.4e38}"),
    "float64": ([0.1, 1e300, -5e-324], "[]float64{0.1, 1e300, -5e-324}"),
    "complex64": ([1 + 2j, complex(0, -0.1), 3.5], "[]complex64{1+2i, -0.1i, 3.5}"),
}
EMILY_DTYPE = {"bool": "Bool", "uint8": "Uint8", "uint16": "Uint16", "uint32": "Uint32", "uint64": "Uint64",
               "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64", "float16": "Float16",
               "float32": "Float32", "float64": "Float64", "complex64": "Complex64"}


def arrays():
    """One (3,)-array per dtype, a float16 one and a 2-D one."""
    out = {name: np.array(vals, dtype=name) for name, (vals, _) in VALUES.items()}
    out["float16"] = np.array([0.1, 65504, -2], dtype=np.float16)
    out["matrix"] = np.arange(6, dtype=np.float32).reshape(2, 3)
    return out


def go_tensors():
    """Go map literal building the same tensors as arrays()."""
    lines = [f'"{name}": emily.FromSlice({lit}),' for name, (_, lit) in VALUES.items()]
    lines.append('"float16": emily.FromSlice([]float32{0.1, 65504, -2}).Astype(emily.Float16),')
    lines.append('"matrix": emily.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3),')
    return "map[string]*emily.Tensor{\n" + "\n".join(lines) + "\n}"


def run_go(binary, tmp_path, code):
    script = tmp_path / "cell.go"
    script.write_text(code)
    res = subprocess.run([str(binary), str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr + res.stdout
    return res.stdout


DESCRIBE = """
func describe(name string, t *emily.Tensor) {
	fmt.Printf("%s %s %v %x\\n", name, t.DType(), t.Shape(), t.Bytes())
}
"""


def parse_described(out):
    """name -> (dtype, shape, bytes) from describe() lines."""
    got = {}
    for line in out.splitlines():
        if not line.strip():
            continue
        name, dtype, rest = line.split(" ", 2)
        shape, _, hexdata = rest.rpartition("] ")
        dims = [int(d) for d in shape.strip("[").split()]
        got[name] = (dtype, dims, bytes.fromhex(hexdata))
    return got


def assert_same(name, got, want):
    dtype, shape, data = got
    assert dtype == str(want.dtype), name
    assert shape == list(want.shape), name
    assert data == np.ascontiguousarray(want).tobytes(), name


def test_numpy_reads_what_emily_writes(binary, tmp_path):
    code = f"""
ts := {go_tensors()}
for name, t := range ts {{
	emily.Save("{tmp_path}/" + name + ".npy", t)
}}
emily.SaveNPZ("{tmp_path}/all.npz", ts)
emily.Save("{tmp_path}/bf16.npy", emily.FromSlice([]float32{{1.5, -2}}).Astype(emily.BFloat16))
"""
    run_go(binary, tmp_path, code)
    want = arrays()
    with np.load(tmp_path / "all.npz") as z:
        assert sorted(z.files) == sorted(want)
        for name, a in want.items():
            np.testing.assert_array_equal(z[name], a)
            assert z[name].dtype == a.dtype
    for name, a in want.items():
        got = np.load(tmp_path / f"{name}.npy")
        assert got.dtype == a.dtype and got.shape == a.shape, name
        assert got.tobytes() == a.tobytes(), name
    # bfloat16 is a 2-byte void type to NumPy; its bytes are the top halves
    # of the float32 values.
    bf = np.load(tmp_path / "bf16.npy")
    assert bf.dtype.itemsize == 2
    top = (np.array([1.5, -2], dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    assert bf.tobytes() == top.tobytes()


def test_emily_reads_what_numpy_writes(binary, tmp_path):
    want = arrays()
    want["fortran"] = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    want["scalar"] = np.array(2.5, dtype=np.float32)
    want["empty"] = np.zeros((0, 4), dtype=np.int16)
    for name, a in want.items():
        np.save(tmp_path / f"{name}.npy", a)
    # Big-endian files are swapped to the machine's order on load.
    np.save(tmp_path / "bigendian.npy", np.array([1.5, -2, 7], dtype=">f4"))
    want["bigendian"] = np.array([1.5, -2, 7], dtype="<f4")
    np.savez(tmp_path / "plain.npz", **want)
    np.savez_compressed(tmp_path / "packed.npz", **want)
    want_npz = dict(want)
    loads = "\n".join(f'describe("{name}", emily.Load("{tmp_path}/{name}.npy"))' for name in want)
    code = DESCRIBE + loads + f"""
for _, f := range []string{{"plain", "packed"}} {{
	for name, t := range emily.LoadNPZ("{tmp_path}/" + f + ".npz") {{
		describe(f + "/" + name, t)
	}}
}}
"""
    got = parse_described(run_go(binary, tmp_path, code))
    for name, a in want.items():
        assert_same(name, got[name], a)
    for name, a in want_npz.items():
        assert_same("plain/" + name, got["plain/" + name], a)
        assert_same("packed/" + name, got["packed/" + name], a)


SAFETENSORS_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                      "float16", "float32", "matrix"]


def test_safetensors_reads_what_emily_writes(binary, tmp_path):
    code = f"""
ts := {go_tensors()}
delete(ts, "float64") // MLX's safetensors writer has no F64
delete(ts, "complex64")
ts["bf16"] = emily.FromSlice([]float32{{1.5, -2, 0.1}}).Astype(emily.BFloat16)
emily.SaveSafetensors("{tmp_path}/w.safetensors", ts, map[string]string{{"format": "np", "note": "ünï \\"q\\""}})
"""
    run_go(binary, tmp_path, code)
    path = tmp_path / "w.safetensors"
    want = arrays()
    with safe_open(path, framework="np") as f:
        assert f.metadata() == {"format": "np", "note": 'ünï "q"'}
        keys = set(f.keys())
        assert keys == set(SAFETENSORS_DTYPES) | {"bf16"}
        for name in SAFETENSORS_DTYPES:
            a = f.get_tensor(name)
            assert a.dtype == want[name].dtype and a.tobytes() == want[name].tobytes(), name
    # bfloat16 has no NumPy type: check the header entry and the raw bytes.
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    entry = json.loads(raw[8:8 + n])["bf16"]
    assert entry["dtype"] == "BF16" and entry["shape"] == [3]
    lo, hi = entry["data_offsets"]
    u = np.array([1.5, -2, 0.1], dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)  # to nearest even, as MLX casts
    assert raw[8 + n + lo:8 + n + hi] == rounded.tobytes()


def test_emily_reads_what_safetensors_writes(binary, tmp_path):
    want = {name: arrays()[name] for name in SAFETENSORS_DTYPES}
    save_file(want, tmp_path / "np.safetensors", metadata={"source": "numpy", "n": "12"})
    code = DESCRIBE + f"""
ts, meta := emily.LoadSafetensors("{tmp_path}/np.safetensors")
for name, t := range ts {{
	describe(name, t)
}}
fmt.Println("meta", meta["source"], meta["n"], len(meta))
"""
    out = run_go(binary, tmp_path, code)
    meta_line = [line for line in out.splitlines() if line.startswith("meta ")][0]
    assert meta_line == "meta numpy 12 2"
    got = parse_described("\n".join(line for line in out.splitlines() if not line.startswith("meta ")))
    assert set(got) == set(want)
    for name, a in want.items():
        assert_same(name, got[name], a)
    # F64: MLX's own reader refused it; the loader now reads the checked
    # spans itself (issue 19), so it loads as float64 with its value.
    save_file({"d": np.array([0.5, -1e300])}, tmp_path / "f64.safetensors")
    out = run_go(binary, tmp_path, DESCRIBE + f"""
ts, _ := emily.LoadSafetensors("{tmp_path}/f64.safetensors")
describe("d", ts["d"])
""")
    assert_same("d", parse_described(out)["d"], np.array([0.5, -1e300]))


def test_csv_matches_numpy_loadtxt(binary, tmp_path):
    rng = np.random.default_rng(5)
    data = rng.normal(size=(20, 4)).astype(np.float64)
    path = tmp_path / "d.csv"
    np.savetxt(path, data, delimiter=",", header="a,b,c,d", comments="", fmt="%.17g")
    code = DESCRIBE + f"""
_ = emily.SetDefaultDevice("cpu")
describe("f32", emily.LoadCSV("{path}"))
describe("f64", emily.LoadCSV("{path}", emily.CSVDType(emily.Float64), emily.CSVColumns(3, 0)))
"""
    got = parse_described(run_go(binary, tmp_path, code))
    assert_same("f32", got["f32"], np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32))
    assert_same("f64", got["f64"], np.loadtxt(path, delimiter=",", skiprows=1, usecols=(3, 0)))


# Issue 19, through the REPL binary as a user meets it: files that loaded
# silently wrong, or past the memory limit, now load right or fail with an
# error that names the file and the field.

def _run_script(binary, tmp_path, code, env=None):
    import os
    script = tmp_path / "load.go"
    script.write_text(code)
    e = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run([str(binary), "--keep-going", str(script)], capture_output=True, text=True,
                          timeout=120, env=e)


def test_npy_with_unusual_spacing_loads_untransposed(binary, tmp_path):
    want = np.arange(6, dtype=np.int32).reshape(2, 3)
    body = want.tobytes()
    header = "{'descr': '<i4', 'fortran_order':  False, 'shape': (2, 3), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    path = tmp_path / "spaced.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body)
    assert (np.load(path) == want).all()  # NumPy accepts it
    res = _run_script(binary, tmp_path, f'x := emily.Load("{path}")\nfmt.Println(x.Shape(), x.ToInt64s())\n')
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[2 3] [0 1 2 3 4 5]"


def test_lying_safetensors_header_is_an_error_naming_file_and_field(binary, tmp_path):
    header = json.dumps({"w": {"dtype": "F32", "shape": [-2, -2], "data_offsets": [0, 16]}}).encode()
    path = tmp_path / "lying.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\x00" * 16)
    res = _run_script(binary, tmp_path, f'm, _ := emily.LoadSafetensors("{path}")\nfmt.Println(len(m))\n')
    assert res.returncode != 0
    err = res.stderr + res.stdout
    assert "lying.safetensors" in err and "shape" in err, err
    # The session goes on after the error (the kernel and REPL keep state).
    res = _run_script(binary, tmp_path,
                      f'// %%\nm, _ := emily.LoadSafetensors("{path}")\n// %%\nfmt.Println("still here")\n')
    assert "still here" in res.stdout, res.stdout + res.stderr


def test_npy_past_the_memory_limit_is_refused_before_reading(binary, tmp_path):
    path = tmp_path / "big.npy"
    # A header that claims 64 MiB of float32 and a file that holds it.
    np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(16 << 20,)).flush()
    res = _run_script(binary, tmp_path, f'x := emily.Load("{path}")\nfmt.Println(x.Shape())\n',
                      env={"EMILY_MEMORY_LIMIT": "16M"})
    assert res.returncode != 0
    err = res.stderr + res.stdout
    assert "big.npy" in err and "EMILY_MEMORY_LIMIT" in err, err
