// chain.cc: the controlled experiment behind ARCHITECTURE.md's "Memory"
// section. It runs the bench's 100-op chain (add x+x, multiply by a 0.5
// constant, tanh; repeated) on 1M float32 straight through MLX's C++ API,
// the way MLX's Python API does and the way Emily's lanes did, and prints
// the median time per call and the minor page faults per call of each.
//
//   g++ -std=c++20 -O2 -I.deps/mlx/mlx/include bench/control/chain.cc \
//     -L.deps/mlx/mlx/lib -lmlx -Wl,-rpath,$PWD/.deps/mlx/mlx/lib -o /tmp/chain
//   /tmp/chain [cpu|gpu] [elements] [calls] [rounds]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "mlx/mlx.h"

namespace mx = mlx::core;

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

mx::array step(int i, const mx::array& x, const mx::array& half, mx::Stream s) {
  switch (i % 3) {
    case 0: return mx::add(x, x, s);
    case 1: return mx::multiply(x, half, s);
    default: return mx::tanh(x, s);
  }
}

// fresh: as python_like, but every multiply gets a new scalar array, as
// `x * 0.5` makes one in Python.
mx::array fresh_scalar(const mx::array& x0, const mx::array&, mx::Stream s) {
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) {
    if (i % 3 == 1) {
      x = mx::multiply(x, mx::array(0.5f), s);
    } else {
      x = step(i, x, x, s);
    }
  }
  return x;
}

// per_use: every multiply gets its own scalar, made once and reused by
// every call (what a replay could do at construction).
std::vector<mx::array> per_use_scalars;
mx::array per_use(const mx::array& x0, const mx::array&, mx::Stream s) {
  if (per_use_scalars.empty()) {
    for (int i = 0; i < 100; ++i) per_use_scalars.push_back(mx::array(0.5f));
    mx::eval(per_use_scalars);
  }
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) {
    x = i % 3 == 1 ? mx::multiply(x, per_use_scalars[i], s) : step(i, x, x, s);
  }
  return x;
}

// python: each intermediate is dropped as soon as the next op holds it (as
// `x = x + x` does in Python), so only the graph references it.
mx::array python_like(const mx::array& x0, const mx::array& half, mx::Stream s) {
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) x = step(i, x, half, s);
  return x;
}

// held: every intermediate stays referenced until after the eval, as the
// evaluator lane's Go handles and an eager chain's unreleased Go tensors
// keep them. MLX cannot donate a buffer that someone else still holds.
std::vector<mx::array> held_slots;
mx::array held(const mx::array& x0, const mx::array& half, mx::Stream s) {
  held_slots.clear();
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) {
    x = step(i, x, half, s);
    held_slots.push_back(x);
  }
  return x;
}

// device_scalar makes a one-element float32 0.5 whose buffer is device
// memory: MLX's CUDA allocator puts every buffer of 8 bytes or less (and
// every array made from host data, like mx::array(0.5f)) in managed memory,
// which a kernel reads across the bus; a view into a 64-byte array computed
// on the GPU is read from the card's own memory.
mx::array device_scalar(mx::Stream s) {
  mx::array big = mx::full({16}, 0.5f, mx::float32, s);
  mx::array one = mx::reshape(mx::slice(big, {0}, {1}, s), {}, s);
  mx::eval(one);
  return one;
}

std::vector<mx::array> device_scalars;

// device_shared: every multiply reads one device-resident scalar.
mx::array device_shared(const mx::array& x0, const mx::array&, mx::Stream s) {
  if (device_scalars.empty()) device_scalars.push_back(device_scalar(s));
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) x = step(i, x, device_scalars[0], s);
  return x;
}

// device_per_use: every multiply reads its own device-resident scalar,
// made once.
std::vector<mx::array> device_per_use_scalars;
mx::array device_per_use(const mx::array& x0, const mx::array&, mx::Stream s) {
  if (device_per_use_scalars.empty()) {
    for (int i = 0; i < 100; ++i) device_per_use_scalars.push_back(device_scalar(s));
  }
  mx::array x = x0;
  for (int i = 0; i < 100; ++i) {
    x = i % 3 == 1 ? mx::multiply(x, device_per_use_scalars[i], s) : step(i, x, x, s);
  }
  return x;
}

using ChainFn = std::function<mx::array(const mx::array&, const mx::array&, mx::Stream)>;

