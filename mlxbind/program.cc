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
constexpr int64_t kIndexMask = (int64_t(1) << kKindShift) - 1;

struct Instr {
  int opcode;
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
  // release[k] lists the instruction results whose last use is instruction
  // k: build drops them right after it, so that when MLX evaluates the
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
    std::vector<int64_t> last(instrs.size(), -1);
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
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (last[i] >= 0) release[last[i]].push_back(static_cast<int32_t>(i));
    }
  }

  // resolve reads an operand; refs were validated at construction.
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
    slots.reserve(instrs.size());
    std::vector<mx::array> in;
    for (size_t k = 0; k < instrs.size(); ++k) {
      const auto& ins = instrs[k];
      in.clear();
      for (int j = 0; j < ins.n_in; ++j) {
        in.push_back(resolve(refs[ins.in_off + j], inputs, slots));
      }
      emily::OpArgs args{in, attrs.data() + ins.attr_off, ins.n_attrs, s};
      slots.emplace_back(emily::apply_op(ins.opcode, args));
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

// check_ref validates an operand ref against what exists before slot.
void check_ref(int64_t ref, int n_inputs, int n_consts, size_t slot,
               const std::string& where) {
  int64_t kind = ref >> kKindShift;
  int64_t idx = ref & kIndexMask;
  int64_t limit = kind == kInput   ? n_inputs
                  : kind == kConst ? n_consts
                  : kind == kInstr ? static_cast<int64_t>(slot)
                                   : -1;
  if (ref < 0 || limit < 0 || idx >= limit) {
    std::ostringstream msg;
    msg << where << ": bad operand ref (kind " << kind << ", index " << idx
        << "; have " << n_inputs << " inputs, " << n_consts << " consts, "
        << slot << " earlier instructions)";
    throw std::invalid_argument(msg.str());
  }
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
    while (pc < n_code) {
      size_t slot = p->instrs.size();
      std::string where = "instruction " + std::to_string(slot);
      emily::Instr ins{};
      ins.opcode = static_cast<int>(emily::read_word(code, n_code, pc, where));
      ins.n_in = static_cast<int>(emily::read_word(code, n_code, pc, where));
      if (ins.n_in < 0) throw std::invalid_argument(where + ": negative operand count");
      ins.in_off = p->refs.size();
      for (int k = 0; k < ins.n_in; ++k) {
        int64_t ref = emily::read_word(code, n_code, pc, where);
        emily::check_ref(ref, n_inputs, n_consts, slot, where);
        p->refs.push_back(ref);
      }
      ins.n_attrs = static_cast<int>(emily::read_word(code, n_code, pc, where));
      if (ins.n_attrs < 0) throw std::invalid_argument(where + ": negative attribute count");
      ins.attr_off = p->attrs.size();
      for (int k = 0; k < ins.n_attrs; ++k) {
        p->attrs.push_back(emily::read_word(code, n_code, pc, where));
      }
      try {
        emily::check_op(ins.opcode, ins.n_in, p->attrs.data() + ins.attr_off,
                        ins.n_attrs);
      } catch (const std::exception& e) {
        throw std::invalid_argument(where + ": " + e.what());
      }
      p->instrs.push_back(ins);
    }
    if (n_outputs < 1) throw std::invalid_argument("program has no outputs");
    for (int i = 0; i < n_outputs; ++i) {
      emily::check_ref(outputs[i], n_inputs, n_consts, p->instrs.size(),
                       "output " + std::to_string(i));
      p->outputs.push_back(outputs[i]);
    }
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
            [p, s](const std::vector<mx::array>& xs) { return p->build(xs, s); },
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

}  // extern "C"
