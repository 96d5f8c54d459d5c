package emily

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Parameter trees (DESIGN.md decision 11). A tree is any Go value whose
// exported struct fields, slice and array elements, map values, pointers
// and interfaces lead to *Tensor leaves, at any depth: a *Tensor alone,
// a []*Tensor, a user's *MLP struct of *nn.Linear fields, a
// map[string]*Tensor. Reflection walks it, so the user writes no
// generics (decision 5) and session types made by the REPL walk the same
// as compiled ones.
//
// The walk is stable: struct fields in declaration order, slice elements
// by index, map entries by sorted key. A leaf's name is its path joined
// by dots, "layers.0.weight": a field is named by its `emily:"name"` tag,
// else by its Go name in snake_case (QProj is "q_proj", as mlx.nn and
// PyTorch name attributes); an embedded struct adds no name of its own;
// `emily:"-"` leaves a field out; `emily:",frozen"` freezes it for good.
// Nil tensors, nil pointers and unexported fields are not leaves (a tensor
// in an unexported field is a constant to Jit). A tensor or a struct
// reached twice (tied weights, a shared layer) is one leaf, named by its
// first path, and stays shared when the tree is rebuilt: its gradient is
// the sum over its uses.

// TreeLeaf is one tensor of a tree: its name, the tensor, and whether it
// is frozen (Freeze, or an `emily:",frozen"` tag). Gradients, optimizers
// and Jit's in-place updates leave frozen leaves alone.
type TreeLeaf struct {
	Name   string
	Tensor *Tensor
	Frozen bool
}

// TreeLeaves returns tree's leaves in walk order.
func TreeLeaves(tree any) []TreeLeaf {
	var out []TreeLeaf
	walk(tree, true, false, func(l TreeLeaf, _ func(*Tensor)) { out = append(out, l) })
	return out
}

// TreeFlatten returns tree's tensors in walk order (each shared tensor once).
func TreeFlatten(tree any) []*Tensor {
	// No names and no setters: a jitted call flattens its trees on every
	// call (jit_tree.go, optim.TrainStep), and a name and a setter cost an
	// allocation or two per leaf.
	var out []*Tensor
	walk(tree, false, false, func(l TreeLeaf, _ func(*Tensor)) { out = append(out, l.Tensor) })
	return out
}

// TreeNames returns the names of tree's leaves in walk order.
func TreeNames(tree any) []string {
	var out []string
	walk(tree, true, false, func(l TreeLeaf, _ func(*Tensor)) { out = append(out, l.Name) })
	return out
}

// TreeUnflatten returns a new tree of tree's type and shape whose leaves are
// leaves, in TreeFlatten's order: structs, slices and maps on the way to a
// leaf are copied (other fields keep their values), tree is not changed.
// A nil entry makes a nil leaf. It panics with an *Error when the count
// differs from tree's.
func TreeUnflatten(tree any, leaves []*Tensor) any {
	if tree == nil {
		panic(&Error{Op: "TreeUnflatten", Err: fmt.Errorf("nil tree")})
	}
	r := &rebuilder{leaves: leaves}
	out := r.value(reflect.ValueOf(tree))
	if r.next != len(leaves) {
		panic(&Error{Op: "TreeUnflatten", Err: fmt.Errorf("the tree (%T) has %d leaves, got %d tensors", tree, r.next, len(leaves)),
			Hint: "pass one tensor per leaf of TreeFlatten(tree), in its order"})
	}
	return out.Interface()
}

// TreeMap returns a new tree of tree's shape whose leaves are fn of
// tree's (named), as TreeUnflatten builds it; fn may return nil.
func TreeMap(tree any, fn func(name string, t *Tensor) *Tensor) any {
	ls := TreeLeaves(tree)
	out := make([]*Tensor, len(ls))
	for i, l := range ls {
		out[i] = fn(l.Name, l.Tensor)
	}
	return TreeUnflatten(tree, out)
}

