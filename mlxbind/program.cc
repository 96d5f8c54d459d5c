// program.cc: a traced function as a flat instruction list, validated once
// and replayed in one call (the native lane), optionally under
// mlx::core::compile (fuse).
#include <chrono>
#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <sstream>

#include <cstdlib>
#include <fstream>

#include "mlx/compile_impl.h"
#include "mlx/graph_utils.h"
#include "program.hpp"
#include "shim_internal.hpp"

namespace emily {
namespace {

enum RefKind : int64_t { kInput = 0, kConst = 1, kInstr = 2 };
constexpr int kKindShift = 48;
constexpr int kOutShift = 32;
constexpr int64_t kIndexMask = (int64_t(1) << kOutShift) - 1;
constexpr int64_t kOutMask = (int64_t(1) << (kKindShift - kOutShift)) - 1;

// At construction an instruction ref (instruction i, result k) becomes a
// flat value slot: slots hold every result of every instruction in order.
struct Instr {
  int opcode;  // kRegionOpcode: a region instruction, see Program::regions
  int n_out;
  int n_in;
  size_t in_off;  // into Program::refs
  int n_attrs;
  size_t attr_off;  // into Program::attrs
  int region = -1;  // region instructions: index into Program::regions
};

// The opcode word of a region instruction; its attribute words encode the
// region (see decode_region).
constexpr int64_t kRegionOpcode = -1;
// Nesting limit for regions: decoding recurses once per level.
constexpr int kMaxRegionDepth = 64;

// A fused replay for one stream: MLX's compile cache is per OS thread and
// keyed by fun_id, so each (program, stream) pair gets an id that is never
// reused, and the program remembers every thread cache it was compiled into
// so that it can erase itself from all of them when freed (Emily #172 hit
// the same problem: an erase on the wrong thread leaves stale entries).
struct Fused {
  std::uintptr_t id;
  std::function<std::vector<mx::array>(const std::vector<mx::array>&)> fn;
  std::vector<mx::detail::CompileCacheWeakPtr> caches;
};

std::atomic<std::uintptr_t> next_fun_id{1};

// fused_traces counts how many times mlx::core::compile traced a fused
// replay (once per program, stream, input signature and thread cache):
// tests read it to prove a fused loop body is compiled once, not per
// iteration.
std::atomic<int64_t> fused_traces{0};
// run_build_ns and run_eval_ns: emily_program_times; run_call_ns (the
// whole call, the MLX lock's wait included) and run_after_ns (from the
// eval's end to the lock's release): emily_program_call_times.
std::atomic<int64_t> run_build_ns{0}, run_eval_ns{0}, run_call_ns{0}, run_after_ns{0};

int64_t since_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t)
      .count();
}

}  // namespace
}  // namespace emily

struct emily_program_s {
  int n_inputs;
  std::vector<mx::array> consts;
  std::vector<emily::Instr> instrs;
  std::vector<int64_t> refs;
  std::vector<int64_t> attrs;
  std::vector<int64_t> outputs;
  std::vector<emily::Region> regions;  // decoded region instructions
  // Fused replays by stream; mutable: a body program (const, shared by its
  // region) fills it on its first fused call.
  mutable std::map<int, emily::Fused> fused;
  mutable int replays = 0;  // counted by dump_graph only with EMILY_MLX_DOT set
  // host_driven: a region instruction here, or in a body at any depth, is
  // of a host-driven kind; the program is then never compiled whole.
  bool host_driven = false;
  int64_t n_slots = 0;  // results of all instructions, in order
  // release[k] lists the value slots whose last use is instruction k: build drops them right after it, so that when MLX evaluates the
  // graph each intermediate is referenced by its consumer alone and MLX can
  // donate its buffer to that consumer, as it does for MLX Python, where
  // `x = f(x)` drops the old x. Results the program outputs are never
  // listed. Filled once by plan_release.
  std::vector<std::vector<int32_t>> release;

