package main

import (
	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
)

// The tiny GPT of notebooks/tiny-gpt.ipynb, the same model and batch: a
// character-level transformer of two pre-norm blocks (attention with RoPE
// and a causal mask, a GELU MLP), tied input and output embeddings.
const gptVocab, gptDims, gptHeads, gptLayers, gptCtx, gptBatch = 96, 64, 4, 2, 64, 32

type Block struct {
	LN1, LN2 *nn.LayerNorm
	Attn     *nn.MultiHeadAttention
	FC1, FC2 *nn.Linear
}

func (b *Block) Forward(x *emily.Tensor) *emily.Tensor {
	h := b.LN1.Forward(x)
	x = emily.Add(x, b.Attn.Forward(h, h, h, nil))
	return emily.Add(x, b.FC2.Forward(emily.Gelu(b.FC1.Forward(b.LN2.Forward(x)))))
}

type GPT struct {
	Embed  *nn.Embedding
	Blocks []*Block
	LN     *nn.LayerNorm
}

// Forward maps ids (batch, length) to next-character logits.
func (g *GPT) Forward(ids *emily.Tensor) *emily.Tensor {
	x := g.Embed.Forward(ids)
	for _, b := range g.Blocks {
		x = b.Forward(x)
	}
	return g.Embed.AsLinear(g.LN.Forward(x))
}

// newGPT is the notebook's construction, key for key.
func newGPT() *GPT {
	ks := emily.KeySplit(emily.Key(0), 1+3*gptLayers)
	model := &GPT{Embed: nn.NewEmbedding(ks[0], gptVocab, gptDims), LN: nn.NewLayerNorm(gptDims)}
	for i := 0; i < gptLayers; i++ {
		attn := nn.NewMultiHeadAttention(ks[1+3*i], gptDims, gptHeads)
		attn.Causal, attn.RoPE = true, nn.NewRoPE(gptDims/gptHeads)
		model.Blocks = append(model.Blocks, &Block{LN1: nn.NewLayerNorm(gptDims), LN2: nn.NewLayerNorm(gptDims), Attn: attn,
			FC1: nn.NewLinear(ks[2+3*i], gptDims, 4*gptDims), FC2: nn.NewLinear(ks[3+3*i], 4*gptDims, gptDims)})
	}
	return model
}
