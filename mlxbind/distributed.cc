// distributed.cc: MLX's distributed layer (DESIGN.md decision 14): groups
// and init, and the cores of the distributed family's ops. A group is an
// index into the shim's table; ops carry it as an attribute word, so a
// traced program names its group and replays it like any other attribute.
// The cores check what a backend lacks before MLX sees the op (ring: no
// split or sum_scatter, send/recv to its neighbours only; nccl: no
// send/recv), so the error names the backend and the alternative.
#include <string>
#include <typeinfo>
#include <vector>

#include "cores.hpp"
#include "mlx/distributed/distributed_impl.h"

namespace emily {

namespace {

struct GroupEntry {
  mx::distributed::Group group;
  std::string backend;  // "ring", "nccl", "mpi", "jaccl" or "none" (one process)
};

// Guarded by mlx_mutex, as the stream table is.
std::vector<GroupEntry>& groups() {
  static std::vector<GroupEntry> g;
  return g;
}

// backend_of names the implementation behind g. MLX has no accessor for
// it; the classes are RingGroup, NCCLGroup, MPIGroup, ... in MLX's
// sources, and a one-process world is an empty group.
std::string backend_of(const mx::distributed::Group& g) {
  const auto& raw = g.raw_group();
  if (!raw) return "none";
  std::string n = typeid(*raw).name();
  if (n.find("Ring") != std::string::npos) return "ring";
  if (n.find("NCCL") != std::string::npos) return "nccl";
  if (n.find("MPI") != std::string::npos) return "mpi";
  if (n.find("JACCL") != std::string::npos || n.find("Jaccl") != std::string::npos) return "jaccl";
  return "none";
}

int add_group(mx::distributed::Group g, std::string backend) {
  groups().push_back(GroupEntry{std::move(g), std::move(backend)});
  return static_cast<int>(groups().size()) - 1;
}

const GroupEntry& entry_at(const char* op, int id) {
  auto& g = groups();
  if (id < 0 || id >= static_cast<int>(g.size())) {
    throw std::invalid_argument(std::string(op) + ": unknown group " + std::to_string(id) +
                                "; make groups with distributed.Init, World or Group.Split");
  }
  return g[id];
}

[[noreturn]] void lacks(const char* op, const std::string& backend, const std::string& what,
                        const std::string& instead) {
  // The Go side names group methods itself (distributed.Split): op is
  // empty there.
  std::string prefix = op[0] ? std::string(op) + ": " : std::string();
  throw std::invalid_argument(prefix + "the " + backend + " backend has no " + what + "; " + instead);
}

// peer_check: send and recv need a peer in range and not this rank; ring
// reaches only its two neighbours, NCCL none.
void peer_check(const char* op, const GroupEntry& e, int peer, const char* role) {
  int size = e.group.size(), rank = e.group.rank();
  if (size == 1) {
    throw std::invalid_argument(std::string(op) + ": the group has one process, there is no rank " +
                                std::to_string(peer) + " to " + (op[0] == 'S' ? "send to" : "receive from") +
                                "; run with emily-repl launch -n 2 or more");
  }
  if (peer < 0 || peer >= size || peer == rank) {
    throw std::invalid_argument(std::string(op) + ": " + role + " " + std::to_string(peer) +
                                " is not another rank of the group (rank " + std::to_string(rank) + " of " +
                                std::to_string(size) + "); use 0.." + std::to_string(size - 1) +
                                " other than " + std::to_string(rank));
  }
  if (e.backend == "nccl") {
    lacks(op, "nccl", "send/recv", "use AllGather or AllSum, or the ring or mpi backend");
  }
  if (e.backend == "ring") {
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    if (peer != left && peer != right) {
      throw std::invalid_argument(std::string(op) + ": the ring backend reaches only its neighbours (ranks " +
                                  std::to_string(left) + " and " + std::to_string(right) + " of rank " +
                                  std::to_string(rank) + "), not " + std::to_string(peer) +
                                  "; pass the value along the ring one hop at a time, or use the mpi backend");
    }
  }
}

}  // namespace

mx::distributed::Group group_at(int id) { return entry_at("distributed", id).group; }

mx::array dist_all_sum(const mx::array& x, int group, const mx::Stream& s) {
  return mx::distributed::all_sum(x, entry_at("AllSum", group).group, s);
}

mx::array dist_all_gather(const mx::array& x, int group, const mx::Stream& s) {
  if (x.ndim() == 0) {
    throw std::invalid_argument("AllGather: x is a scalar; it concatenates along axis 0: Reshape it to [1]");
  }
  return mx::distributed::all_gather(x, entry_at("AllGather", group).group, s);
}

mx::array dist_all_max(const mx::array& x, int group, const mx::Stream& s) {
  return mx::distributed::all_max(x, entry_at("AllMax", group).group, s);
}

mx::array dist_all_min(const mx::array& x, int group, const mx::Stream& s) {
  return mx::distributed::all_min(x, entry_at("AllMin", group).group, s);
}

mx::array dist_sum_scatter(const mx::array& x, int group, const mx::Stream& s) {
  const auto& e = entry_at("SumScatter", group);
  if (e.group.size() > 1 && e.backend == "ring") {
    lacks("SumScatter", "ring", "sum_scatter",
          "use AllSum and take this rank's slice of axis 0 (emily.Slice), or the nccl or mpi backend");
  }
  int n = e.group.size();
  if (n > 1 && (x.ndim() == 0 || x.shape(0) % n != 0)) {
    throw std::invalid_argument("SumScatter: axis 0 of x (" + std::string(x.ndim() == 0 ? "a scalar" : std::to_string(x.shape(0))) +
                                ") must split evenly over the group's " + std::to_string(n) +
                                " ranks; pad or Reshape x");
  }
  return mx::distributed::sum_scatter(x, e.group, s);
}

mx::array dist_send(const mx::array& x, int dst, int group, const mx::Stream& s) {
  const auto& e = entry_at("Send", group);
  peer_check("Send", e, dst, "dst");
  return mx::distributed::send(x, dst, e.group, s);
}

mx::array dist_recv(const mx::Shape& shape, mx::Dtype dtype, int src, int group, const mx::Stream& s) {
  const auto& e = entry_at("Recv", group);
  peer_check("Recv", e, src, "src");
  return mx::distributed::recv(shape, dtype, src, e.group, s);
}

}  // namespace emily