  void plan_release() {
    std::vector<int64_t> last(n_slots, -1);
    for (size_t k = 0; k < instrs.size(); ++k) {
      for (int j = 0; j < instrs[k].n_in; ++j) {
        int64_t ref = refs[instrs[k].in_off + j];
        if ((ref >> emily::kKindShift) == emily::kInstr) last[ref & emily::kIndexMask] = k;
      }
    }
    for (int64_t ref : outputs) {
      if ((ref >> emily::kKindShift) == emily::kInstr) last[ref & emily::kIndexMask] = -1;
    }
    release.assign(instrs.size(), {});
    for (int64_t i = 0; i < n_slots; ++i) {
      if (last[i] >= 0) release[last[i]].push_back(static_cast<int32_t>(i));
    }
  }

  // device_consts[stream index]: consts for plain replays on that GPU
  // stream, each one-element constant copied once into device memory
  // (gpumem.cc: MLX reads a host-made scalar from managed memory). A fused
  // replay keeps consts: mlx::core::compile folds them into its kernel.
  mutable std::map<int, std::vector<mx::array>> device_consts;

  const std::vector<mx::array>& consts_on(mx::Stream s) const {
    if (s.device != mx::Device::gpu || !emily::device_scalars()) return consts;
    auto it = device_consts.find(s.index);
    if (it == device_consts.end()) {
      std::vector<mx::array> cs;
      cs.reserve(consts.size());
      for (const auto& c : consts) {
        cs.push_back(c.size() == 1 ? emily::device_resident(c, s) : c);
      }
      it = device_consts.emplace(s.index, std::move(cs)).first;
    }
    return it->second;
  }

  // resolve reads an operand; refs were validated and instruction refs
  // turned into flat slot numbers at construction.
  const mx::array& resolve(int64_t ref, const std::vector<mx::array>& inputs,
                           const std::vector<mx::array>& cs,
                           const std::vector<std::optional<mx::array>>& slots) const {
    int64_t idx = ref & emily::kIndexMask;
    switch (ref >> emily::kKindShift) {
      case emily::kInput: return inputs[idx];
      case emily::kConst: return cs[idx];
      default: return *slots[idx];
    }
  }

  // build rebuilds the MLX graph from the instructions: no checks, no eval.
  // plain: not traced by mlx::core::compile, so constants may be read from
  // their device copies.
  std::vector<mx::array> build(const std::vector<mx::array>& inputs,
                               mx::Stream s, bool plain = true) const {
    const std::vector<mx::array>& cs = plain ? consts_on(s) : consts;
    std::vector<std::optional<mx::array>> slots;
    slots.reserve(n_slots);
    std::vector<mx::array> in;
    for (size_t k = 0; k < instrs.size(); ++k) {
      const auto& ins = instrs[k];
      in.clear();
      for (int j = 0; j < ins.n_in; ++j) {
        in.push_back(resolve(refs[ins.in_off + j], inputs, cs, slots));
      }
      if (ins.region >= 0) {
        const emily::Region& r = regions[ins.region];
        auto results = emily::region_kind(r.kind)->run(r, in, s);
        if (static_cast<int>(results.size()) != ins.n_out) {
          throw std::logic_error(std::string(emily::region_kind(r.kind)->name) + ": gave " +
                                 std::to_string(results.size()) + " results, expected " +
                                 std::to_string(ins.n_out));
        }
        for (auto& r : results) slots.emplace_back(std::move(r));
        for (int32_t dead : release[k]) slots[dead].reset();
        continue;
      }
      emily::OpArgs args{in, attrs.data() + ins.attr_off, ins.n_attrs, s};
      if (ins.n_out == 1) {
        slots.emplace_back(std::move(emily::apply_op(ins.opcode, args)[0]));
      } else {
        for (auto& r : emily::apply_op(ins.opcode, args)) slots.emplace_back(std::move(r));
      }
      for (int32_t dead : release[k]) slots[dead].reset();
    }
    in.clear();
    std::vector<mx::array> outs;
    outs.reserve(outputs.size());
    for (int64_t ref : outputs) outs.push_back(resolve(ref, inputs, cs, slots));
    return outs;
  }

  // run_fused replays under mlx::core::compile, compiled once per key (a
  // stream) and input signature, then reused.
  std::vector<mx::array> run_fused(const std::vector<mx::array>& in, int key,
                                   mx::Stream s) const {
    auto it = fused.find(key);
    if (it == fused.end()) {
      emily::Fused f;
      f.id = emily::next_fun_id.fetch_add(1);
      f.fn = mx::detail::compile(
          [this, s](const std::vector<mx::array>& xs) {
            emily::fused_traces.fetch_add(1);
            return build(xs, s, false);
          },
          f.id);
      it = fused.emplace(key, std::move(f)).first;
    }
    // Remember this OS thread's cache so the free erases the entry here too.
    auto cache = mx::detail::compile_cache();
    auto& caches = it->second.caches;
    bool known = false;
    for (auto& c : caches) known = known || (!c.owner_before(cache) && !cache.owner_before(c));
    if (!known) caches.push_back(cache);
    return it->second.fn(in);
  }

