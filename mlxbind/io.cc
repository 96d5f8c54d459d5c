// io.cc: file formats through MLX's own readers and writers (mlx/io.h):
// .npy from files and from memory (the members of .npz, which MLX has no
// entry for; Go's archive/zip holds them), .safetensors and .gguf.
#include <algorithm>
#include <cerrno>
#include <optional>

#include <unistd.h>
#include <fcntl.h>

#include "io.h"
#include "shim_internal.hpp"

struct emily_io_s {
  struct Meta {
    std::string key;
    int kind;
    std::vector<std::string> strings;
    std::optional<mx::array> array;
  };
  std::vector<std::string> names;
  std::vector<mx::array> arrays;
  std::vector<Meta> meta;
};

namespace emily {

namespace {

// MemoryReader serves .npy bytes that Go read out of a zip archive. It owns
// a copy: MLX's Load primitive may read after the call that made it.
class MemoryReader : public mx::io::Reader {
 public:
  MemoryReader(std::string data, std::string label)
      : data_(std::move(data)), label_(std::move(label)) {}
  bool is_open() const override { return true; }
  bool good() const override { return true; }
  size_t tell() override { return pos_; }
  void seek(int64_t off, std::ios_base::seekdir way) override {
    int64_t base = way == std::ios_base::beg   ? 0
                   : way == std::ios_base::end ? static_cast<int64_t>(data_.size())
                                               : static_cast<int64_t>(pos_);
    int64_t to = base + off;
    if (to < 0 || to > static_cast<int64_t>(data_.size())) {
      throw std::runtime_error("[read] seek outside " + label_);
    }
    pos_ = static_cast<size_t>(to);
  }
  void read(char* data, size_t n) override {
    read(data, n, pos_);
    pos_ += n;
  }
  void read(char* data, size_t n, size_t offset) override {
    if (offset > data_.size() || n > data_.size() - offset) {
      throw std::runtime_error("[read] " + label_ + " is truncated: " + std::to_string(n) +
                               " bytes wanted at offset " + std::to_string(offset) +
                               ", it has " + std::to_string(data_.size()));
    }
    std::memcpy(data, data_.data() + offset, n);
  }
  std::string label() const override { return label_; }

 private:
  std::string data_;
  std::string label_;
  size_t pos_ = 0;
};

}  // namespace

// A Source is where checked spans are read from: a file (pread) or bytes.
class Source {
 public:
  virtual ~Source() = default;
  virtual void read_at(char* data, size_t n, size_t offset, const std::string& label) = 0;
};

class FileSource : public Source {
 public:
  explicit FileSource(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)), path_(path) {
    if (fd_ < 0) throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
  }
  ~FileSource() override { ::close(fd_); }
  void read_at(char* data, size_t n, size_t offset, const std::string& label) override {
    while (n > 0) {
      ssize_t got = ::pread(fd_, data, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        throw std::runtime_error("[load] " + label + ": " +
                                 (got == 0 ? std::string("the file ended early (it changed while loading?)")
                                           : std::string(std::strerror(errno))));
      }
      data += got;
      n -= static_cast<size_t>(got);
      offset += static_cast<size_t>(got);
    }
  }

 private:
  int fd_;
  std::string path_;
};

class BytesSource : public Source {
 public:
  explicit BytesSource(std::string b) : b_(std::move(b)) {}
  void read_at(char* data, size_t n, size_t offset, const std::string& label) override {
    if (offset > b_.size() || n > b_.size() - offset) {
      throw std::runtime_error("[load] " + label + " is truncated");
    }
    std::memcpy(data, b_.data() + offset, n);
  }

 private:
  std::string b_;
};

// npy_header writes the .npy preamble and header MLX's reader parses: it
// takes the dtype and the Fortran flag from fixed offsets, so only this
// exact layout (the one MLX and NumPy write) is safe to hand it. Go has
// parsed the file's own header, whatever its layout.
std::string npy_header(mx::Dtype dt, bool swap, bool fortran, const std::vector<int>& shape) {
  std::string kind;
  switch (dt) {
    case mx::bool_: kind = "b1"; break;
    case mx::uint8: kind = "u1"; break;
    case mx::uint16: kind = "u2"; break;
    case mx::uint32: kind = "u4"; break;
    case mx::uint64: kind = "u8"; break;
    case mx::int8: kind = "i1"; break;
    case mx::int16: kind = "i2"; break;
    case mx::int32: kind = "i4"; break;
    case mx::int64: kind = "i8"; break;
    case mx::float16: kind = "f2"; break;
    case mx::float32: kind = "f4"; break;
    case mx::float64: kind = "f8"; break;
    case mx::bfloat16: kind = "V2"; break;
    case mx::complex64: kind = "c8"; break;
    default: throw std::invalid_argument("[load] no .npy dtype for this span");
  }
  char order = dt.size() == 1 ? '|' : (swap ? '>' : '<');
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) dims += ", ";
    dims += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dims += ",";
  std::string h = "{'descr': '" + std::string(1, order) + kind + "', 'fortran_order': " +
                  (fortran ? "True" : "False") + ", 'shape': (" + dims + "), }";
  size_t total = 8 + 4 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string pre("\x93NUMPY\x02\x00", 8);
  uint32_t len = static_cast<uint32_t>(h.size());
  pre.append(reinterpret_cast<const char*>(&len), 4);  // little-endian hosts only, as MLX
  return pre + h;
}

