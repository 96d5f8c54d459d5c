package nn

import (
	"fmt"
	"slices"

	"github.com/emily-go/emily"
)

// Losses, as mlx.nn.losses computes them. The short forms reduce to the
// mean (over the batch, and any other axis of the per-element loss); the
// With forms take the reduction: "mean", "sum" or "none".

// reduce applies a reduction by name.
func reduce(op string, loss *emily.Tensor, reduction string) *emily.Tensor {
	switch reduction {
	case "mean", "":
		return emily.Mean(loss)
	case "sum":
		return emily.Sum(loss)
	case "none":
		return loss
	}
	panic(&emily.Error{Op: op, Err: fmt.Errorf("reduction %q", reduction), Hint: `use "mean", "sum" or "none"`})
}

// CrossEntropy is the mean over the batch of the cross-entropy between
// logits (…, classes) and labels: integer class indices (…), or
// probabilities shaped like logits.
func CrossEntropy(logits, labels *emily.Tensor) *emily.Tensor {
	return CrossEntropyWith(logits, labels, 0, "mean")
}

// CrossEntropyWith is CrossEntropy with label smoothing s in [0, 1) (the
// target puts 1-s on the label and spreads s over every class, as
// mlx.nn.losses.cross_entropy's label_smoothing) and a reduction.
func CrossEntropyWith(logits, labels *emily.Tensor, smoothing float64, reduction string) *emily.Tensor {
	if smoothing < 0 || smoothing >= 1 {
		panic(&emily.Error{Op: "CrossEntropy", Err: fmt.Errorf("label smoothing %v: want 0 <= s < 1", smoothing)})
	}
	ls := logits.Shape()
	var score *emily.Tensor
	switch {
	case labels.Rank() == len(ls) && slices.Equal(labels.Shape(), ls):
		score = emily.Sum(emily.Mul(logits, emily.Astype(labels, logits.DType())), -1)
	case labels.Rank() == len(ls)-1 && slices.Equal(labels.Shape(), ls[:len(ls)-1]) && !isFloat(labels.DType()):
		score = emily.Squeeze(emily.TakeAlongAxis(logits, emily.ExpandDims(labels, -1), -1), -1)
	default:
		panic(&emily.Error{Op: "CrossEntropy", Shapes: []string{fmt.Sprintf("%s%v", logits.DType(), ls), fmt.Sprintf("%s%v", labels.DType(), labels.Shape())},
			Err:  fmt.Errorf("labels must be integer class indices shaped like the logits without their last axis, or probabilities shaped like the logits"),
			Hint: "for class indices pass an integer tensor of shape (batch,); for probabilities one of the logits' shape"})
	}
	lse := emily.LogSumExp(logits, -1)
	var loss *emily.Tensor
	if smoothing > 0 {
		adjusted := emily.Mul(score, emily.ScalarOf(1-smoothing, logits.DType()))
		smooth := emily.Mul(emily.Mean(logits, -1), emily.ScalarOf(smoothing, logits.DType()))
		loss = emily.Sub(emily.Sub(lse, adjusted), smooth)
	} else {
		loss = emily.Sub(lse, score)
	}
	return reduce("CrossEntropy", loss, reduction)
}

func isFloat(dt emily.DType) bool {
	switch dt {
	case emily.Float16, emily.BFloat16, emily.Float32, emily.Float64:
		return true
	}
	return false
}

// NLL is the mean negative log-likelihood of labels (integer class
// indices) under logProbs (…, classes), as mlx.nn.losses.nll_loss.
func NLL(logProbs, labels *emily.Tensor) *emily.Tensor { return NLLWith(logProbs, labels, "mean") }

// NLLWith is NLL with a reduction.
func NLLWith(logProbs, labels *emily.Tensor, reduction string) *emily.Tensor {
	picked := emily.Squeeze(emily.TakeAlongAxis(logProbs, emily.ExpandDims(labels, -1), -1), -1)
	return reduce("NLL", emily.Neg(picked), reduction)
}

// MSE is the mean squared error between predictions and targets.
func MSE(predictions, targets *emily.Tensor) *emily.Tensor {
	return MSEWith(predictions, targets, "mean")
}

// MSEWith is MSE with a reduction.
func MSEWith(predictions, targets *emily.Tensor, reduction string) *emily.Tensor {
	return reduce("MSE", emily.Square(emily.Sub(predictions, targets)), reduction)
}

// L1 is the mean absolute error between predictions and targets.
func L1(predictions, targets *emily.Tensor) *emily.Tensor {
	return L1With(predictions, targets, "mean")
}

// L1With is L1 with a reduction.
func L1With(predictions, targets *emily.Tensor, reduction string) *emily.Tensor {
	return reduce("L1", emily.Abs(emily.Sub(predictions, targets)), reduction)
}

// Huber is the mean Huber loss: ½d² where |d| ≤ delta, delta·(|d| - ½delta)
// elsewhere, d = predictions - targets (mlx.nn.losses.huber_loss).
func Huber(predictions, targets *emily.Tensor, delta float64) *emily.Tensor {
	return HuberWith(predictions, targets, delta, "mean")
}

// HuberWith is Huber with a reduction.
func HuberWith(predictions, targets *emily.Tensor, delta float64, reduction string) *emily.Tensor {
	if delta <= 0 {
		panic(&emily.Error{Op: "Huber", Err: fmt.Errorf("delta %v: want > 0", delta)})
	}
	dt := predictions.DType()
	d := emily.Sub(predictions, targets)
	a := emily.Abs(d)
	quad := emily.Mul(emily.Square(d), emily.ScalarOf(0.5, dt))
	lin := emily.Mul(emily.Sub(a, emily.ScalarOf(delta/2, dt)), emily.ScalarOf(delta, dt))
	return reduce("Huber", emily.Where(emily.LessEqual(a, emily.ScalarOf(delta, dt)), quad, lin), reduction)
}

// BCEWithLogits is the mean binary cross-entropy of targets (0 or 1, or
// probabilities) under sigmoid(logits), computed from the logits without
// overflow: log(1 + e^x) - x·t (mlx.nn.losses.binary_cross_entropy with
// with_logits).
func BCEWithLogits(logits, targets *emily.Tensor) *emily.Tensor {
	return BCEWithLogitsWith(logits, targets, "mean")
}

// BCEWithLogitsWith is BCEWithLogits with a reduction.
func BCEWithLogitsWith(logits, targets *emily.Tensor, reduction string) *emily.Tensor {
	t := emily.Astype(targets, logits.DType())
	return reduce("BCEWithLogits", emily.Sub(emily.Softplus(logits), emily.Mul(logits, t)), reduction)
}
