// random.cc: the hand-written core of KeySplit: MLX splits a key into one
// (num, 2) array; the Go API returns num separate keys.
#include <stdexcept>

#include "cores.hpp"

namespace emily {

std::vector<mx::array> key_split(const mx::array& key, int num, const mx::Stream& s) {
  if (num < 1) throw std::invalid_argument("KeySplit: num is " + std::to_string(num) + "; ask for at least 1 key");
  auto keys = mx::random::split(key, num, s);
  std::vector<mx::array> out;
  out.reserve(num);
  for (int i = 0; i < num; i++) {
    out.push_back(mx::reshape(mx::slice(keys, {i, 0}, {i + 1, 2}, s), {2}, s));
  }
  return out;
}

// categorical_n draws num samples per distribution into a new last axis.
// MLX's own num_samples form builds one op on the calling thread's default
// stream (not s), so a result evaluated after the goroutine moved to
// another OS thread failed ("There is no Stream(cpu, 2) in current
// thread"); this is the same draw through MLX's shape form, every op on s.
mx::array categorical_n(const mx::array& logits, int axis, int num, const mx::array& key, const mx::Stream& s) {
  int nd = static_cast<int>(logits.ndim());
  if (axis < -nd || axis >= nd) {
    throw std::invalid_argument("CategoricalN: axis " + std::to_string(axis) + " is out of range for logits of rank " +
                                std::to_string(nd));
  }
  if (num < 1) throw std::invalid_argument("CategoricalN: num is " + std::to_string(num) + "; ask for at least 1 sample");
  if (axis < 0) axis += nd;
  auto expanded = mx::expand_dims(logits, -1, s);  // (…, 1): the samples axis
  mx::Shape shape = expanded.shape();
  shape.erase(shape.begin() + axis);
  shape.back() = num;
  return mx::random::categorical(expanded, axis, shape, key, s);
}

}  // namespace emily
