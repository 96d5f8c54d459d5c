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

}  // namespace emily
