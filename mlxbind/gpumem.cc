// gpumem.cc: where GPU data lives. Two places where MLX's CUDA allocator
// puts a buffer in managed memory cost Emily time: reading a result back,
// and the constants a replay reads on every call.
//
// Readback. MLX's CUDA backend reads a device buffer on the host by moving it:
// Buffer::raw_ptr calls move_to_unified_memory, which allocates the buffer
// again with cudaMallocManaged, copies it there synchronously and frees
// the device copy. cudaMallocManaged is the dear part (100-300 µs on an
// H200 against ~20 µs for the op and its eval). MLX Python rarely pays it:
// it drops each result at once, MLX's buffer cache recycles the moved
// (managed) buffer, and the next result of that size lands in it already.
// Whether a result lands in a moved buffer depends on the cache's history
// (it hands out the oldest buffer of a size first), so a Go program that
// keeps its results, or whose earlier work left device buffers of that size
// in the cache, paid the allocation on nearly every readback (BENCHMARKS.md,
// "Readback and the small-readback floor").
//
// read_device_bytes copies a device buffer into the caller's memory with
// the CUDA driver's cuMemcpyDtoH (through a pinned staging buffer) and
// leaves the buffer where it is. It uses no CUDA header and links
// nothing: the driver (libcuda.so.1) is already in the process when MLX's
// CUDA backend is, and is looked up with dlopen(RTLD_NOLOAD). Anything unexpected (no driver, a CPU build, a
// buffer that does not look like MLX's CudaBuffer, a driver error) returns
// false and the caller reads through MLX as before.
//
// Constants. The allocator puts every array made from host data
// (mx::array(0.5f), a Go constant) and every buffer of 8 bytes or less in
// managed memory, where a kernel reads it across the bus. A replay reads
// the same constants on every call, so on a GPU stream it reads copies
// made once in device memory instead (device_resident); values and so
// results are unchanged.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "shim_internal.hpp"

// The layout of mlx::core::cu::CudaBuffer (mlx/backend/cuda/allocator.h),
// which the CUDA backend's Buffer::ptr() points to; MLX's own gpu_ptr reads
// it the same way (data + the array's offset). Checked against MLX 0.32.
static_assert(MLX_VERSION_MAJOR == 0 && MLX_VERSION_MINOR == 32,
              "gpumem.cc mirrors MLX 0.32's CudaBuffer: check "
              "mlx/backend/cuda/allocator.h before changing MLX's version");

namespace emily {
namespace {

struct CudaBufferLayout {
  void* data;
  size_t size;
  int device;  // -1: managed (host-readable) memory
};

// The driver API entry points we need, as plain function pointers.
using CUresult = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, int) = nullptr;
  CUresult (*mem_alloc_host)(void**, size_t) = nullptr;
  bool ok = false;
};

const Driver& driver() {
  static Driver d = [] {
    Driver d;
    if (!mx::is_available(mx::Device(mx::Device::gpu))) return d;
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) return d;  // not MLX's CUDA backend (or no GPU)
    d.memcpy_dtoh = reinterpret_cast<decltype(d.memcpy_dtoh)>(dlsym(lib, "cuMemcpyDtoH_v2"));
    d.ctx_get_current = reinterpret_cast<decltype(d.ctx_get_current)>(dlsym(lib, "cuCtxGetCurrent"));
    d.ctx_set_current = reinterpret_cast<decltype(d.ctx_set_current)>(dlsym(lib, "cuCtxSetCurrent"));
    d.primary_ctx_retain =
        reinterpret_cast<decltype(d.primary_ctx_retain)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
    d.mem_alloc_host = reinterpret_cast<decltype(d.mem_alloc_host)>(dlsym(lib, "cuMemAllocHost_v2"));
    d.ok = d.memcpy_dtoh && d.ctx_get_current && d.ctx_set_current && d.primary_ctx_retain &&
           d.mem_alloc_host;
    return d;
  }();
  return d;
}

