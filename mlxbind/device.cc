// device.cc: the MLX lock, devices, streams and memory statistics.
#include "shim_internal.hpp"

namespace emily {

std::mutex& mlx_mutex() {
  static std::mutex m;
  return m;
}

namespace {
// Streams made by emily_stream_new; an index into this table is the
// stream handle Go holds. Guarded by mlx_mutex.
std::vector<mx::Stream>& streams() {
  static std::vector<mx::Stream> s;
  return s;
}

mx::Device device_of(int device) {
  return device == EMILY_GPU ? mx::Device(mx::Device::gpu)
                             : mx::Device(mx::Device::cpu);
}
}  // namespace

mx::Stream stream_at(int index) {
  auto& s = streams();
  if (index < 0 || index >= static_cast<int>(s.size())) {
    throw std::invalid_argument("unknown stream " + std::to_string(index));
  }
  return s[index];
}

mx::Stream cpu_stream() {
  // Made on first use, under the MLX lock like every other stream.
  static mx::Stream s = mx::new_thread_unsafe_stream(mx::Device(mx::Device::cpu));
  return s;
}

}  // namespace emily

extern "C" {

int emily_device_available(int device) {
  try {
    return mx::is_available(emily::device_of(device)) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

int emily_stream_new(int* out, int device, char** err) {
  return emily::guarded(err, [&] {
    mx::Device d = emily::device_of(device);
    if (!mx::is_available(d)) {
      throw std::invalid_argument(
          "device gpu is not available in this MLX build (use device cpu)");
    }
    emily::streams().push_back(mx::new_thread_unsafe_stream(d));
    *out = static_cast<int>(emily::streams().size()) - 1;
  });
}

int emily_synchronize(int stream, char** err) {
  return emily::guarded(err, [&] { mx::synchronize(emily::stream_at(stream)); });
}

int emily_memory_stats(size_t* active, size_t* peak, size_t* cache, char** err) {
  return emily::guarded(err, [&] {
    *active = mx::get_active_memory();
    *peak = mx::get_peak_memory();
    *cache = mx::get_cache_memory();
  });
}

int emily_clear_cache(char** err) {
  return emily::guarded(err, [&] { mx::clear_cache(); });
}

int emily_set_memory_limit(size_t* previous, size_t limit, char** err) {
  return emily::guarded(err, [&] { *previous = mx::set_memory_limit(limit); });
}

int emily_memory_limit(size_t* limit, char** err) {
  return emily::guarded(err, [&] { *limit = mx::get_memory_limit(); });
}

int emily_reset_peak_memory(char** err) {
  return emily::guarded(err, [&] { mx::reset_peak_memory(); });
}

const char* emily_mlx_version(void) { return mx::version(); }

}  // extern "C"
