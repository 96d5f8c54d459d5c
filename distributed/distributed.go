// Package distributed is MLX's distributed layer for emily (DESIGN.md
// decision 14): a Group of processes (ranks) and the collectives over it,
// AllSum, AllGather, AllMax, AllMin, SumScatter, Send and Recv. The
// collectives are ops of the op spec like any other (ops_gen.go): they run
// eagerly, trace into Jit programs (the group is an attribute of the
// program) and differentiate as MLX defines.
//
// The backends are MLX's own: ring (TCP, in both wheels; MLX_RANK and
// MLX_HOSTFILE), nccl (the mlx-cuda-13 wheel; MLX_RANK, MLX_WORLD_SIZE,
// NCCL_HOST_IP, NCCL_PORT) and mpi (libmpi.so loaded at run time, under
// mpirun). `emily-repl launch -n N FILE` starts N ranks with these set. A
// process started without them is a world of one, where every collective
// is the identity, so the same program runs alone and in a launch.
//
// Every rank must evaluate each collective, in the same order, or the
// others wait for it.
package distributed

import (
	"fmt"
	"os"
	"sync"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/opapply"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Group is a set of ranks that communicate: the world Init returns, or a
// part of it from Split. Its methods and the collectives may be called
// from any goroutine.
type Group struct {
	id      int // the shim's group handle
	rank    int
	size    int
	backend string
}

// Rank returns this process's rank in the group, 0 … Size()-1.
func (g *Group) Rank() int { return orWorld(g).rank }

// Size returns the number of ranks in the group.
func (g *Group) Size() int { return orWorld(g).size }

// Backend returns the backend the group communicates through: "ring",
// "nccl", "mpi", or "none" for a world of one process.
func (g *Group) Backend() string { return orWorld(g).backend }

// String describes the group: "rank 0 of 2 (ring)".
func (g *Group) String() string {
	g = orWorld(g)
	return fmt.Sprintf("rank %d of %d (%s)", g.rank, g.size, g.backend)
}

// Split divides the group: ranks that pass the same color form a new
// group, ranked by key (smaller first; negative: by their rank here).
// Every rank of the group must call it. The ring backend cannot split (an
// error says so); nccl and mpi can. A group of one splits into itself.
func (g *Group) Split(color, key int) *Group {
	g = orWorld(g)
	id, err := mlxbind.DistSplit(g.id, color, key)
	if err != nil {
		panic(&emily.Error{Op: "distributed.Split", Err: err})
	}
	if id == g.id {
		return g
	}
	return newGroup("distributed.Split", id)
}

var (
	mu     sync.Mutex
	inits  = map[string]*Group{} // by backend asked for
	world  *Group
	envFor = map[string][]string{
		"ring": {"MLX_RANK", "MLX_HOSTFILE"},
		"nccl": {"MLX_RANK", "MLX_WORLD_SIZE", "NCCL_HOST_IP", "NCCL_PORT"},
		"mpi":  {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"},
	}
	// instead: what to use when a backend is not in this MLX build.
	instead = map[string]string{
		"ring": `use "any"`,
		"nccl": `use "ring" (TCP between processes, on the CPU), or install the mlx-cuda-13 wheel on an NVIDIA machine`,
		"mpi":  `install an MPI (MLX loads libmpi.so, or the library MLX_MPI_LIBNAME names) and start the ranks with mpirun, or use "ring"`,
	}
)

// Init initializes MLX's distributed backend and returns the world group.
// backend is "any" (NCCL when CUDA is present, then ring, then MPI: MLX's
// order), "ring", "nccl" or "mpi". Without the backend's environment (a
// process not started by emily-repl launch, mpirun or the like) the world
// is this process alone, and the collectives are the identity. A backend
// missing from this MLX build, or an environment that names a world that
// cannot be reached, panics with an *emily.Error naming the backend and
// the fix. Calling it again with the same backend returns the same group;
// the first group initialized is the World.
func Init(backend string) *Group {
	mu.Lock()
	defer mu.Unlock()
	if g := inits[backend]; g != nil {
		return g
	}
	switch backend {
	case "any", "ring", "nccl", "mpi":
	default:
		panic(&emily.Error{Op: "distributed.Init", Err: fmt.Errorf("unknown backend %q", backend),
			Hint: `use "any", "ring", "nccl" or "mpi"`})
	}
	if backend != "any" && !mlxbind.DistAvailable(backend) {
		panic(&emily.Error{Op: "distributed.Init",
			Err:  fmt.Errorf("the %s backend is not in this MLX build (%s)", backend, build()),
			Hint: instead[backend]})
	}
	strict := configured(backend)
	id, err := mlxbind.DistInit(backend, strict)
	if err != nil {
		panic(&emily.Error{Op: "distributed.Init", Err: fmt.Errorf("backend %s: %w", backend, err), Hint: launchHint(backend)})
	}
	g := newGroup("distributed.Init", id)
	inits[backend] = g
	if world == nil {
		world = g
	}
	return g
}

// World returns the group of every rank: the one the first Init made, or
// Init("any")'s.
func World() *Group {
	mu.Lock()
	w := world
	mu.Unlock()
	if w != nil {
		return w
	}
	return Init("any")
}

// Available reports whether this MLX build has backend ("ring", "nccl",
// "mpi"; "any" for at least one).
func Available(backend string) bool { return mlxbind.DistAvailable(backend) }

// configured reports whether the environment names a world for backend.
func configured(backend string) bool {
	names := envFor[backend]
	if backend == "any" {
		names = append(append(append([]string{}, envFor["ring"]...), envFor["nccl"]...), envFor["mpi"]...)
	}
	for _, n := range names {
		if os.Getenv(n) != "" {
			return true
		}
	}
	return false
}

func launchHint(backend string) string {
	switch backend {
	case "ring":
		return "start the ranks with emily-repl launch -n N FILE, which sets MLX_RANK and MLX_HOSTFILE (a JSON list of \"ip:port\" per rank); every rank must start"
	case "nccl":
		return "start the ranks with emily-repl launch -n N --backend nccl FILE, which sets MLX_RANK, MLX_WORLD_SIZE, NCCL_HOST_IP and NCCL_PORT"
	case "mpi":
		return "start the ranks with mpirun -np N (MPI rejects a world of one)"
	}
	return "start the ranks with emily-repl launch -n N FILE"
}

func build() string {
	if emily.DefaultDevice() == "gpu" {
		return "the GPU wheel"
	}
	return "the mlx-cpu wheel"
}

func newGroup(op string, id int) *Group {
	rank, size, bk, err := mlxbind.DistGroupInfo(id)
	if err != nil {
		panic(&emily.Error{Op: op, Err: err})
	}
	return &Group{id: id, rank: rank, size: size, backend: bk}
}

func orWorld(g *Group) *Group {
	if g == nil {
		return World()
	}
	return g
}

// handle is the group attribute of op: the shim's handle of g (nil: the
// world).
func handle(op string, g *Group) int { return orWorld(g).id }

// apply and applyMulti are the root package's op application (eager, or
// recorded in the trace running), which the generated ops call.
func apply(name string, op ir.Op, attrs ir.Attrs, xs ...*emily.Tensor) *emily.Tensor {
	return applyMulti(name, op, attrs, xs...)[0]
}

func applyMulti(name string, op ir.Op, attrs ir.Attrs, xs ...*emily.Tensor) []*emily.Tensor {
	f, ok := opapply.ApplyMulti.(func(string, ir.Op, ir.Attrs, ...*emily.Tensor) []*emily.Tensor)
	if !ok {
		panic(&emily.Error{Op: name, Err: fmt.Errorf("the emily package did not register its op application"),
			Hint: "import github.com/emily-go/emily"})
	}
	return f(name, op, attrs, xs...)
}