// SpanReader presents one checked span as a .npy file to MLX's reader:
// the canonical header above, then the span's bytes from the source.
class SpanReader : public mx::io::Reader {
 public:
  SpanReader(std::string header, std::shared_ptr<Source> src, size_t base, size_t bytes, std::string label)
      : h_(std::move(header)), src_(std::move(src)), base_(base), bytes_(bytes), label_(std::move(label)) {}
  bool is_open() const override { return true; }
  bool good() const override { return true; }
  size_t tell() override { return pos_; }
  void seek(int64_t off, std::ios_base::seekdir way) override {
    int64_t size = static_cast<int64_t>(h_.size() + bytes_);
    int64_t base = way == std::ios_base::beg ? 0 : way == std::ios_base::end ? size : static_cast<int64_t>(pos_);
    if (base + off < 0 || base + off > size) throw std::runtime_error("[read] seek outside " + label_);
    pos_ = static_cast<size_t>(base + off);
  }
  void read(char* data, size_t n) override {
    read(data, n, pos_);
    pos_ += n;
  }
  void read(char* data, size_t n, size_t offset) override {
    if (offset > h_.size() + bytes_ || n > h_.size() + bytes_ - offset) {
      throw std::runtime_error("[read] " + label_ + ": read past the checked span");
    }
    if (offset < h_.size()) {
      size_t k = std::min(n, h_.size() - offset);
      std::memcpy(data, h_.data() + offset, k);
      data += k;
      n -= k;
      offset += k;
    }
    if (n > 0) src_->read_at(data, n, base_ + (offset - h_.size()), label_);
  }
  std::string label() const override { return label_; }

 private:
  std::string h_;
  std::shared_ptr<Source> src_;
  size_t base_, bytes_;
  std::string label_;
  size_t pos_ = 0;
};

namespace {

// MemoryWriter collects a .npy member before Go zips it.
class MemoryWriter : public mx::io::Writer {
 public:
  bool is_open() const override { return true; }
  bool good() const override { return true; }
  size_t tell() override { return pos_; }
  void seek(int64_t off, std::ios_base::seekdir way) override {
    int64_t base = way == std::ios_base::beg   ? 0
                   : way == std::ios_base::end ? static_cast<int64_t>(data_.size())
                                               : static_cast<int64_t>(pos_);
    if (base + off < 0) throw std::runtime_error("[write] seek before the start of memory");
    pos_ = static_cast<size_t>(base + off);
  }
  void write(const char* data, size_t n) override {
    if (pos_ + n > data_.size()) data_.resize(pos_ + n);
    std::memcpy(data_.data() + pos_, data, n);
    pos_ += n;
  }
  std::string label() const override { return "memory"; }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
  size_t pos_ = 0;
};

// open_writer makes MLX's file writer for exactly path (MLX's path
// overloads append an extension) and opens it only after the arrays are
// evaluated, as FileWriter asks: a lazy input may still read that file.
std::shared_ptr<mx::io::FileWriter> open_writer(const char* path) {
  auto w = std::make_shared<mx::io::FileWriter>(std::string(path));
  w->open();
  if (!w->is_open()) {
    throw std::runtime_error("cannot create " + std::string(path) + ": " + std::strerror(errno));
  }
  return w;
}

std::unordered_map<std::string, mx::array> array_map(const emily_io_s& b) {
  std::unordered_map<std::string, mx::array> m;
  for (size_t i = 0; i < b.names.size(); ++i) {
    if (!m.emplace(b.names[i], b.arrays[i]).second) {
      throw std::invalid_argument("duplicate tensor name \"" + b.names[i] + "\"");
    }
  }
  return m;
}

void eval_all(const std::vector<mx::array>& xs) {
  if (!xs.empty()) mx::eval(xs);
}

}  // namespace

}  // namespace emily

