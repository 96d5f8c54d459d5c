// autodiff.cc: the region kinds of autodiff (DESIGN.md decision 8). Each
// applies one of MLX's own transforms to the replay of its body, so every
// primitive's derivative is MLX's and nothing is derived in Go. The body's
// inputs are the function's arguments, then what it captured.
#include <algorithm>
#include <stdexcept>

#include "program.hpp"

namespace emily {
namespace {

// The kinds' numbers are ir.RegionKind's.
enum : int { kValueAndGrad = 1, kVJP = 2, kJVP = 3 };

const Body& one_body(const Region& r) {
  if (r.bodies.size() != 1) {
    throw std::invalid_argument("takes one body, got " + std::to_string(r.bodies.size()));
  }
  return r.bodies[0];
}

// rethrow names the instruction MLX could not differentiate, if it can
// find it, and keeps MLX's message.
[[noreturn]] void rethrow(const char* what, const std::exception& e, const Body& b,
                          const std::vector<mx::array>& inputs, const std::vector<bool>& diff,
                          bool forward, mx::Stream s) {
  std::string blame;
  try {
    blame = blame_transform(b, inputs, diff, forward, s);
  } catch (const std::exception&) {
    // The probe itself failed: report MLX's own message.
  }
  if (!blame.empty()) {
    throw std::invalid_argument(std::string(what) + ": MLX cannot differentiate " + blame);
  }
  throw std::invalid_argument(std::string(what) + ": " + e.what());
}

// value_and_grad: params are the argnums (in the caller's order).
// Operands: the arguments, then captures. Results: the body's outputs,
// then one gradient per argnum of the first output, which must be 0-d.
int check_value_and_grad(const Region& r, int n_operands) {
  const Body& b = one_body(r);
  if (b.n_args > n_operands) throw std::invalid_argument("more arguments than operands");
  if (r.params.empty()) throw std::invalid_argument("no argnums");
  std::vector<int64_t> seen(r.params);
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) {
    throw std::invalid_argument("an argnum appears twice");
  }
  if (seen.front() < 0 || seen.back() >= b.n_args) {
    throw std::invalid_argument("argnum out of range for " + std::to_string(b.n_args) +
                                " arguments");
  }
  return b.n_outputs + static_cast<int>(r.params.size());
}

std::vector<mx::array> run_value_and_grad(const Region& r, const std::vector<mx::array>& ops,
                                          mx::Stream s) {
  const Body& b = r.bodies[0];
  std::vector<mx::array> primals(ops.begin(), ops.begin() + b.n_args);
  std::vector<int> argnums(r.params.begin(), r.params.end());
  auto fun = [&](const std::vector<mx::array>& xs) { return b.call(xs, ops, s); };
  try {
    auto [values, grads] = mx::value_and_grad(fun, argnums)(primals);
    // MLX returns the gradients in ascending argnum order.
    std::vector<int> sorted(argnums);
    std::sort(sorted.begin(), sorted.end());
    std::vector<mx::array> out(values);
    for (int a : argnums) {
      out.push_back(grads[std::lower_bound(sorted.begin(), sorted.end(), a) - sorted.begin()]);
    }
    return out;
  } catch (const std::exception& e) {
    std::vector<bool> diff(b.n_args, false);
    for (int a : argnums) diff[a] = true;
    rethrow("value_and_grad", e, b, b.inputs(primals, ops), diff, false, s);
  }
}

// vjp: operands are the primals (the body's arguments), one cotangent per
// body output, then captures. Results: the outputs, then one vector-
// Jacobian product per primal.
int check_vjp(const Region& r, int n_operands) {
  const Body& b = one_body(r);
  if (b.n_args + b.n_outputs > n_operands) {
    throw std::invalid_argument("needs a primal per argument and a cotangent per output");
  }
  return b.n_outputs + b.n_args;
}

std::vector<mx::array> run_vjp(const Region& r, const std::vector<mx::array>& ops, mx::Stream s) {
  const Body& b = r.bodies[0];
  std::vector<mx::array> primals(ops.begin(), ops.begin() + b.n_args);
  std::vector<mx::array> cotangents(ops.begin() + b.n_args,
                                    ops.begin() + b.n_args + b.n_outputs);
  auto fun = [&](const std::vector<mx::array>& xs) { return b.call(xs, ops, s); };
  try {
    auto [outs, vjps] = mx::vjp(fun, primals, cotangents);
    outs.insert(outs.end(), vjps.begin(), vjps.end());
    return outs;
  } catch (const std::exception& e) {
    rethrow("vjp", e, b, b.inputs(primals, ops), std::vector<bool>(b.n_args, true), false, s);
  }
}

// jvp: operands are the primals, one tangent per primal, then captures.
// Results: the outputs, then one Jacobian-vector product per output.
int check_jvp(const Region& r, int n_operands) {
  const Body& b = one_body(r);
  if (2 * b.n_args > n_operands) {
    throw std::invalid_argument("needs a primal and a tangent per argument");
  }
  return 2 * b.n_outputs;
}

std::vector<mx::array> run_jvp(const Region& r, const std::vector<mx::array>& ops, mx::Stream s) {
  const Body& b = r.bodies[0];
  std::vector<mx::array> primals(ops.begin(), ops.begin() + b.n_args);
  std::vector<mx::array> tangents(ops.begin() + b.n_args, ops.begin() + 2 * b.n_args);
  auto fun = [&](const std::vector<mx::array>& xs) { return b.call(xs, ops, s); };
  try {
    auto [outs, jvps] = mx::jvp(fun, primals, tangents);
    outs.insert(outs.end(), jvps.begin(), jvps.end());
    return outs;
  } catch (const std::exception& e) {
    rethrow("jvp", e, b, b.inputs(primals, ops), std::vector<bool>(b.n_args, true), true, s);
  }
}

const RegionRegistrar value_and_grad_kind(kValueAndGrad,
                                          {"value_and_grad", check_value_and_grad,
                                           run_value_and_grad});
const RegionRegistrar vjp_kind(kVJP, {"vjp", check_vjp, run_vjp});
const RegionRegistrar jvp_kind(kJVP, {"jvp", check_jvp, run_jvp});

}  // namespace
}  // namespace emily