extern "C" {

int emily_dist_available(const char* backend) {
  try {
    std::lock_guard<std::mutex> lock(emily::mlx_mutex());
    return mx::distributed::is_available(std::string(backend)) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

int emily_dist_init(int* out, const char* backend, int strict, char** err) {
  return emily::guarded(err, [&] {
    auto g = mx::distributed::init(strict != 0, std::string(backend));
    *out = emily::add_group(g, emily::backend_of(g));
  });
}

int emily_dist_group_info(int id, int* rank, int* size, const char** backend, char** err) {
  return emily::guarded(err, [&] {
    const auto& e = emily::entry_at("distributed.Group", id);
    *rank = e.group.rank();
    *size = e.group.size();
    *backend = e.backend.c_str();  // entries are never removed: the string lives on
  });
}

int emily_dist_split(int* out, int id, int color, int key, char** err) {
  return emily::guarded(err, [&] {
    const auto& e = emily::entry_at("distributed.Split", id);
    if (e.group.size() == 1) {
      // A one-process group splits into itself, whatever MLX's empty
      // group would say: the color and key choose among one rank.
      *out = id;
      return;
    }
    if (e.backend == "ring") {
      emily::lacks("", "ring", "split", "use the nccl or mpi backend (emily-repl launch --backend mpi)");
    }
    auto g = e.group.split(color, key);
    std::string bk = e.backend;
    *out = emily::add_group(g, bk);
  });
}

}  // extern "C"
