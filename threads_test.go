package emily_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/emily-go/emily"
)

// TestOpsAcrossOSThreads builds each linalg, nn, fft and random op on one
// OS thread and evaluates it on another, as Go does when it moves a
// goroutine. An op that MLX builds on the calling thread's default stream
// instead of the stream it is given fails there ("There is no Stream(cpu,
// 2) in current thread"): MLX's categorical with num_samples and
// linalg::cross did, and have cores of their own now.
func TestOpsAcrossOSThreads(t *testing.T) {
	logits := emily.FromSlice([]float32{0, 1, 2, -1}, 4)
	ops := map[string]func(k *emily.Tensor) *emily.Tensor{
		"key":      func(k *emily.Tensor) *emily.Tensor { return emily.Key(3) },
		"split":    func(k *emily.Tensor) *emily.Tensor { return emily.KeySplit(k, 3)[1] },
		"uniform":  func(k *emily.Tensor) *emily.Tensor { return emily.Uniform(k, 0, 1, 8) },
		"normal":   func(k *emily.Tensor) *emily.Tensor { return emily.Normal(k, 8) },
		"randint":  func(k *emily.Tensor) *emily.Tensor { return emily.Randint(k, 0, 5, 8) },
		"bern":     func(k *emily.Tensor) *emily.Tensor { return emily.Bernoulli(k, 0.3, 8) },
		"cat":      func(k *emily.Tensor) *emily.Tensor { return emily.CategoricalN(k, logits, -1, 16) },
		"perm":     func(k *emily.Tensor) *emily.Tensor { return emily.Permutation(k, 8) },
		"tn":       func(k *emily.Tensor) *emily.Tensor { return emily.TruncatedNormal(k, -1, 1, 8) },
		"gumbel":   func(k *emily.Tensor) *emily.Tensor { return emily.Gumbel(k, 8) },
		"laplace":  func(k *emily.Tensor) *emily.Tensor { return emily.Laplace(k, 8) },
		"svd":      func(k *emily.Tensor) *emily.Tensor { _, s, _ := emily.SVD(emily.Normal(k, 3, 3)); return s },
		"eigh":     func(k *emily.Tensor) *emily.Tensor { _, v := emily.Eigh(emily.Normal(k, 3, 3)); return v },
		"inv":      func(k *emily.Tensor) *emily.Tensor { return emily.Inv(emily.Normal(k, 3, 3)) },
		"solve":    func(k *emily.Tensor) *emily.Tensor { return emily.Solve(emily.Normal(k, 3, 3), emily.Normal(k, 3)) },
		"qr":       func(k *emily.Tensor) *emily.Tensor { q, _ := emily.QR(emily.Normal(k, 3, 3)); return q },
		"pinv":     func(k *emily.Tensor) *emily.Tensor { return emily.Pinv(emily.Normal(k, 3, 2)) },
		"det":      func(k *emily.Tensor) *emily.Tensor { return emily.Det(emily.Normal(k, 3, 3)) },
		"slogdet":  func(k *emily.Tensor) *emily.Tensor { _, l := emily.Slogdet(emily.Normal(k, 3, 3)); return l },
		"triinv":   func(k *emily.Tensor) *emily.Tensor { return emily.TriInv(emily.Normal(k, 3, 3), false) },
		"chol":     func(k *emily.Tensor) *emily.Tensor { return emily.Cholesky(emily.Add(emily.Eye(3), 3.0)) },
		"eigvalsh": func(k *emily.Tensor) *emily.Tensor { return emily.Eigvalsh(emily.Normal(k, 3, 3)) },
		"sv":       func(k *emily.Tensor) *emily.Tensor { return emily.SingularValues(emily.Normal(k, 3, 3)) },
		"norm2":    func(k *emily.Tensor) *emily.Tensor { return emily.NormOrd(emily.Normal(k, 3, 3), 2) },
		"norm":     func(k *emily.Tensor) *emily.Tensor { return emily.Norm(emily.Normal(k, 3, 3), 1) },
		"dot":      func(k *emily.Tensor) *emily.Tensor { return emily.Dot(emily.Normal(k, 3, 3), emily.Normal(k, 3)) },
		"einsum": func(k *emily.Tensor) *emily.Tensor {
			return emily.Einsum("ij,jk->ik", emily.Normal(k, 3, 3), emily.Normal(k, 3, 2))
		},
		"tensordot": func(k *emily.Tensor) *emily.Tensor {
			return emily.Tensordot(emily.Normal(k, 3, 3), emily.Normal(k, 3, 3), 1)
		},
		"cross":      func(k *emily.Tensor) *emily.Tensor { return emily.Cross(emily.Normal(k, 3), emily.Normal(k, 3)) },
		"trace":      func(k *emily.Tensor) *emily.Tensor { return emily.Trace(emily.Normal(k, 3, 3)) },
		"diag":       func(k *emily.Tensor) *emily.Tensor { return emily.Diagonal(emily.Normal(k, 3, 3)) },
		"tril":       func(k *emily.Tensor) *emily.Tensor { return emily.Tril(emily.Normal(k, 3, 3), 0) },
		"outer":      func(k *emily.Tensor) *emily.Tensor { return emily.Outer(emily.Normal(k, 3), emily.Normal(k, 2)) },
		"inner":      func(k *emily.Tensor) *emily.Tensor { return emily.Inner(emily.Normal(k, 3), emily.Normal(k, 3)) },
		"softmax":    func(k *emily.Tensor) *emily.Tensor { return emily.Softmax(emily.Normal(k, 3, 3), -1) },
		"logsoftmax": func(k *emily.Tensor) *emily.Tensor { return emily.LogSoftmax(emily.Normal(k, 3, 3), -1) },
		"ln": func(k *emily.Tensor) *emily.Tensor {
			return emily.LayerNorm(emily.Normal(k, 3, 4), emily.Normal(k, 4), emily.Normal(k, 4), 1e-5)
		},
		"rms": func(k *emily.Tensor) *emily.Tensor {
			return emily.RMSNorm(emily.Normal(k, 3, 4), emily.Normal(k, 4), 1e-5)
		},
		"rope": func(k *emily.Tensor) *emily.Tensor {
			return emily.RoPE(emily.Normal(k, 1, 3, 4), 4, false, 10000, 1, 0)
		},
		"sdpa": func(k *emily.Tensor) *emily.Tensor {
			q := emily.Normal(k, 1, 2, 3, 4)
			return emily.ScaledDotProductAttentionCausal(q, q, q, 0.5)
		},
		"sdpam": func(k *emily.Tensor) *emily.Tensor {
			q := emily.Normal(k, 1, 2, 3, 4)
			return emily.ScaledDotProductAttentionMasked(q, q, q, emily.Normal(k, 3, 3), 0.5)
		},
		"conv1": func(k *emily.Tensor) *emily.Tensor {
			return emily.Conv1d(emily.Normal(k, 1, 5, 2), emily.Normal(k, 3, 2, 2))
		},
		"conv2": func(k *emily.Tensor) *emily.Tensor {
			return emily.Conv2d(emily.Normal(k, 1, 5, 5, 2), emily.Normal(k, 3, 2, 2, 2))
		},
		"conv3": func(k *emily.Tensor) *emily.Tensor {
			return emily.Conv3d(emily.Normal(k, 1, 3, 3, 3, 2), emily.Normal(k, 3, 2, 2, 2, 2))
		},
		"convt1": func(k *emily.Tensor) *emily.Tensor {
			return emily.ConvTranspose1d(emily.Normal(k, 1, 5, 2), emily.Normal(k, 3, 2, 2))
		},
		"convt2": func(k *emily.Tensor) *emily.Tensor {
			return emily.ConvTranspose2d(emily.Normal(k, 1, 5, 5, 2), emily.Normal(k, 3, 2, 2, 2))
		},
		"convt3": func(k *emily.Tensor) *emily.Tensor {
			return emily.ConvTranspose3d(emily.Normal(k, 1, 3, 3, 3, 2), emily.Normal(k, 3, 2, 2, 2, 2))
		},
		"maxpool": func(k *emily.Tensor) *emily.Tensor {
			return emily.MaxPool2dWith(emily.Normal(k, 1, 5, 5, 2), []int{2, 2}, nil, []int{1, 1})
		},
		"avgpool":  func(k *emily.Tensor) *emily.Tensor { return emily.AvgPool1d(emily.Normal(k, 1, 6, 2), 2) },
		"gelu":     func(k *emily.Tensor) *emily.Tensor { return emily.Gelu(emily.Normal(k, 5)) },
		"gelut":    func(k *emily.Tensor) *emily.Tensor { return emily.GeluTanh(emily.Normal(k, 5)) },
		"silu":     func(k *emily.Tensor) *emily.Tensor { return emily.Silu(emily.Normal(k, 5)) },
		"relu":     func(k *emily.Tensor) *emily.Tensor { return emily.Relu(emily.Normal(k, 5)) },
		"lrelu":    func(k *emily.Tensor) *emily.Tensor { return emily.LeakyRelu(emily.Normal(k, 5), 0.1) },
		"elu":      func(k *emily.Tensor) *emily.Tensor { return emily.Elu(emily.Normal(k, 5), 1) },
		"softplus": func(k *emily.Tensor) *emily.Tensor { return emily.Softplus(emily.Normal(k, 5)) },
		"logsig":   func(k *emily.Tensor) *emily.Tensor { return emily.LogSigmoid(emily.Normal(k, 5)) },
		"fft":      func(k *emily.Tensor) *emily.Tensor { return emily.FFT(emily.Normal(k, 8)) },
		"ifft":     func(k *emily.Tensor) *emily.Tensor { return emily.IFFTWith(emily.Normal(k, 8), 6, -1) },
		"rfft":     func(k *emily.Tensor) *emily.Tensor { return emily.RFFT(emily.Normal(k, 8)) },
		"irfft":    func(k *emily.Tensor) *emily.Tensor { return emily.IRFFT(emily.Normal(k, 8)) },
		"fftn":     func(k *emily.Tensor) *emily.Tensor { return emily.FFT2(emily.Normal(k, 4, 4)) },
		"irfftn":   func(k *emily.Tensor) *emily.Tensor { return emily.IRFFTNWith(emily.Normal(k, 4, 4), []int{4, 6}) },
		"fftshift": func(k *emily.Tensor) *emily.Tensor { return emily.FFTShift(emily.Normal(k, 4, 4)) },
		"shuffle":  func(k *emily.Tensor) *emily.Tensor { return emily.Shuffle(k, emily.Normal(k, 4, 4), 1) },
		"cat1":     func(k *emily.Tensor) *emily.Tensor { return emily.Categorical(k, emily.Normal(k, 4, 4), 0) },
	}
	for name, f := range ops {
		made := make(chan *emily.Tensor)
		done := make(chan string)
		go func() {
			runtime.LockOSThread()
			made <- f(emily.Key(5))
		}()
		x := <-made
		go func() {
			runtime.LockOSThread()
			defer func() {
				r := recover()
				done <- fmt.Sprint(r)
			}()
			x.Bytes()
		}()
		if r := <-done; r != "<nil>" {
			t.Errorf("%s: %s", name, r)
		}
	}
}
