"""Writes mlx_optimizers.json: three steps of each optimizer of
mlx.optimizers (MLX 0.32.4) on fixed parameters and gradients, for
optim's TestOptimizersMatchMLXFixture. Run with a Python that has mlx:

    python -m venv /tmp/mlxpy && /tmp/mlxpy/bin/pip install "mlx[cpu]==0.32.4" numpy
    /tmp/mlxpy/bin/python optim/testdata/mlx_optimizers.py
"""
import json
import os

import mlx.core as mx
import mlx.optimizers as optim
import numpy as np

rng = np.random.default_rng(22)
w0 = rng.standard_normal((3, 4)).astype(np.float32)
b0 = rng.standard_normal((4,)).astype(np.float32)
grads = [{"w": rng.standard_normal((3, 4)).astype(np.float32), "b": rng.standard_normal((4,)).astype(np.float32)} for _ in range(3)]

def cosine(): return optim.cosine_decay(0.1, 10)
def warmup_cosine(): return optim.join_schedules([optim.linear_schedule(0.0, 0.1, 2), optim.cosine_decay(0.1, 10, 0.01)], [2])
def step_decay(): return optim.step_decay(0.1, 0.5, 2)

cases = {
    "sgd": lambda: optim.SGD(0.1),
    "sgd_momentum_wd": lambda: optim.SGD(0.1, momentum=0.9, weight_decay=0.01),
    "sgd_nesterov": lambda: optim.SGD(0.1, momentum=0.8, nesterov=True),
    "sgd_dampening": lambda: optim.SGD(0.1, momentum=0.9, dampening=0.5),
    "sgd_step_decay": lambda: optim.SGD(step_decay(), momentum=0.9),
    "adam": lambda: optim.Adam(0.1),
    "adam_bias_correction": lambda: optim.Adam(0.1, bias_correction=True),
    "adam_cosine": lambda: optim.Adam(cosine()),
    "adamw": lambda: optim.AdamW(0.1),
    "adamw_warmup_cosine": lambda: optim.AdamW(warmup_cosine(), weight_decay=0.1),
    "lion": lambda: optim.Lion(0.1, weight_decay=0.1),
    "adafactor": lambda: optim.Adafactor(),
    "adafactor_lr_beta1_wd": lambda: optim.Adafactor(0.1, relative_step=False, beta_1=0.9, weight_decay=0.01),
}
clip = {"sgd_dampening": 0.5, "adamw": 1.0}

out = {"w": w0.ravel().tolist(), "b": b0.ravel().tolist(),
       "grads": [{k: v.ravel().tolist() for k, v in g.items()} for g in grads], "cases": {}}
for name, make in cases.items():
    opt = make()
    params = {"w": mx.array(w0), "b": mx.array(b0)}
    for g in grads:
        gm = {k: mx.array(v) for k, v in g.items()}
        if name in clip:
            gm, _ = optim.clip_grad_norm(gm, clip[name])
        params = opt.apply_gradients(gm, params)
        mx.eval(params)
    out["cases"][name] = {"w": np.array(params["w"]).ravel().tolist(), "b": np.array(params["b"]).ravel().tolist(),
                          "step": int(opt.step.item()), "clip": clip.get(name, 0)}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlx_optimizers.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print("wrote", path, "with MLX", mx.__version__)