// TreeUpdate replaces tree's leaves in place: each leaf becomes fn of it
// (fn returning nil or the same tensor leaves it). The tree must reach its
// leaves through pointers, slices or maps of pointers (pass &model, not
// model); a leaf that cannot be set panics with an *Error naming it. A
// replaced leaf stays frozen if it was.
func TreeUpdate(tree any, fn func(name string, t *Tensor) *Tensor) { treeUpdate(tree, true, fn) }

// treeUpdate is TreeUpdate; without names, fn gets "" (the name of a leaf
// that cannot be set is then found by a second, named walk).
func treeUpdate(tree any, names bool, fn func(name string, t *Tensor) *Tensor) {
	i := 0
	walk(tree, names, true, func(l TreeLeaf, set func(*Tensor)) {
		i++
		nt := fn(l.Name, l.Tensor)
		if nt == nil || nt == l.Tensor {
			return
		}
		if set == nil {
			name := l.Name
			if !names {
				name = TreeNames(tree)[i-1]
			}
			panic(&Error{Op: "TreeUpdate", Err: fmt.Errorf("leaf %q of %T cannot be set in place", name, tree),
				Hint: "pass a pointer to the tree (&model), and hold sub-structs by pointer in maps and interfaces"})
		}
		nt.frozen = nt.frozen || l.Tensor.frozen
		set(nt)
	})
}

// SetLeaves replaces tree's leaves in place by leaves, in TreeFlatten's order
// (TreeUpdate's rules).
func SetLeaves(tree any, leaves []*Tensor) {
	// One walk collects the leaves and their setters, so that the count is
	// checked before anything is replaced without a second walk to count
	// (a train step sets its whole state this way on every call).
	type slot struct {
		old *Tensor
		set func(*Tensor)
	}
	slots := make([]slot, 0, len(leaves))
	walk(tree, false, true, func(l TreeLeaf, set func(*Tensor)) { slots = append(slots, slot{l.Tensor, set}) })
	if len(slots) != len(leaves) {
		panic(&Error{Op: "SetLeaves", Err: fmt.Errorf("the tree (%T) has %d leaves, got %d tensors", tree, len(slots), len(leaves))})
	}
	for i, sl := range slots {
		nt := leaves[i]
		if nt == nil || nt == sl.old {
			continue
		}
		if sl.set == nil {
			panic(&Error{Op: "TreeUpdate", Err: fmt.Errorf("leaf %q of %T cannot be set in place", TreeNames(tree)[i], tree),
				Hint: "pass a pointer to the tree (&model), and hold sub-structs by pointer in maps and interfaces"})
		}
		nt.frozen = nt.frozen || sl.old.frozen
		sl.set(nt)
	}
}

// Freeze marks the leaves named by names as frozen: a name selects the
// leaf of that name and every leaf under it ("layers.0" freezes
// "layers.0.weight"); no names freezes every leaf. Frozen leaves get no
// gradient (a nil tensor in the gradient tree) and optimizers skip them.
// It panics with an *Error when a name matches no leaf.
func Freeze(tree any, names ...string) { setFrozen("Freeze", tree, names, true) }

// Unfreeze undoes Freeze for the leaves named (all when none). A field
// tagged `emily:",frozen"` stays frozen.
func Unfreeze(tree any, names ...string) { setFrozen("Unfreeze", tree, names, false) }

func setFrozen(op string, tree any, names []string, frozen bool) {
	used := make([]bool, len(names))
	var all []string
	walkTree(tree, func(l TreeLeaf, _ func(*Tensor)) {
		all = append(all, l.Name)
		if len(names) == 0 {
			l.Tensor.frozen = frozen
			return
		}
		for i, n := range names {
			if l.Name == n || strings.HasPrefix(l.Name, n+".") {
				l.Tensor.frozen = frozen
				used[i] = true
			}
		}
	})
	for i, u := range used {
		if !u {
			panic(&Error{Op: op, Err: fmt.Errorf("no leaf of %T is named %q or lies under it", tree, names[i]),
				Hint: "the leaves are: " + strings.Join(all, ", ")})
		}
	}
}