  ~emily_program_s() {
    for (auto& [stream, f] : fused) {
      for (auto& cache : f.caches) mx::detail::compile_erase(cache, f.id);
    }
  }
};

namespace emily {
namespace {

// dump_graph writes the MLX graph a replay built (after mlx::core::compile's
// fusion in the fuse lane) as Graphviz, once per program, to
// $EMILY_MLX_DOT.<n>.dot: the diagnostic that compares a program's
// primitives with the same function's in MLX Python (mx.export_to_dot of a
// compiled function's outputs; BENCHMARKS.md). Before the eval, which
// detaches the graph. The third replay's: the first ones' inputs may still
// be unevaluated (an optimizer's zero state), and the walk would show
// their graphs too. Off unless the variable is set.
std::atomic<int> dumped_graphs{0};
void dump_graph(const emily_program_s* p, const std::vector<mx::array>& result) {
  static const char* base = std::getenv("EMILY_MLX_DOT");
  if (base == nullptr || *base == 0 || ++p->replays != 3) return;
  std::ofstream out(std::string(base) + "." + std::to_string(dumped_graphs.fetch_add(1)) + ".dot");
  mx::export_to_dot(out, result);
}

// check_ref validates an operand ref against what exists before the
// current instruction and returns it with an instruction result turned
// into its flat slot number (base[i] is instruction i's first slot).
int64_t check_ref(int64_t ref, int n_inputs, int n_consts,
                  const std::vector<emily::Instr>& instrs,
                  const std::vector<int64_t>& base, const std::string& where) {
  int64_t kind = ref >> kKindShift;
  int64_t out = (ref >> kOutShift) & kOutMask;
  int64_t idx = ref & kIndexMask;
  int64_t limit = kind == kInput   ? n_inputs
                  : kind == kConst ? n_consts
                  : kind == kInstr ? static_cast<int64_t>(instrs.size())
                                   : -1;
  bool ok = ref >= 0 && limit >= 0 && idx < limit &&
            (kind == kInstr ? out < instrs[idx].n_out : out == 0);
  if (!ok) {
    std::ostringstream msg;
    msg << where << ": bad operand ref (kind " << kind << ", index " << idx
        << ", result " << out << "; have " << n_inputs << " inputs, " << n_consts
        << " consts, " << instrs.size() << " earlier instructions)";
    throw std::invalid_argument(msg.str());
  }
  if (kind != kInstr) return ref;
  return (kInstr << kKindShift) | (base[idx] + out);
}

int64_t read_word(const int64_t* code, size_t n_code, size_t& pc,
                  const std::string& where) {
  if (pc >= n_code) throw std::invalid_argument(where + ": code ends mid-instruction");
  return code[pc++];
}

}  // namespace
}  // namespace emily

