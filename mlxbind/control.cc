// control.cc: the region kinds of traced control flow. A while loop runs
// on the host: each iteration builds the condition, evaluates it with the
// state, reads the bool, and builds the body, so the trip count comes from
// the data and the graph never grows past one iteration. A cond evaluates
// its predicate and builds the branch it picks, and only that one. Under
// fuse a body free of control flow is replayed through mlx::core::compile,
// compiled once per program and stream (Body::call_fused); the condition
// is not fused. Both kinds evaluate while building, so a program holding
// one is never compiled whole or differentiated through (host_driven).
#include <atomic>
#include <stdexcept>
#include <string>

#include "program.hpp"

namespace emily {
namespace {

// The kinds' numbers are ir.RegionKind's.
enum : int { kWhile = 4, kCond = 5 };

// interrupts counts emily_interrupt calls: a loop notes the count when it
// starts and stops when it changes (the REPL's interrupt reaches a loop
// that would otherwise hold the MLX lock forever).
std::atomic<int64_t> interrupts{0};

// run_body builds a loop body or a branch: fused when the program runs
// under fuse and the body holds no control flow of its own.
std::vector<mx::array> run_body(const Body& b, const std::vector<mx::array>& args,
                                const std::vector<mx::array>& operands, mx::Stream s) {
  if (fusing() && !b.host_driven()) return b.call_fused(args, operands, s);
  return b.call(args, operands, s);
}

// truth reads an evaluated predicate. Tracing checked that it is a scalar
// bool; the shim checks again, since a program may come from elsewhere.
bool truth(const mx::array& p, const char* what) {
  if (p.ndim() != 0 || p.dtype() != mx::bool_) {
    throw std::invalid_argument(std::string(what) + " must be a scalar bool");
  }
  return p.item<bool>();
}

// while: operands are the initial state (one per body argument), then
// captures. Body 0 is the condition (state -> scalar bool), body 1 the
// body (state -> state). Results: the final state.
int check_while(const Region& r, int n_operands) {
  if (r.bodies.size() != 2) {
    throw std::invalid_argument("takes a condition and a body, got " +
                                std::to_string(r.bodies.size()) + " bodies");
  }
  const Body& cond = r.bodies[0];
  const Body& body = r.bodies[1];
  int n = body.n_args;
  if (n < 1 || n > n_operands) {
    throw std::invalid_argument("state of " + std::to_string(n) + " slots with " +
                                std::to_string(n_operands) + " operands");
  }
  if (cond.n_args != n || cond.n_outputs != 1) {
    throw std::invalid_argument("the condition must take the " + std::to_string(n) +
                                " state slots and give one result");
  }
  if (body.n_outputs != n) {
    throw std::invalid_argument("the body gives " + std::to_string(body.n_outputs) +
                                " results for " + std::to_string(n) + " state slots");
  }
  return n;
}

std::vector<mx::array> run_while(const Region& r, const std::vector<mx::array>& ops,
                                 mx::Stream s) {
  const Body& cond = r.bodies[0];
  const Body& body = r.bodies[1];
  std::vector<mx::array> state(ops.begin(), ops.begin() + body.n_args);
  const int64_t seen = interrupts.load();
  for (int64_t iter = 0;; ++iter) {
    if (interrupts.load() != seen) {
      // "interrupted" starts the message: mlxbind maps it to ErrInterrupted.
      throw std::runtime_error("interrupted: the while loop stopped after " +
                               std::to_string(iter) + " iterations");
    }
    mx::array p = cond.call(state, ops, s)[0];
    // Evaluate the state with the predicate: each iteration's graph is
    // then one body deep, and the previous state, referenced by nothing
    // once `state` is replaced, is freed (or donated) as the body runs.
    std::vector<mx::array> pending(state);
    pending.push_back(p);
    mx::eval(pending);
    if (!truth(p, "the while condition")) return state;
    std::vector<mx::array> next = run_body(body, state, ops, s);
    state = std::move(next);
  }
}

// cond: operand 0 is the predicate, then one operand per branch argument,
// then captures. Body 0 is the then branch, body 1 the else branch; both
// take the same arguments and give the same number of results.
int check_cond(const Region& r, int n_operands) {
  if (r.bodies.size() != 2) {
    throw std::invalid_argument("takes two branches, got " + std::to_string(r.bodies.size()) +
                                " bodies");
  }
  const Body& then = r.bodies[0];
  const Body& els = r.bodies[1];
  if (then.n_args != els.n_args || 1 + then.n_args > n_operands) {
    throw std::invalid_argument("the branches take " + std::to_string(then.n_args) + " and " +
                                std::to_string(els.n_args) + " arguments with " +
                                std::to_string(n_operands) + " operands");
  }
  if (then.n_outputs != els.n_outputs) {
    throw std::invalid_argument("the branches give " + std::to_string(then.n_outputs) + " and " +
                                std::to_string(els.n_outputs) + " results");
  }
  return then.n_outputs;
}

std::vector<mx::array> run_cond(const Region& r, const std::vector<mx::array>& ops,
                                mx::Stream s) {
  const mx::array& p = ops[0];
  mx::eval({p});
  const Body& b = truth(p, "the cond predicate") ? r.bodies[0] : r.bodies[1];
  std::vector<mx::array> args(ops.begin() + 1, ops.begin() + 1 + b.n_args);
  return run_body(b, args, ops, s);
}

const RegionRegistrar while_kind(kWhile, {"while", check_while, run_while, true});
const RegionRegistrar cond_kind(kCond, {"cond", check_cond, run_cond, true});

}  // namespace
}  // namespace emily

extern "C" void emily_interrupt(void) { emily::interrupts.fetch_add(1); }
