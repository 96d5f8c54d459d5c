// program.cc: a traced function as a flat instruction list, validated once
// and replayed in one call (the native lane), optionally under
// mlx::core::compile (fuse).
#include <atomic>
#include <map>
#include <optional>
#include <sstream>

#include "mlx/compile_impl.h"
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
  int opcode;
  int n_out;
  int n_in;
  size_t in_off;  // into Program::refs
  int n_attrs;
  size_t attr_off;  // into Program::attrs
};

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

}  // namespace
}  // namespace emily

struct emily_program_s {
  int n_inputs;
  std::vector<mx::array> consts;
  std::vector<emily::Instr> instrs;
  std::vector<int64_t> refs;
  std::vector<int64_t> attrs;
  std::vector<int64_t> outputs;
  std::map<int, emily::Fused> fused;  // by stream index
  int64_t n_slots = 0;  // results of all instructions, in order
  // release[k] lists the value slots whose last use is instruction k: build drops them right after it, so that when MLX evaluates the
  // graph each intermediate is referenced by its consumer alone and MLX can
  // donate its buffer to that consumer, as it does for MLX Python, where
  // `x = f(x)` drops the old x. Results the program outputs are never
  // listed. Filled once by plan_release.
  std::vector<std::vector<int32_t>> release;

  // split_shared_scalars gives every use of a one-element constant after
  // the first its own copy, made once here. MLX's CUDA backend runs a graph
  // whose ops all read one shared scalar array markedly slower than one
  // where each op reads its own (MLX Python makes a fresh scalar for every
  // `x * 0.5`). Measured on an H200 with bench/control/chain.cc, 100-op
  // chain on 1M float32: one shared scalar 1.29-1.67 ms, a scalar per use
  // 1.09-1.16 ms, MLX Python 0.97-1.14 ms. Values are unchanged, so the
  // lanes stay bit-identical.
  void split_shared_scalars() {
    std::vector<int> uses(consts.size(), 0);
    for (const auto& ins : instrs) {
      for (int j = 0; j < ins.n_in; ++j) {
        int64_t& ref = refs[ins.in_off + j];
        if ((ref >> emily::kKindShift) != emily::kConst) continue;
        int64_t idx = ref & emily::kIndexMask;
        if (consts[idx].size() != 1 || uses[idx]++ == 0) continue;
        mx::array c = consts[idx];
        c.eval();
        void* host = std::malloc(c.itemsize());
        std::memcpy(host, c.data<char>(), c.itemsize());
        consts.push_back(mx::array(host, c.shape(), c.dtype(), [](void* q) { std::free(q); }));
        ref = (int64_t(emily::kConst) << emily::kKindShift) | int64_t(consts.size() - 1);
      }
    }
  }

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

  // resolve reads an operand; refs were validated and instruction refs
  // turned into flat slot numbers at construction.
  const mx::array& resolve(int64_t ref, const std::vector<mx::array>& inputs,
                           const std::vector<std::optional<mx::array>>& slots) const {
    int64_t idx = ref & emily::kIndexMask;
    switch (ref >> emily::kKindShift) {
      case emily::kInput: return inputs[idx];
      case emily::kConst: return consts[idx];
      default: return *slots[idx];
    }
  }