struct Variant {
  const char* name;
  bool default_stream;
  bool keep_outputs;
  ChainFn f;
  std::vector<double> times;  // every timed call, over all rounds
  std::vector<double> round_medians;
  long faults = 0;
  int calls = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// run_rounds times the variants interleaved: each round runs every
// variant for `calls` calls (after one warm-up call) in turn, so that the
// machine's drift and the allocator's history weigh on all of them alike,
// and prints each variant's median over all calls and the range of its
// per-round medians.
void run_rounds(std::vector<Variant>& vs, mx::Stream def, mx::Stream unsafe, int n, int calls,
                int rounds) {
  for (int r = 0; r < rounds; ++r) {
    for (auto& v : vs) {
      mx::Stream s = v.default_stream ? def : unsafe;
      mx::array x0 = mx::ones({n}, mx::float32, s);
      mx::array half = mx::array(0.5f);
      mx::eval(x0, half);
      std::vector<mx::array> kept;
      std::vector<double> round;
      long f0 = minor_faults();
      for (int c = -1; c < calls; ++c) {
        auto t0 = std::chrono::steady_clock::now();
        mx::array y = v.f(x0, half, s);
        mx::eval(y);
        held_slots.clear();
        auto t1 = std::chrono::steady_clock::now();
        if (v.keep_outputs) kept.push_back(y);  // a Go handle not yet collected
        if (c >= 0) round.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      v.faults += minor_faults() - f0;
      v.calls += calls + 1;
      v.round_medians.push_back(median(round));
      v.times.insert(v.times.end(), round.begin(), round.end());
    }
  }
  for (auto& v : vs) {
    auto rm = v.round_medians;
    std::sort(rm.begin(), rm.end());
    std::printf("%-48s %10.1f us  [rounds %.1f-%.1f]  %6.0f faults/call\n", v.name, median(v.times),
                rm.front(), rm.back(), double(v.faults) / v.calls);
  }
}

// floor times one add on 4 floats, its evaluation and a copy of the result
// to host memory: the per-call floor of eager code. extra adds what Emily's
// binding does after a readback (reading MLX's memory counters).
void floor(const char* name, mx::Stream s, int calls, bool counters, int threads = 1) {
  mx::array a = mx::ones({4}, mx::float32, s);
  mx::eval(a);
  float host[4];
  std::vector<double> times;
  auto once = [&] {
    if (calls < 0) return;  // the thread-start baseline: no work
    mx::array y = mx::add(a, a, s);
    y.eval();
    std::memcpy(host, y.data<float>(), sizeof host);
    if (counters) {
      volatile size_t m = mx::get_active_memory() + mx::get_peak_memory() + mx::get_cache_memory();
      (void)m;
    }
  };
  int n = calls < 0 ? -calls : calls;
  for (int c = -3; c < n; ++c) {
    auto t0 = std::chrono::steady_clock::now();
    if (threads > 1) {
      // Each call from the next of a few OS threads, as a goroutine moves
      // between threads across cgo calls (the stream is thread-unsafe and
      // used by one thread at a time).
      std::thread t(once);
      t.join();
    } else {
      once();
    }
    auto t1 = std::chrono::steady_clock::now();
    if (c >= 0) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("%-44s %10.1f us\n", name, times[times.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  bool gpu = argc > 1 && std::strcmp(argv[1], "gpu") == 0;
  int n = argc > 2 ? std::atoi(argv[2]) : 1 << 20;
  int calls = argc > 3 ? std::atoi(argv[3]) : 20;
  mx::Device d = gpu ? mx::Device::gpu : mx::Device::cpu;
  mx::set_default_device(d);
  std::printf("MLX %s, %s, %d float32, %d calls\n", mx::version(), gpu ? "gpu" : "cpu", n, calls);
  mx::Stream def = mx::default_stream(d);
  mx::Stream unsafe = mx::new_thread_unsafe_stream(d);
  int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  std::vector<Variant> vs = {
      {"default stream, released (MLX Python)", true, false, python_like},
      {"thread-unsafe stream, released", false, false, python_like},
      {"thread-unsafe stream, intermediates held", false, false, held},
      {"thread-unsafe stream, released, outputs kept", false, true, python_like},
      {"default stream, released, fresh scalars", true, false, fresh_scalar},
      {"thread-unsafe, released, fresh scalars", false, false, fresh_scalar},
      {"thread-unsafe, released, per-use scalars", false, false, per_use},
      {"thread-unsafe, released, device scalar", false, false, device_shared},
      {"thread-unsafe, released, per-use device scalars", false, false, device_per_use},
  };
  run_rounds(vs, def, unsafe, n, calls / rounds > 0 ? calls / rounds : 1, rounds);
  floor("floor: default stream, add+eval+copy", def, 200, false);
  floor("floor: thread-unsafe stream, add+eval+copy", unsafe, 200, false);
  floor("floor: thread-unsafe, + memory counters", unsafe, 200, true);
  floor("floor: thread-unsafe, each call a new thread", unsafe, 200, false, 2);
  floor("  (baseline: starting a thread, no work)", unsafe, -200, false, 2);
  mx::set_memory_limit(16ull << 30);
  floor("floor: thread-unsafe, + 16 GB memory limit", unsafe, 200, true);
  return 0;
}