// Frozen reports whether t was frozen by Freeze.
func (t *Tensor) Frozen() bool { return t != nil && t.frozen }

// walkTree calls visit for each leaf of tree in walk order, with a setter
// when the leaf can be replaced in place.
func walkTree(tree any, visit func(l TreeLeaf, set func(*Tensor))) { walk(tree, true, true, visit) }

// walk is walkTree; names and setters say whether visit needs the leaves'
// names (else "") and setters (else nil).
func walk(tree any, names, setters bool, visit func(l TreeLeaf, set func(*Tensor))) {
	w := walkers.Get().(*walker)
	w.visit, w.names, w.setters = visit, names, setters
	w.value(reflect.ValueOf(tree), "", false, place{})
	// The seen sets keep their room for the next walk: growing two maps
	// to a model's size was a fifth of a jitted call's tree walk.
	clear(w.seenT)
	clear(w.seenP)
	w.visit = nil
	walkers.Put(w)
}

var walkers = sync.Pool{New: func() any {
	return &walker{seenT: map[*Tensor]bool{}, seenP: map[ptrKey]bool{}}
}}

type walker struct {
	visit          func(TreeLeaf, func(*Tensor))
	names, setters bool
	seenT          map[*Tensor]bool
	seenP          map[ptrKey]bool
}

// join is joinName when the walk names its leaves.
func (w *walker) join(path string, name func() string) string {
	if !w.names {
		return ""
	}
	return joinName(path, name())
}

// place is where a walked value is stored, for a walk that sets leaves:
// a settable field or element (v), or a map's entry (m, k); neither for a
// value that cannot be set in place. A value, not a closure: only leaves
// turn it into a setter, and most places the walk passes are not leaves.
type place struct {
	v, m, k reflect.Value
}

// at is the place of v when the walk sets its leaves and v can be set.
func (w *walker) at(v reflect.Value) place {
	if !w.setters || !v.CanSet() {
		return place{}
	}
	return place{v: v}
}

// setter returns the leaf setter of p, or nil when p cannot be set.
func (p place) setter() func(*Tensor) {
	switch {
	case p.v.IsValid():
		v := p.v
		return func(n *Tensor) { v.Set(reflect.ValueOf(n)) }
	case p.m.IsValid():
		m, k := p.m, p.k
		return func(n *Tensor) { m.SetMapIndex(k, reflect.ValueOf(n)) }
	}
	return nil
}

// ptrKey identifies a pointer by type and address (a struct and its first
// field share an address).
type ptrKey struct {
	t reflect.Type
	p uintptr
}

func joinName(path, name string) string {
	switch {
	case path == "":
		return name
	case name == "":
		return path
	}
	return path + "." + name
}

// value walks v, stored at p.
func (w *walker) value(v reflect.Value, path string, frozen bool, p place) {
	if !v.IsValid() {
		return
	}
	t := v.Type()
	if t == tensorType {
		x, _ := v.Interface().(*Tensor)
		if x == nil || w.seenT[x] {
			return
		}
		w.seenT[x] = true
		var st func(*Tensor)
		if w.setters {
			st = p.setter()
		}
		w.visit(TreeLeaf{Name: path, Tensor: x, Frozen: frozen || x.frozen}, st)
		return
	}
	if !mayHoldTensors(t) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		pk := ptrKey{t, v.Pointer()}
		if v.IsNil() || w.seenP[pk] {
			return
		}
		w.seenP[pk] = true
		e := v.Elem()
		w.value(e, path, frozen, w.at(e))
	case reflect.Interface:
		if !v.IsNil() {
			w.value(v.Elem(), path, frozen, place{})
		}
	case reflect.Struct:
		for _, f := range treeFields(t) {
			fv := v.Field(f.index)
			name := ""
			if w.names {
				name = joinName(path, f.name)
			}
			w.value(fv, name, frozen || f.frozen, w.at(fv))
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			w.value(e, w.join(path, func() string { return strconv.Itoa(i) }), frozen, w.at(e))
		}
	case reflect.Map:
		for _, k := range sortedKeys(v) {
			var p place
			if w.setters {
				p = place{m: v, k: k}
			}
			w.value(v.MapIndex(k), w.join(path, func() string { return keyName(k) }), frozen, p)
		}
	}
}

