// program.hpp: what region handlers (autodiff.cc, control flow) need from
// program.cc. A region instruction is one instruction of a program that
// carries nested programs (bodies) and an op-specific handler that runs
// them: value_and_grad applies mx::value_and_grad to its body, a while
// loop would call its condition and body bodies in turn.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shim_internal.hpp"

namespace emily {

// Body is one nested program of a region instruction. Its inputs are
// n_args values the handler supplies at run time, then one region operand
// per entry of captures (values the body read from enclosing code, and
// the constants it captured, which the Go lowerer hoists to operands).
struct Body {
  int n_args = 0;
  std::vector<int> captures;  // operand index for each input after the args
  std::shared_ptr<const emily_program_s> prog;
  int n_outputs = 0;

  // call runs the body on args then the captured operands, lazily (it
  // builds the MLX graph; nothing is evaluated).
  std::vector<mx::array> call(const std::vector<mx::array>& args,
                              const std::vector<mx::array>& operands, mx::Stream s) const;
  // call_fused is call through mlx::core::compile, compiled once per body
  // and stream and reused on every later call (a fused loop body).
  std::vector<mx::array> call_fused(const std::vector<mx::array>& args,
                                    const std::vector<mx::array>& operands, mx::Stream s) const;
  // host_driven reports whether the body holds a host-driven region (at
  // any depth): such a body cannot be compiled.
  bool host_driven() const;
  // inputs is call's input list without running it.
  std::vector<mx::array> inputs(const std::vector<mx::array>& args,
                                const std::vector<mx::array>& operands) const;
};

// Region is a decoded region instruction: its kind, the kind's integer
// parameters, and its bodies.
struct Region {
  int kind = 0;
  std::vector<int64_t> params;
  std::vector<Body> bodies;
};

// RegionKind is one row of the region handler table: check validates a
// decoded region against its operand count at program construction
// (throwing std::invalid_argument) and returns its result count; run
// builds its results lazily. Each region family registers its kinds with
// a static RegionRegistrar in its own file.
//
// host_driven marks a kind whose run evaluates (a loop reads its
// condition, a cond its predicate): MLX forbids eval under
// mlx::core::compile, so a program holding one (at any depth) is never
// compiled whole; under fuse it replays plainly with fusing() set, and the
// handler compiles the bodies it can (Body::call_fused).
struct RegionKind {
  const char* name;
  int (*check)(const Region& r, int n_operands);
  std::vector<mx::array> (*run)(const Region& r, const std::vector<mx::array>& operands,
                                mx::Stream s);
  bool host_driven = false;
};

// fusing reports whether the replay running now was asked to fuse but
// holds a host-driven region, so its handlers should fuse their bodies.
bool fusing();

// FusingScope sets fusing() for one replay and restores it after.
class FusingScope {
 public:
  explicit FusingScope(bool on);
  ~FusingScope();

 private:
  bool prev_;
};

// region_kind returns the registered kind, or nullptr.
const RegionKind* region_kind(int kind);

struct RegionRegistrar {
  RegionRegistrar(int kind, RegionKind row);
};

// blame_transform finds the instruction of a body that MLX cannot
// differentiate, to name it in the error: it rebuilds the body on inputs
// and tries vjp (forward: jvp) of each instruction that depends on the
// inputs marked in diff, returning "instruction %k (name): MLX's message"
// for the first that throws (in the order the transform visits them), or
// "" if none does.
std::string blame_transform(const Body& b, const std::vector<mx::array>& inputs,
                            const std::vector<bool>& diff, bool forward, mx::Stream s);

}  // namespace emily
