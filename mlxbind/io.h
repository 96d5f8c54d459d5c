/* io.h: the C ABI of the shim's file formats (io.cc), over MLX's own
 * readers and writers: .npy (files and memory, the members of .npz),
 * .safetensors and .gguf. Same conventions as shim.h: status returns,
 * malloc'd error text, no exception crosses into Go. */
#ifndef EMILY_IO_H
#define EMILY_IO_H

#include "shim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A bundle: named arrays plus metadata, what safetensors and gguf files
 * hold. Loads return one; saves take one that Go filled. */
typedef struct emily_io_s* emily_io;

/* Metadata value kinds. safetensors metadata is only strings; gguf also
 * has lists of strings and numbers (scalars as 0-d arrays, lists as 1-d). */
enum emily_meta_kind { EMILY_META_STRING = 0, EMILY_META_STRINGS = 1, EMILY_META_ARRAY = 2 };

int emily_io_new(emily_io* out, char** err);
void emily_io_free(emily_io b);
int emily_io_add_array(emily_io b, const char* name, size_t len, emily_array a, char** err);
/* Adds a metadata entry; a holds the value of an EMILY_META_ARRAY entry
 * (NULL otherwise). Strings are appended to the last entry with
 * emily_io_add_meta_string: one for EMILY_META_STRING, any number for
 * EMILY_META_STRINGS. */
int emily_io_add_meta(emily_io b, const char* key, size_t len, int kind, emily_array a, char** err);
int emily_io_add_meta_string(emily_io b, const char* s, size_t len, char** err);

/* Reading a bundle. Bytes stay owned by the bundle until emily_io_free. */
void emily_io_counts(emily_io b, int* n_arrays, int* n_meta);
const char* emily_io_name(emily_io b, int i, size_t* len);
int emily_io_array(emily_array* out, emily_io b, int i, char** err);
const char* emily_io_meta_key(emily_io b, int i, size_t* len, int* kind, int* n_strings);
const char* emily_io_meta_string(emily_io b, int i, int j, size_t* len);
int emily_io_meta_array(emily_array* out, emily_io b, int i, char** err);

/* .npy. Loads read the data now (evaluated on the given stream), so a
 * truncated file fails here, not at first use. Saves write exactly path. */
int emily_load_npy(emily_array* out, const char* path, int stream, char** err);
int emily_save_npy(emily_array a, const char* path, char** err);
/* .npy in memory, for the members of .npz archives. *data is malloc'd. */
int emily_npy_encode(emily_array a, void** data, size_t* n, char** err);
int emily_npy_decode(emily_array* out, const void* data, size_t n, const char* label,
                     int stream, char** err);

/* Arrays from byte spans that Go's validators (internal/fileformat) have
 * checked: span i starts at offsets[i] of the file at path (or of the n
 * bytes at data, when path is NULL; label names them), holds ndims[i]
 * dimensions taken in turn from dims, of dtype code dtypes[i], with
 * flags[i] saying whether to swap the byte order and whether the data is
 * in Fortran order. All are read now, on the stream; out gets count
 * arrays. MLX's own header parsers are not used: they read .npy headers
 * at fixed offsets (two spaces after 'fortran_order': loaded transposed)
 * and trust safetensors shapes (issue 19). */
enum emily_span_flags { EMILY_SPAN_SWAP = 1, EMILY_SPAN_FORTRAN = 2 };
int emily_load_spans(emily_array* out, const char* path, const void* data, size_t n, const char* label,
                     int count, const int64_t* offsets, const int* ndims, const int* dims, const int* dtypes,
                     const int* flags, int stream, char** err);

/* .safetensors with string metadata; .gguf with its metadata kinds. The
 * gguf path must end in ".gguf" (MLX appends it otherwise). */
int emily_load_safetensors(emily_io* out, const char* path, int stream, char** err);
int emily_save_safetensors(emily_io b, const char* path, char** err);
int emily_load_gguf(emily_io* out, const char* path, int stream, char** err);
int emily_save_gguf(emily_io b, const char* path, char** err);

#ifdef __cplusplus
}
#endif
#endif