extern "C" {

int emily_io_new(emily_io* out, char** err) {
  return emily::guarded(err, [&] { *out = new emily_io_s{}; });
}

void emily_io_free(emily_io b) {
  char* ignored = nullptr;
  emily::guarded(&ignored, [&] { delete b; });
  free(ignored);
}

int emily_io_add_array(emily_io b, const char* name, size_t len, emily_array a, char** err) {
  return emily::guarded(err, [&] {
    b->names.emplace_back(name, len);
    b->arrays.push_back(a->a);
  });
}

int emily_io_add_meta(emily_io b, const char* key, size_t len, int kind, emily_array a,
                      char** err) {
  return emily::guarded(err, [&] {
    if (kind < EMILY_META_STRING || kind > EMILY_META_ARRAY || (kind == EMILY_META_ARRAY) != (a != nullptr)) {
      throw std::invalid_argument("bad metadata kind " + std::to_string(kind));
    }
    emily_io_s::Meta m{std::string(key, len), kind, {}, std::nullopt};
    if (a != nullptr) m.array = a->a;
    b->meta.push_back(std::move(m));
  });
}

int emily_io_add_meta_string(emily_io b, const char* s, size_t len, char** err) {
  return emily::guarded(err, [&] {
    if (b->meta.empty()) throw std::invalid_argument("no metadata entry to add a string to");
    b->meta.back().strings.emplace_back(s, len);
  });
}

void emily_io_counts(emily_io b, int* n_arrays, int* n_meta) {
  *n_arrays = static_cast<int>(b->names.size());
  *n_meta = static_cast<int>(b->meta.size());
}

const char* emily_io_name(emily_io b, int i, size_t* len) {
  *len = b->names[i].size();
  return b->names[i].data();
}

int emily_io_array(emily_array* out, emily_io b, int i, char** err) {
  return emily::guarded(err, [&] { *out = emily::wrap(b->arrays.at(i)); });
}

const char* emily_io_meta_key(emily_io b, int i, size_t* len, int* kind, int* n_strings) {
  const auto& m = b->meta[i];
  *len = m.key.size();
  *kind = m.kind;
  *n_strings = static_cast<int>(m.strings.size());
  return m.key.data();
}

const char* emily_io_meta_string(emily_io b, int i, int j, size_t* len) {
  const auto& s = b->meta[i].strings[j];
  *len = s.size();
  return s.data();
}

int emily_io_meta_array(emily_array* out, emily_io b, int i, char** err) {
  return emily::guarded(err, [&] {
    const auto& m = b->meta.at(i);
    if (!m.array) throw std::invalid_argument("metadata entry " + m.key + " holds no array");
    *out = emily::wrap(*m.array);
  });
}

int emily_load_spans(emily_array* out, const char* path, const void* data, size_t n, const char* label,
                     int count, const int64_t* offsets, const int* ndims, const int* dims, const int* dtypes,
                     const int* flags, int stream, char** err) {
  return emily::guarded(err, [&] {
    // One source serves every span: the file, or a copy of the bytes Go
    // decompressed (a member of a deflated .npz).
    std::shared_ptr<emily::Source> src;
    if (path != nullptr) {
      src = std::make_shared<emily::FileSource>(path);
    } else {
      src = std::make_shared<emily::BytesSource>(std::string(static_cast<const char*>(data), n));
    }
    auto st = emily::stream_at(stream);
    std::vector<mx::array> arrays;
    arrays.reserve(count);
    const int* d = dims;
    for (int i = 0; i < count; ++i) {
      std::vector<int> shape(d, d + ndims[i]);
      d += ndims[i];
      auto dt = emily::dtype_from_code(dtypes[i]);
      size_t bytes = dt.size();
      for (int x : shape) bytes *= static_cast<size_t>(x);
      auto r = std::make_shared<emily::SpanReader>(
          emily::npy_header(dt, (flags[i] & EMILY_SPAN_SWAP) != 0, (flags[i] & EMILY_SPAN_FORTRAN) != 0, shape), src,
          static_cast<size_t>(offsets[i]), bytes, std::string(label));
      arrays.push_back(mx::load(r, st));
    }
    emily::eval_all(arrays);
    for (int i = 0; i < count; ++i) out[i] = emily::wrap(std::move(arrays[i]));
  });
}

int emily_load_npy(emily_array* out, const char* path, int stream, char** err) {
  return emily::guarded(err, [&] {
    mx::array a = mx::load(std::string(path), emily::stream_at(stream));
    a.eval();
    *out = emily::wrap(std::move(a));
  });
}

int emily_save_npy(emily_array a, const char* path, char** err) {
  return emily::guarded(err, [&] {
    mx::array x = a->a;
    x.eval();
    mx::save(emily::open_writer(path), x);
  });
}

int emily_npy_encode(emily_array a, void** data, size_t* n, char** err) {
  return emily::guarded(err, [&] {
    auto w = std::make_shared<emily::MemoryWriter>();
    mx::save(w, a->a);
    const std::string& bytes = w->data();
    void* buf = std::malloc(bytes.size() > 0 ? bytes.size() : 1);
    if (buf == nullptr) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *data = buf;
    *n = bytes.size();
  });
}

int emily_npy_decode(emily_array* out, const void* data, size_t n, const char* label,
                     int stream, char** err) {
  return emily::guarded(err, [&] {
    auto r = std::make_shared<emily::MemoryReader>(
        std::string(static_cast<const char*>(data), n), std::string(label));
    mx::array a = mx::load(r, emily::stream_at(stream));
    a.eval();
    *out = emily::wrap(std::move(a));
  });
}

int emily_load_safetensors(emily_io* out, const char* path, int stream, char** err) {
  return emily::guarded(err, [&] {
    auto [arrays, metadata] = mx::load_safetensors(std::string(path), emily::stream_at(stream));
    auto b = std::make_unique<emily_io_s>();
    for (auto& [name, a] : arrays) {
      b->names.push_back(name);
      b->arrays.push_back(a);
    }
    emily::eval_all(b->arrays);
    for (auto& [key, value] : metadata) {
      b->meta.push_back({key, EMILY_META_STRING, {value}, std::nullopt});
    }
    *out = b.release();
  });
}

int emily_save_safetensors(emily_io b, const char* path, char** err) {
  return emily::guarded(err, [&] {
    auto arrays = emily::array_map(*b);
    emily::eval_all(b->arrays);
    std::unordered_map<std::string, std::string> metadata;
    for (const auto& m : b->meta) {
      if (m.kind != EMILY_META_STRING || m.strings.size() != 1) {
        throw std::invalid_argument("safetensors metadata values are strings; " + m.key + " is not");
      }
      metadata[m.key] = m.strings[0];
    }
    mx::save_safetensors(emily::open_writer(path), std::move(arrays), std::move(metadata));
  });
}

int emily_load_gguf(emily_io* out, const char* path, int stream, char** err) {
  return emily::guarded(err, [&] {
    auto [arrays, metadata] = mx::load_gguf(std::string(path), emily::stream_at(stream));
    auto b = std::make_unique<emily_io_s>();
    for (auto& [name, a] : arrays) {
      b->names.push_back(name);
      b->arrays.push_back(a);
    }
    for (auto& [key, value] : metadata) {
      emily_io_s::Meta m{key, EMILY_META_STRING, {}, std::nullopt};
      if (auto s = std::get_if<std::string>(&value)) {
        m.strings.push_back(*s);
      } else if (auto ss = std::get_if<std::vector<std::string>>(&value)) {
        m.kind = EMILY_META_STRINGS;
        m.strings = *ss;
      } else if (auto a = std::get_if<mx::array>(&value)) {
        m.kind = EMILY_META_ARRAY;
        m.array = *a;
      } else {
        continue;  // an empty value carries nothing to return
      }
      b->meta.push_back(std::move(m));
    }
    std::vector<mx::array> all = b->arrays;
    for (const auto& m : b->meta) {
      if (m.array) all.push_back(*m.array);
    }
    emily::eval_all(all);
    *out = b.release();
  });
}

int emily_save_gguf(emily_io b, const char* path, char** err) {
  return emily::guarded(err, [&] {
    std::string p(path);
    if (p.size() < 5 || p.compare(p.size() - 5, 5, ".gguf") != 0) {
      throw std::invalid_argument("gguf path must end in .gguf: " + p);
    }
    auto arrays = emily::array_map(*b);
    std::unordered_map<std::string, mx::GGUFMetaData> metadata;
    std::vector<mx::array> all = b->arrays;
    for (const auto& m : b->meta) {
      switch (m.kind) {
        case EMILY_META_STRING:
          if (m.strings.size() != 1) throw std::invalid_argument("metadata " + m.key + ": one string expected");
          metadata[m.key] = m.strings[0];
          break;
        case EMILY_META_STRINGS:
          metadata[m.key] = m.strings;
          break;
        default:
          metadata[m.key] = *m.array;
          all.push_back(*m.array);
      }
    }
    emily::eval_all(all);
    mx::save_gguf(p, std::move(arrays), std::move(metadata));
  });
}

}  // extern "C"