namespace emily {
namespace {

std::unique_ptr<emily_program_s> decode_program(int n_inputs, int n_consts, const int64_t* code,
                                                size_t n_code, const int64_t* outputs,
                                                int n_outputs, int depth,
                                                const std::string& scope);

// decode_region reads a region instruction's attribute words:
//   kind, n_params, params..., n_bodies, then per body:
//   n_args, n_captures, captures..., n_code, code..., n_outputs, outputs...
// Bodies are programs without constants (the Go lowerer hoists a body's
// constants to region operands) validated like the top level.
Region decode_region(const int64_t* w, size_t n, int n_operands, int depth,
                     const std::string& where) {
  if (depth >= kMaxRegionDepth) {
    throw std::invalid_argument(where + ": regions nested deeper than " +
                                std::to_string(kMaxRegionDepth));
  }
  size_t pc = 0;
  auto word = [&](int64_t lo, int64_t hi, const char* what) {
    if (pc >= n) throw std::invalid_argument(where + ": region words end early (" + what + ")");
    int64_t v = w[pc++];
    if (v < lo || v > hi) {
      throw std::invalid_argument(where + ": region " + what + " " + std::to_string(v) +
                                  " out of range");
    }
    return v;
  };
  auto span = [&](int64_t len, const char* what) {
    if (len < 0 || static_cast<uint64_t>(len) > n - pc) {
      throw std::invalid_argument(where + ": region " + what + " runs past the region words");
    }
    const int64_t* p = w + pc;
    pc += static_cast<size_t>(len);
    return p;
  };
  Region r;
  r.kind = static_cast<int>(word(0, 1 << 20, "kind"));
  const RegionKind* rk = region_kind(r.kind);
  if (rk == nullptr) {
    throw std::invalid_argument(where + ": unknown region kind " + std::to_string(r.kind));
  }
  int64_t n_params = word(0, static_cast<int64_t>(n), "parameter count");
  const int64_t* params = span(n_params, "parameters");
  r.params.assign(params, params + n_params);
  int64_t n_bodies = word(0, static_cast<int64_t>(n), "body count");
  for (int64_t b = 0; b < n_bodies; ++b) {
    std::string bwhere = where + " (" + rk->name + ") body " + std::to_string(b);
    Body body;
    body.n_args = static_cast<int>(word(0, 1 << 20, "argument count"));
    int64_t n_caps = word(0, static_cast<int64_t>(n), "capture count");
    const int64_t* caps = span(n_caps, "captures");
    for (int64_t k = 0; k < n_caps; ++k) {
      if (caps[k] < 0 || caps[k] >= n_operands) {
        throw std::invalid_argument(bwhere + ": capture " + std::to_string(k) +
                                    " names operand " + std::to_string(caps[k]) + " of " +
                                    std::to_string(n_operands));
      }
      body.captures.push_back(static_cast<int>(caps[k]));
    }
    int64_t n_code = word(0, static_cast<int64_t>(n), "code length");
    const int64_t* code = span(n_code, "code");
    int64_t n_outs = word(1, static_cast<int64_t>(n), "output count");
    const int64_t* outs = span(n_outs, "outputs");
    body.prog = decode_program(body.n_args + static_cast<int>(n_caps), 0, code,
                               static_cast<size_t>(n_code), outs, static_cast<int>(n_outs),
                               depth + 1, bwhere + ": ");
    body.n_outputs = static_cast<int>(n_outs);
    r.bodies.push_back(std::move(body));
  }
  if (pc != n) {
    throw std::invalid_argument(where + ": " + std::to_string(n - pc) +
                                " region word(s) too many");
  }
  return r;
}

std::unique_ptr<emily_program_s> decode_program(int n_inputs, int n_consts, const int64_t* code,
                                                size_t n_code, const int64_t* outputs,
                                                int n_outputs, int depth,
                                                const std::string& scope) {
  auto p = std::make_unique<emily_program_s>();
  p->n_inputs = n_inputs;
  size_t pc = 0;
  std::vector<int64_t> base;  // first slot of each instruction
  int64_t n_slots = 0;
  while (pc < n_code) {
    std::string where = scope + "instruction " + std::to_string(p->instrs.size());
    emily::Instr ins{};
    auto word_in = [&](int64_t lo, int64_t hi, const char* what) {
      int64_t v = emily::read_word(code, n_code, pc, where);
      if (v < lo || v > hi) {
        throw std::invalid_argument(where + ": " + what + " " + std::to_string(v) + " out of range");
      }
      return static_cast<int>(v);
    };
    ins.opcode = word_in(kRegionOpcode, EMILY_OPCODE_COUNT - 1, "opcode");
    ins.n_out = word_in(1, 1 << 16, "result count");
    ins.n_in = word_in(0, static_cast<int64_t>(n_code), "operand count");
    ins.in_off = p->refs.size();
    for (int k = 0; k < ins.n_in; ++k) {
      int64_t ref = emily::read_word(code, n_code, pc, where);
      p->refs.push_back(emily::check_ref(ref, n_inputs, n_consts, p->instrs, base, where));
    }
    ins.n_attrs = word_in(0, static_cast<int64_t>(n_code - pc), "attribute word count");
    int want;
    if (ins.opcode == kRegionOpcode) {
      Region r = decode_region(code + pc, ins.n_attrs, ins.n_in, depth, where);
      pc += ins.n_attrs;
      const RegionKind* rk = region_kind(r.kind);
      try {
        want = rk->check(r, ins.n_in);
      } catch (const std::exception& e) {
        throw std::invalid_argument(where + ": " + rk->name + ": " + e.what());
      }
      ins.n_attrs = 0;
      ins.region = static_cast<int>(p->regions.size());
      p->host_driven = p->host_driven || rk->host_driven;
      for (const Body& b : r.bodies) p->host_driven = p->host_driven || b.host_driven();
      p->regions.push_back(std::move(r));
      if (want != ins.n_out) {
        throw std::invalid_argument(where + ": " + rk->name + " gives " + std::to_string(want) +
                                    " results, the code says " + std::to_string(ins.n_out));
      }
    } else {
      ins.attr_off = p->attrs.size();
      for (int k = 0; k < ins.n_attrs; ++k) {
        p->attrs.push_back(emily::read_word(code, n_code, pc, where));
      }
      try {
        want = emily::check_op(ins.opcode, ins.n_in, p->attrs.data() + ins.attr_off,
                               ins.n_attrs);
      } catch (const std::exception& e) {
        throw std::invalid_argument(where + ": " + e.what());
      }
      if (want != ins.n_out) {
        throw std::invalid_argument(where + ": " + emily::kOpRows[ins.opcode].name + " gives " +
                                    std::to_string(want) + " results, the code says " +
                                    std::to_string(ins.n_out));
      }
    }
    base.push_back(n_slots);
    n_slots += ins.n_out;
    p->instrs.push_back(ins);
  }
  if (n_outputs < 1) throw std::invalid_argument(scope + "program has no outputs");
  for (int i = 0; i < n_outputs; ++i) {
    p->outputs.push_back(emily::check_ref(outputs[i], n_inputs, n_consts, p->instrs, base,
                                          scope + "output " + std::to_string(i)));
  }
  p->n_slots = n_slots;
  p->plan_release();
  return p;
}

std::map<int, RegionKind>& region_table() {
  static std::map<int, RegionKind> table;
  return table;
}

}  // namespace

const RegionKind* region_kind(int kind) {
  auto& t = region_table();
  auto it = t.find(kind);
  return it == t.end() ? nullptr : &it->second;
}

RegionRegistrar::RegionRegistrar(int kind, RegionKind row) { region_table()[kind] = row; }

std::vector<mx::array> Body::inputs(const std::vector<mx::array>& args,
                                    const std::vector<mx::array>& operands) const {
  std::vector<mx::array> in(args);
  in.reserve(args.size() + captures.size());
  for (int c : captures) in.push_back(operands[c]);
  return in;
}

std::vector<mx::array> Body::call(const std::vector<mx::array>& args,
                                  const std::vector<mx::array>& operands, mx::Stream s) const {
  if (static_cast<int>(args.size()) != n_args) {
    throw std::logic_error("region body takes " + std::to_string(n_args) + " arguments, got " +
                           std::to_string(args.size()));
  }
  return prog->build(inputs(args, operands), s);
}

std::vector<mx::array> Body::call_fused(const std::vector<mx::array>& args,
                                        const std::vector<mx::array>& operands,
                                        mx::Stream s) const {
  if (static_cast<int>(args.size()) != n_args) {
    throw std::logic_error("region body takes " + std::to_string(n_args) + " arguments, got " +
                           std::to_string(args.size()));
  }
  return prog->run_fused(inputs(args, operands), s.index, s);
}

bool Body::host_driven() const { return prog->host_driven; }

namespace {
bool fusing_now = false;  // guarded by the MLX lock, like everything here
}  // namespace

bool fusing() { return fusing_now; }

FusingScope::FusingScope(bool on) : prev_(fusing_now) { fusing_now = on; }
FusingScope::~FusingScope() { fusing_now = prev_; }

std::string blame_transform(const Body& b, const std::vector<mx::array>& inputs,
                            const std::vector<bool>& diff_in, bool forward, mx::Stream s) {
  const emily_program_s& p = *b.prog;
  // Rebuild the body keeping every slot, and track which slots depend on
  // the differentiated inputs.
  std::vector<mx::array> slots;
  std::vector<bool> dep;
  struct Probe {
    size_t k;
    std::vector<mx::array> in;
    std::vector<int> diff;  // operand positions that depend on the inputs
  };
  std::vector<Probe> probes;
  for (size_t k = 0; k < p.instrs.size(); ++k) {
    const auto& ins = p.instrs[k];
    std::vector<mx::array> in;
    std::vector<int> diff;
    for (int j = 0; j < ins.n_in; ++j) {
      int64_t ref = p.refs[ins.in_off + j];
      int64_t idx = ref & kIndexMask;
      bool d = false;
      switch (ref >> kKindShift) {
        case kInput:
          in.push_back(inputs[idx]);
          d = idx < static_cast<int64_t>(diff_in.size()) && diff_in[idx];
          break;
        case kConst:
          in.push_back(p.consts[idx]);
          break;
        default:
          in.push_back(slots[idx]);
          d = dep[idx];
      }
      if (d) diff.push_back(j);
    }
    std::vector<mx::array> outs;
    if (ins.region >= 0) {
      const Region& r = p.regions[ins.region];
      outs = region_kind(r.kind)->run(r, in, s);
    } else {
      outs = apply_op(ins.opcode, OpArgs{in, p.attrs.data() + ins.attr_off, ins.n_attrs, s});
    }
    for (auto& o : outs) {
      slots.push_back(o);
      dep.push_back(!diff.empty());
    }
    if (!diff.empty() && ins.region < 0) probes.push_back({k, std::move(in), std::move(diff)});
  }
  if (!forward) std::reverse(probes.begin(), probes.end());
  for (auto& pr : probes) {
    const auto& ins = p.instrs[pr.k];
    auto fun = [&](const std::vector<mx::array>& xs) {
      std::vector<mx::array> in(pr.in);
      for (size_t i = 0; i < pr.diff.size(); ++i) in[pr.diff[i]] = xs[i];
      return apply_op(ins.opcode, OpArgs{in, p.attrs.data() + ins.attr_off, ins.n_attrs, s});
    };
    std::vector<mx::array> primals;
    for (int d : pr.diff) primals.push_back(pr.in[d]);
    try {
      if (forward) {
        std::vector<mx::array> tangents;
        for (auto& x : primals) tangents.push_back(mx::ones_like(x, s));
        mx::jvp(fun, primals, tangents);
      } else {
        std::vector<mx::array> cotangents;
        for (auto& o : fun(primals)) cotangents.push_back(mx::ones_like(o, s));
        mx::vjp(fun, primals, cotangents);
      }
    } catch (const std::exception& e) {
      return "instruction %" + std::to_string(pr.k) + " (" + kOpRows[ins.opcode].name + "): " +
             e.what();
    }
  }
  return "";
}

}  // namespace emily

