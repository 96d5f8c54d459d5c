package sample

// Constraint restricts which tokens a generation may pick, step by step:
// structured output (models/sample/constrain's Matcher, for a JSON
// schema) or any other grammar. Before each step the generation asks
// Mask for the bias of the next token, passes it to the sampler as
// Rows.Bias (so the traced step does not change with it), and after the
// step tells Advance the token picked.
type Constraint interface {
	// Mask writes the next token's additive bias into bias (one entry a
	// token id): 0 where allowed, -Inf where banned. remaining is how many
	// tokens the generation may still make, this one included (≤ 0:
	// unbounded), so a constraint can close its value in time.
	Mask(bias []float32, remaining int) error
	// Advance moves past the token picked.
	Advance(id int) error
}