// keyName is a map key's part of a leaf name.
func keyName(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	return fmt.Sprint(k.Interface())
}

// sortedKeys returns a map's keys in a stable order: numbers by value,
// everything else by its printed form.
//
// Trees are walked on every jitted call, and an optimizer's state is maps
// that keep the same keys from step to step, so the order is cached per
// map and checked rather than sorted again: the map's type and length
// equal the cache's and every cached key is in it, hence its key set is
// the cached one (the keys are distinct). A map whose keys changed, or
// one that took the address of a collected map, fails the check and is
// sorted afresh. Callers must not modify the returned slice.
func sortedKeys(m reflect.Value) []reflect.Value {
	if !cachedKeyKind(m.Type().Key().Kind()) {
		return sortKeys(m)
	}
	addr := m.Pointer()
	if c, ok := keyOrders.load(addr); ok && c.typ == m.Type() && len(c.keys) == m.Len() && c.holds(m) {
		return c.keys
	}
	keys := sortKeys(m)
	keyOrders.store(addr, &keyOrder{typ: m.Type(), keys: keys})
	return keys
}

// cachedKeyKind says whether keys of kind k have their order cached: the
// kinds whose equal keys print the same (not floats, where 0 and -0 are
// one key with two names, nor interfaces that may hold them).
func cachedKeyKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// keyOrder is a map's sorted keys, cached by sortedKeys.
type keyOrder struct {
	typ  reflect.Type
	keys []reflect.Value
}

// holds reports whether every cached key is a key of m.
func (c *keyOrder) holds(m reflect.Value) bool {
	for _, k := range c.keys {
		if !m.MapIndex(k).IsValid() {
			return false
		}
	}
	return true
}

// keyOrders caches orders by map address, up to a bound: a session that
// makes many short-lived maps starts the cache afresh rather than
// growing it without end.
var keyOrders = &keyOrderCache{m: map[uintptr]*keyOrder{}}

type keyOrderCache struct {
	sync.RWMutex
	m map[uintptr]*keyOrder
}

const maxKeyOrders = 4096

func (c *keyOrderCache) load(addr uintptr) (*keyOrder, bool) {
	c.RLock()
	o, ok := c.m[addr]
	c.RUnlock()
	return o, ok
}

func (c *keyOrderCache) store(addr uintptr, o *keyOrder) {
	c.Lock()
	if len(c.m) >= maxKeyOrders {
		c.m = map[uintptr]*keyOrder{}
	}
	c.m[addr] = o
	c.Unlock()
}

// sortKeys sorts m's keys for sortedKeys.
func sortKeys(m reflect.Value) []reflect.Value {
	// The keys are copied into one slice of the key type (MapKeys makes
	// a copy per string key) and sorted with slices.SortFunc (sort.Slice
	// makes a reflective swapper).
	n := m.Len()
	store := reflect.MakeSlice(reflect.SliceOf(m.Type().Key()), n, n)
	keys := make([]reflect.Value, 0, n)
	for it := m.MapRange(); it.Next(); {
		k := store.Index(len(keys))
		k.SetIterKey(it)
		keys = append(keys, k)
	}
	if len(keys) > 0 && keys[0].Kind() == reflect.String {
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		return keys
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch a.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return a.Int() < b.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return a.Uint() < b.Uint()
		case reflect.Float32, reflect.Float64:
			return a.Float() < b.Float()
		case reflect.String:
			return a.String() < b.String()
		}
		return fmt.Sprint(a.Interface()) < fmt.Sprint(b.Interface())
	})
	return keys
}

