// reduce.cc: helpers of the reduce family's spec rows.
#include <stdexcept>
#include <string>

#include "cores.hpp"

namespace emily {

// one_axis reports whether an Argmin/Argmax-style op got one axis (false:
// none, the flattened array); MLX reduces these over a single axis only.
bool one_axis(const char* op, const std::vector<int>& axes) {
  if (axes.size() > 1) {
    throw std::invalid_argument(std::string(op) + " takes at most one axis, got " + std::to_string(axes.size()));
  }
  return axes.size() == 1;
}

}  // namespace emily
