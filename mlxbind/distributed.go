package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import "unsafe"

// DistAvailable reports whether the linked MLX has the distributed
// backend bk ("ring", "nccl", "mpi", "jaccl"; "any" for at least one).
func DistAvailable(bk string) bool {
	cs := C.CString(bk)
	defer C.free(unsafe.Pointer(cs))
	return C.emily_dist_available(cs) == 1
}

// DistInit initializes MLX's distributed backend bk and returns the
// world's group handle. With strict false a backend that finds no world
// gives a one-process group instead of an error.
func DistInit(bk string, strict bool) (int, error) {
	cs := C.CString(bk)
	defer C.free(unsafe.Pointer(cs))
	var out C.int
	var msg *C.char
	s := 0
	if strict {
		s = 1
	}
	status := C.emily_dist_init(&out, cs, C.int(s), &msg)
	if err := takeError(status, msg, "distributed.Init"); err != nil {
		return 0, err
	}
	return int(out), nil
}

// DistGroupInfo returns a group's rank, size and backend name ("none" for
// a one-process group).
func DistGroupInfo(id int) (rank, size int, backend string, err error) {
	var r, n C.int
	var bk *C.char
	var msg *C.char
	status := C.emily_dist_group_info(C.int(id), &r, &n, &bk, &msg)
	if err := takeError(status, msg, "distributed.Group"); err != nil {
		return 0, 0, "", err
	}
	return int(r), int(n), C.GoString(bk), nil
}

// DistSplit splits group id by color (ranks with one color form a group),
// ordered by key (negative: the rank in id), and returns the new handle.
func DistSplit(id, color, key int) (int, error) {
	var out C.int
	var msg *C.char
	status := C.emily_dist_split(&out, C.int(id), C.int(color), C.int(key), &msg)
	if err := takeError(status, msg, "distributed.Split"); err != nil {
		return 0, err
	}
	return int(out), nil
}