  // build rebuilds the MLX graph from the instructions: no checks, no eval.
  std::vector<mx::array> build(const std::vector<mx::array>& inputs,
                               mx::Stream s) const {
    std::vector<std::optional<mx::array>> slots;
    slots.reserve(n_slots);
    std::vector<mx::array> in;
    for (size_t k = 0; k < instrs.size(); ++k) {
      const auto& ins = instrs[k];
      in.clear();
      for (int j = 0; j < ins.n_in; ++j) {
        in.push_back(resolve(refs[ins.in_off + j], inputs, slots));
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
    for (int64_t ref : outputs) outs.push_back(resolve(ref, inputs, slots));
    return outs;
  }

  ~emily_program_s() {
    for (auto& [stream, f] : fused) {
      for (auto& cache : f.caches) mx::detail::compile_erase(cache, f.id);
    }
  }
};

namespace emily {
namespace {

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

extern "C" {

int emily_program_new(emily_program* out, int n_inputs, const emily_array* consts,
                      int n_consts, const int64_t* code, size_t n_code,
                      const int64_t* outputs, int n_outputs, char** err) {
  return emily::guarded(err, [&] {
    auto p = std::make_unique<emily_program_s>();
    p->n_inputs = n_inputs;
    for (int i = 0; i < n_consts; ++i) p->consts.push_back(consts[i]->a);
    size_t pc = 0;
    std::vector<int64_t> base;  // first slot of each instruction
    int64_t n_slots = 0;
    while (pc < n_code) {
      std::string where = "instruction " + std::to_string(p->instrs.size());
      emily::Instr ins{};
      auto word_in = [&](int64_t lo, int64_t hi, const char* what) {
        int64_t v = emily::read_word(code, n_code, pc, where);
        if (v < lo || v > hi) {
          throw std::invalid_argument(where + ": " + what + " " + std::to_string(v) + " out of range");
        }
        return static_cast<int>(v);
      };
      ins.opcode = word_in(0, EMILY_OPCODE_COUNT - 1, "opcode");
      ins.n_out = word_in(1, 1 << 16, "result count");
      ins.n_in = word_in(0, static_cast<int64_t>(n_code), "operand count");
      ins.in_off = p->refs.size();
      for (int k = 0; k < ins.n_in; ++k) {
        int64_t ref = emily::read_word(code, n_code, pc, where);
        p->refs.push_back(emily::check_ref(ref, n_inputs, n_consts, p->instrs, base, where));
      }
      ins.n_attrs = word_in(0, static_cast<int64_t>(n_code), "attribute word count");
      ins.attr_off = p->attrs.size();
      for (int k = 0; k < ins.n_attrs; ++k) {
        p->attrs.push_back(emily::read_word(code, n_code, pc, where));
      }
      int want;
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
      base.push_back(n_slots);
      n_slots += ins.n_out;
      p->instrs.push_back(ins);
    }
    if (n_outputs < 1) throw std::invalid_argument("program has no outputs");
    for (int i = 0; i < n_outputs; ++i) {
      p->outputs.push_back(emily::check_ref(outputs[i], n_inputs, n_consts, p->instrs, base,
                                            "output " + std::to_string(i)));
    }
    p->n_slots = n_slots;
    p->split_shared_scalars();
    p->plan_release();
    *out = p.release();
  });
}

void emily_program_free(emily_program p) {
  char* ignored = nullptr;
  emily::guarded(&ignored, [&] { delete p; });
  free(ignored);
}

int emily_program_run(emily_program p, const emily_array* inputs, int n_inputs,
                      emily_array* outs, int stream, int fuse,
                      size_t* active_memory, char** err) {
  return emily::guarded(err, [&] {
    if (n_inputs != p->n_inputs) {
      throw std::invalid_argument("program takes " + std::to_string(p->n_inputs) +
                                  " inputs, got " + std::to_string(n_inputs));
    }
    mx::Stream s = emily::stream_at(stream);
    std::vector<mx::array> in;
    in.reserve(n_inputs);
    for (int i = 0; i < n_inputs; ++i) in.push_back(inputs[i]->a);
    std::vector<mx::array> result;
    if (fuse) {
      auto it = p->fused.find(stream);
      if (it == p->fused.end()) {
        emily::Fused f;
        f.id = emily::next_fun_id.fetch_add(1);
        f.fn = mx::detail::compile(
            [p, s](const std::vector<mx::array>& xs) {
              emily::fused_traces.fetch_add(1);
              return p->build(xs, s);
            },
            f.id);
        it = p->fused.emplace(stream, std::move(f)).first;
      }
      // Remember this OS thread's cache so the free erases the entry here too.
      auto cache = mx::detail::compile_cache();
      auto& caches = it->second.caches;
      bool known = false;
      for (auto& c : caches) known = known || (!c.owner_before(cache) && !cache.owner_before(c));
      if (!known) caches.push_back(cache);
      result = it->second.fn(in);
    } else {
      result = p->build(in, s);
    }
    mx::eval(result);
    for (size_t i = 0; i < result.size(); ++i) outs[i] = emily::wrap(std::move(result[i]));
    *active_memory = mx::get_active_memory();
  });
}

int64_t emily_fused_traces(void) { return emily::fused_traces.load(); }

}  // extern "C"