extern "C" {

int emily_program_new(emily_program* out, int n_inputs, const emily_array* consts,
                      int n_consts, const int64_t* code, size_t n_code,
                      const int64_t* outputs, int n_outputs, char** err) {
  return emily::guarded(err, [&] {
    if (n_inputs < 0 || n_consts < 0) throw std::invalid_argument("negative input or const count");
    auto p = emily::decode_program(n_inputs, n_consts, code, n_code, outputs, n_outputs, 0, "");
    for (int i = 0; i < n_consts; ++i) p->consts.push_back(consts[i]->a);
    *out = p.release();
  });
}

int emily_program_apply(emily_program p, const emily_array* inputs, int n_inputs,
                        emily_array* outs, int stream, char** err) {
  return emily::guarded(err, [&] {
    if (n_inputs != p->n_inputs) {
      throw std::invalid_argument("program takes " + std::to_string(p->n_inputs) +
                                  " inputs, got " + std::to_string(n_inputs));
    }
    std::vector<mx::array> in;
    in.reserve(n_inputs);
    for (int i = 0; i < n_inputs; ++i) in.push_back(inputs[i]->a);
    std::vector<mx::array> result = p->build(in, emily::stream_at(stream));
    for (size_t i = 0; i < result.size(); ++i) outs[i] = emily::wrap(std::move(result[i]));
  });
}

void emily_program_free(emily_program p) {
  char* ignored = nullptr;
  emily::guarded(&ignored, [&] { delete p; });
  free(ignored);
}

int emily_program_run(emily_program p, const emily_array* inputs, int n_inputs,
                      const unsigned char* donate, emily_array* outs, int stream, int flags,
                      int* inplace,
                      size_t* active_memory, char** err) {
  const int fuse = flags & EMILY_RUN_FUSE;
  const auto entered = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point evaluated = entered;
  int status = emily::guarded(err, [&] {
    int n_inplace = inplace == nullptr ? 0 : *inplace;
    if (inplace != nullptr) *inplace = 0;
    if (n_inputs != p->n_inputs) {
      throw std::invalid_argument("program takes " + std::to_string(p->n_inputs) +
                                  " inputs, got " + std::to_string(n_inputs));
    }
    if (n_inplace < 0 || n_inplace > n_inputs ||
        n_inplace > static_cast<int>(p->outputs.size())) {
      throw std::invalid_argument("in-place count " + std::to_string(n_inplace) + " out of range (" +
                                  std::to_string(n_inputs) + " inputs, " +
                                  std::to_string(p->outputs.size()) + " outputs)");
    }
    mx::Stream s = emily::stream_at(stream);
    std::vector<mx::array> in;
    in.reserve(n_inputs);
    for (int i = 0; i < n_inputs; ++i) in.push_back(inputs[i]->a);
    std::vector<mx::array> result;
    auto t0 = std::chrono::steady_clock::now();
    if (fuse && !p->host_driven) {
      result = p->run_fused(in, stream, s);
    } else {
      // A host-driven program (a while loop, a cond) replays plainly; under
      // fuse its handlers compile their bodies. Entry points hold the MLX
      // lock, so the flag cannot leak into another replay.
      emily::FusingScope scope(fuse != 0);
      result = p->build(in, s);
    }
    // The graph holds the inputs now: drop the local copies, so that what
    // follows can leave an old array to the graph alone.
    in.clear();
    auto t1 = std::chrono::steady_clock::now();
    emily::dump_graph(p, result);
    // In place only if every pair matches (this signature's results may
    // differ from the one the caller saw); otherwise none, as a plain run.
    for (int i = 0; i < n_inplace; ++i) {
      const mx::array& old = inputs[i]->a;
      if (old.shape() != result[i].shape() || old.dtype() != result[i].dtype()) n_inplace = 0;
    }
    if (n_inplace > 0) {
      // Each state handle takes its new value: only the graph keeps the
      // old one now.
      for (int i = 0; i < n_inplace; ++i) inputs[i]->a = result[i];
      *inplace = n_inplace;
    }
    // Donated inputs (not those just updated in place): the caller's
    // handles let go too, so that MLX sees each as used by the graph alone
    // (array::is_donatable) and an op that overwrites it, a KV cache's
    // DynamicSliceUpdate, reuses its buffer instead of copying the whole
    // cache every step.
    if (donate != nullptr) {
      for (int i = n_inplace; i < n_inputs; ++i) {
        if (donate[i]) inputs[i]->a = mx::array(0.0f);
      }
    }
    // Async: queue the evaluation and return, so that the caller builds
    // its next call while this one computes (a decode loop issues step
    // n+1 before it reads token n); reading a result waits for it.
    if (flags & EMILY_RUN_ASYNC) {
      mx::async_eval(result);
    } else {
      mx::eval(result);
    }
    auto t2 = std::chrono::steady_clock::now();
    evaluated = t2;
    emily::run_build_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    emily::run_eval_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count();
    for (size_t i = 0; i < result.size(); ++i) {
      outs[i] = static_cast<int>(i) < n_inplace ? nullptr : emily::wrap(std::move(result[i]));
    }
    *active_memory = mx::get_active_memory();
  });
  emily::run_call_ns += emily::since_ns(entered);
  if (evaluated != entered) emily::run_after_ns += emily::since_ns(evaluated);
  return status;
}

int64_t emily_fused_traces(void) { return emily::fused_traces.load(); }  // atomic: no lock

void emily_program_times(int64_t* build_ns, int64_t* eval_ns) {  // atomics: no lock
  *build_ns = emily::run_build_ns.load();
  *eval_ns = emily::run_eval_ns.load();
}

void emily_program_call_times(int64_t* call_ns, int64_t* after_ns) {  // atomics: no lock
  *call_ns = emily::run_call_ns.load();
  *after_ns = emily::run_after_ns.load();
}

}  // extern "C"