// treeField is one struct field of the walk.
type treeField struct {
	index  int
	name   string
	frozen bool
}

var fieldCache sync.Map // reflect.Type -> []treeField

// treeFields lists the fields of struct type t that the walk visits.
func treeFields(t reflect.Type) []treeField {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]treeField)
	}
	var fs []treeField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("emily")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" && !f.Anonymous {
			name = snakeCase(f.Name)
		}
		fs = append(fs, treeField{index: i, name: name, frozen: opts == "frozen" || strings.Contains(","+opts+",", ",frozen,")})
	}
	fieldCache.Store(t, fs)
	return fs
}

// snakeCase turns a Go name into the snake_case that Python code names
// attributes with: QProj -> q_proj, MLP -> mlp, Layer2Norm -> layer2_norm.
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var holdCache sync.Map // reflect.Type -> bool

// mayHoldTensors reports whether a value of type t can reach a *Tensor
// through the walk (an interface may hold anything).
func mayHoldTensors(t reflect.Type) bool {
	if h, ok := holdCache.Load(t); ok {
		return h.(bool)
	}
	h := holds(t, map[reflect.Type]bool{})
	holdCache.Store(t, h)
	return h
}

func holds(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if t == tensorType {
		return true
	}
	if visiting[t] {
		return false // a recursive type holds tensors only through another path
	}
	visiting[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holds(t.Elem(), visiting)
	case reflect.Struct:
		for _, f := range treeFields(t) {
			if holds(t.Field(f.index).Type, visiting) {
				return true
			}
		}
	}
	return false
}

// rebuilder builds TreeUnflatten's copy, in the walk's order and with its
// sharing: a tensor or pointer seen before maps to the same replacement.
type rebuilder struct {
	leaves []*Tensor
	next   int
	memoT  map[*Tensor]*Tensor
	memoP  map[ptrKey]reflect.Value
}

func (r *rebuilder) value(v reflect.Value) reflect.Value {
	if !v.IsValid() {
		return v
	}
	t := v.Type()
	if t == tensorType {
		x, _ := v.Interface().(*Tensor)
		if x == nil {
			return v
		}
		if n, ok := r.memoT[x]; ok {
			return reflect.ValueOf(n)
		}
		var n *Tensor
		if r.next < len(r.leaves) {
			n = r.leaves[r.next]
		}
		r.next++
		if r.memoT == nil {
			r.memoT = map[*Tensor]*Tensor{}
		}
		r.memoT[x] = n
		return reflect.ValueOf(n)
	}
	if !mayHoldTensors(t) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		pk := ptrKey{t, v.Pointer()}
		if n, ok := r.memoP[pk]; ok {
			return n
		}
		n := reflect.New(t.Elem())
		if r.memoP == nil {
			r.memoP = map[ptrKey]reflect.Value{}
		}
		r.memoP[pk] = n
		n.Elem().Set(r.value(v.Elem()))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(t).Elem()
		n.Set(r.value(v.Elem()))
		return n
	case reflect.Struct:
		n := reflect.New(t).Elem()
		n.Set(v)
		for _, f := range treeFields(t) {
			n.Field(f.index).Set(r.value(v.Field(f.index)))
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(r.value(v.Index(i)))
		}
		return n
	case reflect.Array:
		n := reflect.New(t).Elem()
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(r.value(v.Index(i)))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(t, v.Len())
		for _, k := range sortedKeys(v) {
			n.SetMapIndex(k, r.value(v.MapIndex(k)))
		}
		return n
	}
	return v
}
