package nn_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
)

func TestLossesAgainstNumPy(t *testing.T) {
	logits := rnd(50, 6, 5)
	labels := emily.FromSlice([]int32{0, 4, 2, 2, 1, 3})
	probs := emily.Softmax(rnd(51, 6, 5), -1)
	p, y := rnd(52, 4, 3), rnd(53, 4, 3)
	bin := emily.Astype(emily.Greater(rnd(54, 4, 3), emily.Scalar(0)), emily.Float32)
	ref := numpyRef(t, `
def lse(z): m = z.max(-1, keepdims=True); return (m + np.log(np.exp(z - m).sum(-1, keepdims=True)))[..., 0]
n, c = logits.shape
oh = np.eye(c)[labels]
out["ce"] = (lse(logits) - (logits * oh).sum(-1)).mean()
out["ce_none"] = lse(logits) - (logits * oh).sum(-1)
out["ce_probs"] = (lse(logits) - (logits * probs).sum(-1)).mean()
s = 0.1
smoothed = oh * (1 - s) + s / c
out["ce_smooth"] = (-(smoothed * (logits - lse(logits)[:, None])).sum(-1)).mean()
logp = logits - lse(logits)[:, None]
out["nll"] = -(logp * oh).sum(-1).mean()
out["nll_sum"] = -(logp * oh).sum()
d = p - y
out["mse"] = (d**2).mean()
out["l1"] = np.abs(d).mean()
out["l1_sum"] = np.abs(d).sum()
delta = 0.5
out["huber"] = np.where(np.abs(d) <= delta, 0.5 * d**2, delta * (np.abs(d) - 0.5 * delta)).mean()
sig = 1 / (1 + np.exp(-p))
out["bce"] = (-(t * np.log(sig) + (1 - t) * np.log(1 - sig))).mean()
out["onehot"] = oh`, map[string]*emily.Tensor{"logits": logits, "labels": labels, "probs": probs, "p": p, "y": y, "t": bin})
	closeTo(t, "CrossEntropy", nn.CrossEntropy(logits, labels), ref["ce"], 1e-5)
	closeTo(t, "CrossEntropyWith none", nn.CrossEntropyWith(logits, labels, 0, "none"), ref["ce_none"], 1e-5)
	closeTo(t, "CrossEntropy of probabilities", nn.CrossEntropy(logits, probs), ref["ce_probs"], 1e-5)
	closeTo(t, "CrossEntropy with label smoothing", nn.CrossEntropyWith(logits, labels, 0.1, "mean"), ref["ce_smooth"], 1e-5)
	closeTo(t, "NLL", nn.NLL(emily.LogSoftmax(logits, -1), labels), ref["nll"], 1e-5)
	closeTo(t, "NLL sum", nn.NLLWith(emily.LogSoftmax(logits, -1), labels, "sum"), ref["nll_sum"], 1e-5)
	closeTo(t, "MSE", nn.MSE(p, y), ref["mse"], 1e-5)
	closeTo(t, "L1", nn.L1(p, y), ref["l1"], 1e-5)
	closeTo(t, "L1 sum", nn.L1With(p, y, "sum"), ref["l1_sum"], 1e-5)
	closeTo(t, "Huber", nn.Huber(p, y, 0.5), ref["huber"], 1e-5)
	closeTo(t, "BCEWithLogits", nn.BCEWithLogits(p, bin), ref["bce"], 1e-5)
	closeTo(t, "OneHot", nn.OneHot(labels, 5), ref["onehot"], 0)

	// A big logit does not overflow.
	big := emily.FromSlice([]float32{1000, -1000})
	if v := nn.BCEWithLogits(big, emily.FromSlice([]float32{1, 0})).ToFloat64s()[0]; math.IsInf(v, 0) || math.IsNaN(v) || v > 1e-6 {
		t.Errorf("BCEWithLogits of ±1000: %v", v)
	}
	for name, f := range map[string]func(){
		"labels shape": func() { nn.CrossEntropy(logits, emily.FromSlice([]int32{1, 2})) },
		"float labels": func() { nn.CrossEntropy(logits, emily.Zeros(6)) },
		"reduction":    func() { nn.MSEWith(p, y, "avg") },
		"smoothing":    func() { nn.CrossEntropyWith(logits, labels, 1, "mean") },
	} {
		if err := emily.Try(f); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "labels shape" && !strings.Contains(err.Error(), "class indices") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
