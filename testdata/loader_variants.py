"""loader_variants.py DIR: writes unusual .npy and .safetensors headers into
DIR and a manifest.json saying, for each file, whether NumPy (np.load) or
safetensors (safetensors.numpy.load_file) accepts it and, when it does, the
dtype, shape and values it loads. io_variants_test.go (TestLoadersMatchNumPy
AndSafetensors) loads every file with Emily and checks it does the same.
"""
import json
import os
import struct
import sys

import numpy as np
from safetensors.numpy import load_file

out = sys.argv[1]
manifest = []


def npy(name, header, data, version=1):
    h = header.encode("latin1" if version < 3 else "utf8")
    if version == 1:
        pre = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h))
    else:
        pre = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h))
    path = os.path.join(out, name + ".npy")
    with open(path, "wb") as f:
        f.write(pre + h + data)
    entry = {"file": path, "kind": "npy"}
    try:
        x = np.load(path)
        entry.update(accepted=True, dtype=x.dtype.name, shape=list(x.shape),
                     values=[float(v) for v in x.astype(np.float64).ravel(order="C")])
    except Exception as e:  # noqa: BLE001 - any refusal counts
        entry.update(accepted=False, why=str(e)[:200])
    manifest.append(entry)


a = np.arange(6, dtype="<i4")
d6 = a.tobytes()
npy("spaces2", "{'descr': '<i4', 'fortran_order':  False, 'shape': (2, 3), }\n", d6)
npy("nospace", "{'descr':'<i4','fortran_order':False,'shape':(2,3)}", d6)
npy("reordered", "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}", d6)
npy("dquotes", '{"descr": "<i4", "fortran_order": False, "shape": (2, 3)}', d6)
npy("newlines", "{\n 'descr' : '<i4' ,\n 'fortran_order' : False ,\n 'shape' : ( 2 , 3 , ) ,\n}\n", d6)
npy("fortran", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", d6)
npy("fortran_spaces", "{'descr': '<i4', 'fortran_order':   True, 'shape': (3, 2), }", d6)
npy("fortran3d", "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 1, 3), }",
    np.arange(6, dtype="<i2").tobytes())
npy("bigendian", "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }",
    np.array([1.5, -2.0, 3.25], dtype=">f8").tobytes())
npy("native_order", "{'descr': '=i4', 'fortran_order': False, 'shape': (6,), }", d6)
npy("uint8", "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", bytes([0, 1, 254, 255]))
npy("bool", "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", bytes([1, 0, 1]))
npy("half", "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", np.array([0.5, -8], "<f2").tobytes())
npy("scalar", "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", np.float32(7.5).tobytes())
npy("empty", "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", b"")
npy("v2", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", d6, version=2)
npy("v3", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", d6, version=3)
npy("py2long", "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", d6)
npy("trailing_data", "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", d6)
# Refused by NumPy: Emily must refuse them too.
npy("int_not_tuple", "{'descr': '<i4', 'fortran_order': False, 'shape': (6), }", d6)
npy("list_shape", "{'descr': '<i4', 'fortran_order': False, 'shape': [6], }", d6)
npy("negative", "{'descr': '<i4', 'fortran_order': False, 'shape': (-2, -3), }", d6)
npy("extra_key", "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), 'x': 1}", d6)
npy("truncated", "{'descr': '<i4', 'fortran_order': False, 'shape': (7,), }", d6)


def st(name, header, data):
    h = header.encode()
    path = os.path.join(out, name + ".safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
    entry = {"file": path, "kind": "safetensors"}
    try:
        t = load_file(path)
        entry.update(accepted=True, tensors={
            k: {"dtype": v.dtype.name, "shape": list(v.shape),
                "values": [float(x) for x in v.astype(np.float64).ravel()]} for k, v in t.items()})
    except Exception as e:  # noqa: BLE001
        entry.update(accepted=False, why=str(e)[:200])
    manifest.append(entry)


f32 = np.array([1, 2, 3, 4], "<f4").tobytes()
i16 = np.array([-1, 2, -3, 4], "<i2").tobytes()
data = f32 + i16
st("plain", '{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("reordered", '{"b":{"data_offsets":[16,24],"shape":[4],"dtype":"I16"},"a":{"shape":[2,2],"data_offsets":[0,16],"dtype":"F32"}}', data)
st("padded", '{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}       ', data)
st("pretty", '{\n  "__metadata__": {"format": "pt"},\n  "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},\n  "b": {"dtype": "I16", "shape": [4], "data_offsets": [16, 24]}\n}', data)
st("meta_last", '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[2,2],"data_offsets":[16,24]},"__metadata__":{"k":"v"}}', data)
st("unicode_name", '{"\\u00e9t\\u00e9":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("scalar_and_empty", '{"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"e":{"dtype":"F32","shape":[0,5],"data_offsets":[4,4]},"r":{"dtype":"F32","shape":[3],"data_offsets":[4,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("f64", '{"d":{"dtype":"F64","shape":[3],"data_offsets":[0,24]}}', np.array([1.5, -2, 1e300], "<f8").tobytes())
# Refused by safetensors: Emily must refuse them too.
st("negative", '{"a":{"dtype":"F32","shape":[-2,-2],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("huge_dim", '{"a":{"dtype":"F32","shape":[4294967298],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("wrapping_offsets", '{"a":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551600,16]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("gap", '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I16","shape":[4],"data_offsets":[16,24]}}', data)
st("short", '{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"I16","shape":[8],"data_offsets":[16,32]}}', data)

with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
