// Package ir holds the expression graph that tracing builds and the flat
// Program that the native lane replays.
package ir

import (
	"fmt"
	"sync"

	"github.com/emily-go/emily/mlxbind"
)

// NodeKind says where a node's value comes from.
type NodeKind int

// Node kinds.
const (
	InputNode  NodeKind = iota // a parameter of the traced function
	ConstNode                  // a concrete tensor the function captured
	ApplyNode                  // an op applied to other nodes
	HostNode                   // Go code applied to other nodes: the evaluator can run it, a Program cannot
	ResultNode                 // result Index of a multi-result ApplyNode or a RegionNode (Inputs[0])
	RegionNode                 // an op over sub-graphs (Region): autodiff, control flow; results through ResultNodes
)

// HostFunc is the Go side of a HostNode: it gets the operands' values and
// returns the result. The evaluator lane calls it; lowering rejects it.
type HostFunc func(inputs []*mlxbind.Array) (*mlxbind.Array, error)

// Node is one value in a Graph. Shape and DType are known at trace time
// (MLX infers them from lazy placeholder arrays, see emily's tracer).
type Node struct {
	ID     int
	Kind   NodeKind
	Op     Op      // ApplyNode only
	Inputs []*Node // ApplyNode and HostNode
	Attrs  []int64 // ApplyNode only
	Index  int     // InputNode: parameter index; ConstNode: index into Graph.Consts; ResultNode: which result
	NOut   int     // ApplyNode of a multi-result op: its result count (0 for single-result ops)
	Shape  []int
	DType  mlxbind.DType
	Host   HostFunc // HostNode only
	Name   string   // HostNode: a name for errors and listings
	Region *Region  // RegionNode only
}

// Graph is a traced function: inputs, captured constants, the nodes built
// from them, and the outputs.
type Graph struct {
	Inputs  []*Node
	Consts  []*mlxbind.Array
	Nodes   []*Node // every node, in creation order (a topological order)
	Outputs []*Node

	constIndex map[*mlxbind.Array]*Node

	// onDevice[stream] holds what the evaluator reads for each constant on
	// that GPU stream (ConstOn); filled on first use.
	onDeviceMu sync.Mutex
	onDevice   map[mlxbind.Stream][]*mlxbind.Array
}

// ConstOn returns constant i as the evaluator lane should read it on
// stream s: on a GPU stream a one-element constant is read from a copy in
// device memory, made once per graph and stream, as the replay reads its
// own (mlxbind/gpumem.cc: MLX reads a host-made scalar across the bus),
// unless mlxbind.SetDeviceScalars turned that off.
func (g *Graph) ConstOn(i int, s mlxbind.Stream) (*mlxbind.Array, error) {
	if s.Device() != mlxbind.GPU || !mlxbind.DeviceScalars() {
		return g.Consts[i], nil
	}
	g.onDeviceMu.Lock()
	defer g.onDeviceMu.Unlock()
	cs := g.onDevice[s]
	if cs == nil {
		cs = make([]*mlxbind.Array, len(g.Consts))
		if g.onDevice == nil {
			g.onDevice = map[mlxbind.Stream][]*mlxbind.Array{}
		}
		g.onDevice[s] = cs
	}
	if cs[i] == nil {
		a, err := g.Consts[i].DeviceResident(s)
		if err != nil {
			return nil, err
		}
		cs[i] = a
	}
	return cs[i], nil
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{constIndex: map[*mlxbind.Array]*Node{}} }

func (g *Graph) add(n *Node) *Node {
	n.ID = len(g.Nodes)
	g.Nodes = append(g.Nodes, n)
	return n
}

// Input adds the next function parameter.
func (g *Graph) Input(shape []int, dtype mlxbind.DType) *Node {
	n := g.add(&Node{Kind: InputNode, Index: len(g.Inputs), Shape: shape, DType: dtype})
	g.Inputs = append(g.Inputs, n)
	return n
}

// Const returns the node for a captured array, adding it on first use so a
// constant used twice is shipped to the program once.
func (g *Graph) Const(a *mlxbind.Array) *Node {
	if n, ok := g.constIndex[a]; ok {
		return n
	}
	n := g.add(&Node{Kind: ConstNode, Index: len(g.Consts), Shape: a.Shape(), DType: a.DType()})
	g.Consts = append(g.Consts, a)
	g.constIndex[a] = n
	return n
}

// Apply adds op applied to inputs with attrs; shape and dtype are the
// result's, as MLX inferred them.
func (g *Graph) Apply(op Op, attrs []int64, shape []int, dtype mlxbind.DType, inputs ...*Node) *Node {
	return g.add(&Node{Kind: ApplyNode, Op: op, Inputs: inputs, Attrs: attrs, Shape: shape, DType: dtype})
}

// ApplyMulti adds a multi-result op (Split, QR, ...) and returns one
// ResultNode per result, with the results' shapes and dtypes.
func (g *Graph) ApplyMulti(op Op, attrs []int64, shapes [][]int, dtypes []mlxbind.DType, inputs ...*Node) []*Node {
	n := g.add(&Node{Kind: ApplyNode, Op: op, Inputs: inputs, Attrs: attrs, NOut: len(shapes)})
	outs := make([]*Node, len(shapes))
	for i := range shapes {
		outs[i] = g.add(&Node{Kind: ResultNode, Inputs: []*Node{n}, Index: i, Shape: shapes[i], DType: dtypes[i]})
	}
	return outs
}

// Multi reports whether n is an op node with several results (read through
// its ResultNodes).
func (n *Node) Multi() bool { return (n.Kind == ApplyNode || n.Kind == RegionNode) && n.NOut > 0 }

// Host adds a Go function applied to inputs.
func (g *Graph) Host(name string, fn HostFunc, shape []int, dtype mlxbind.DType, inputs ...*Node) *Node {
	return g.add(&Node{Kind: HostNode, Name: name, Host: fn, Inputs: inputs, Shape: shape, DType: dtype})
}

// Schedule returns the nodes the outputs depend on, in creation order
// (inputs always precede users), leaving out dead code.
func (g *Graph) Schedule() []*Node {
	live := make([]bool, len(g.Nodes))
	var mark func(n *Node)
	mark = func(n *Node) {
		if live[n.ID] {
			return
		}
		live[n.ID] = true
		for _, in := range n.Inputs {
			mark(in)
		}
	}
	for _, o := range g.Outputs {
		mark(o)
	}
	var order []*Node
	for _, n := range g.Nodes {
		if live[n.ID] {
			order = append(order, n)
		}
	}
	return order
}

// Describe names a node for error messages: "node 3 (matmul f32[2 3])".
func (n *Node) Describe() string {
	what := map[NodeKind]string{InputNode: "input", ConstNode: "const", HostNode: "host " + n.Name}[n.Kind]
	switch n.Kind {
	case ApplyNode:
		what = n.Op.String()
		if n.Multi() {
			return fmt.Sprintf("node %d (%s, %d results)", n.ID, what, n.NOut)
		}
	case RegionNode:
		return fmt.Sprintf("node %d (%s, %d results)", n.ID, n.Region.Kind, n.NOut)
	case ResultNode:
		if src := n.Inputs[0]; src.Kind == RegionNode {
			what = fmt.Sprintf("result %d of %s", n.Index, src.Region.Kind)
		} else {
			what = fmt.Sprintf("result %d of %s", n.Index, src.Op)
		}
	}
	return fmt.Sprintf("node %d (%s %s%v)", n.ID, what, n.DType, n.Shape)
}
