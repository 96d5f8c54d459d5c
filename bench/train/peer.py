"""peer.py: bench/train's models through mlx.nn and mlx.optimizers, one
compiled step with the model and optimizer state as implicit inputs and
outputs (mx.compile(..., inputs=state, outputs=state)), from the initial
weights Emily saved. Prints {"seconds": median seconds per step}.
"""
import argparse
import json
import sys
import time
from functools import partial


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--model", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--batch", required=True)
    args = ap.parse_args()
    sys.path.insert(0, args.site)
    import mlx.core as mx
    import mlx.nn as nn
    import mlx.optimizers as optim

    mx.set_default_device(mx.gpu if args.device == "gpu" else mx.cpu)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Linear(64, 256), nn.Linear(256, 256), nn.Linear(256, 10)

        def __call__(self, x):
            return self.l3(nn.relu(self.l2(nn.relu(self.l1(x)))))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.head = nn.Linear(4 * 4 * 32, 10)
            self.pool = nn.MaxPool2d(2, 2)

        def __call__(self, x):
            h = nn.relu(self.conv2(nn.relu(self.conv1(x))))
            h = self.pool(h)
            return self.head(h.reshape(h.shape[0], -1))

    model = {"mlp": MLP, "cnn": CNN}[args.model]()
    model.load_weights(list(mx.load(args.weights).items()))
    data = mx.load(args.batch)
    x, y = data["x"], data["y"]
    opt = optim.Adam(1e-3)

    def loss_fn(m, x, y):
        return nn.losses.cross_entropy(m(x), y, reduction="mean")

    state = [model.state, opt.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def step(x, y):
        loss, grads = nn.value_and_grad(model, loss_fn)(model, x, y)
        opt.update(model, grads)
        return loss

    def call():
        loss = step(x, y)
        mx.eval(loss, state)

    call()
    call()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < args.budget:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(json.dumps({"seconds": times[(len(times) - 1) // 2]}))


main()