// Largest readback, in bytes, that takes the direct path; by default all
// do: on the H200 the direct copy beat MLX's move at every size measured,
// 4 floats to 16 MB (BENCHMARKS.md). Set by emily_set_direct_read_max,
// for the bench's comparison.
size_t direct_read_max = SIZE_MAX;

// The copy goes through one pinned (page-locked) host buffer, made on the
// first direct read and kept: a copy from the device into pageable memory
// (Go's) makes the driver stage it itself, which costs ~10 µs more for a
// few bytes and half the bandwidth for megabytes. Larger reads go through
// it a chunk at a time.
constexpr size_t kStagingBytes = 1 << 20;
void* staging = nullptr;

}  // namespace

// read_device_bytes copies x's nbytes (x evaluated and row-contiguous) into
// dst if x lives in device memory on MLX's CUDA backend; false otherwise.
// Called under the MLX lock, after x's evaluation has completed.
bool read_device_bytes(const mx::array& x, void* dst, size_t nbytes) {
  if (nbytes == 0 || nbytes > direct_read_max) return false;
  const Driver& d = driver();
  if (!d.ok) return false;
  auto* buf = static_cast<const CudaBufferLayout*>(x.buffer().ptr());
  if (buf == nullptr || buf->data == nullptr || buf->device < 0) return false;
  if (x.offset() < 0 || size_t(x.offset()) + nbytes > buf->size) return false;
  // The thread needs the device's context current; MLX's CUDA calls made
  // it current on the threads that ran them, but Go may call from another.
  CUcontext ctx = nullptr;
  if (d.ctx_get_current(&ctx) != 0) return false;
  if (ctx == nullptr) {
    if (d.primary_ctx_retain(&ctx, buf->device) != 0 || d.ctx_set_current(ctx) != 0) return false;
  }
  if (staging == nullptr && d.mem_alloc_host(&staging, kStagingBytes) != 0) {
    staging = nullptr;
    return false;
  }
  auto src = reinterpret_cast<CUdeviceptr>(static_cast<const char*>(buf->data) + x.offset());
  auto* out = static_cast<char*>(dst);
  for (size_t done = 0; done < nbytes; done += kStagingBytes) {
    size_t n = std::min(kStagingBytes, nbytes - done);
    if (d.memcpy_dtoh(staging, src + done, n) != 0) return false;
    std::memcpy(out + done, staging, n);
  }
  return true;
}

// Atomic: emily_device_scalars reads it without the MLX lock.
std::atomic<bool> device_scalars_on{true};

bool device_scalars() { return device_scalars_on.load(); }

mx::array device_resident(const mx::array& c, mx::Stream s) {
  // 64 bytes, above the allocator's 8-byte managed pool for every dtype;
  // the constant is a view of its first element.
  int n = std::max<int>(1, 64 / static_cast<int>(c.itemsize()));
  mx::array big = mx::full({n}, mx::reshape(c, {}, s), s);
  mx::array one = mx::reshape(mx::slice(big, {0}, {1}, s), c.shape(), s);
  mx::eval(one);
  return one;
}

}  // namespace emily

extern "C" {

int emily_array_device_resident(emily_array* out, emily_array a, int stream, char** err) {
  return emily::guarded(err, [&] {
    mx::Stream s = emily::stream_at(stream);
    *out = nullptr;  // nothing to do: the caller keeps a
    if (s.device == mx::Device::gpu && emily::device_scalars() && a->a.size() == 1) {
      *out = emily::wrap(emily::device_resident(a->a, s));
    }
  });
}

int emily_device_scalars(void) { return emily::device_scalars_on.load() ? 1 : 0; }

int emily_set_device_scalars(int* previous, int on, char** err) {
  return emily::guarded(err, [&] {
    *previous = emily::device_scalars_on.exchange(on != 0) ? 1 : 0;
  });
}

int emily_set_direct_read_max(size_t* previous, size_t max_bytes, char** err) {
  return emily::guarded(err, [&] {
    *previous = emily::direct_read_max;
    emily::direct_read_max = max_bytes;
  });
}

int emily_direct_read_available(void) {
  try {
    std::lock_guard<std::mutex> lock(emily::mlx_mutex());
    return emily::driver().ok ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
