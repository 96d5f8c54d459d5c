package interp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
)

// emily patch 107: encoding/json decodes into session types with their
// UnmarshalJSON (and UnmarshalText) at any depth.
//
// json.Unmarshal gets a session value as its underlying type, whose
// reflect type has no methods: a direct target is wrapped
// (stdlib/maptypes.go), but a struct field, slice element, map value or
// pointer of a type with its own UnmarshalJSON was decoded as the
// underlying type ("cannot unmarshal string into Go struct field .level
// of type int"). When the target holds such a type, the call now decodes
// in steps: a struct through a mirror of it whose fields of those types
// are json.RawMessage (so json's own field matching, tags and all, still
// applies), slices, arrays and string-keyed maps through RawMessage
// elements, and each part of a session type by its method, called
// through yaegi's wrapper.

var (
	jsonUnmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
	rawMessageType      = reflect.TypeOf(json.RawMessage(nil))
	jsonUnmarshalPC     = reflect.ValueOf(json.Unmarshal).Pointer()
)

// fixUnmarshal replaces the callee of a call n of json.Unmarshal whose
// target's static type holds session types with UnmarshalJSON or
// UnmarshalText below its top (the top one is wrapped already).
func fixUnmarshal(n *node, child []*node, value func(*frame) reflect.Value) func(*frame) reflect.Value {
	if len(child) != 2 || pcOf(n.child[0]) != jsonUnmarshalPC {
		return value
	}
	t := child[1].typ
	if t == nil || t.cat != ptrT || unmarshals(t.val) || !holdsUnmarshaler(t.val, map[*itype]bool{}) {
		return value
	}
	interp := n.interp
	return func(f *frame) reflect.Value {
		d := decoder{printFix{interp: interp, json: true}, f}
		return reflect.ValueOf(func(data []byte, v any) error {
			rv := reflect.ValueOf(v)
			for rv.IsValid() && rv.Type() == valueInterfaceType {
				rv = rv.Interface().(valueInterface).value
			}
			if !rv.IsValid() || rv.Kind() != reflect.Ptr || rv.IsNil() {
				return json.Unmarshal(data, v)
			}
			return d.decode(data, rv.Elem(), t.val)
		})
	}
}

func pcOf(c0 *node) uintptr {
	if !c0.rval.IsValid() || c0.rval.Kind() != reflect.Func || c0.rval.IsNil() {
		return 0
	}
	return c0.rval.Pointer()
}

// unmarshals reports whether the pointer method set of session type t
// has UnmarshalJSON or UnmarshalText.
func unmarshals(t *itype) bool {
	return t != nil && sessionNamed(t) && (hasMethod(t, "UnmarshalJSON", true) || hasMethod(t, "UnmarshalText", true))
}

// holdsUnmarshaler reports whether a value of type t holds, below its
// top, a session type that unmarshals itself.
func holdsUnmarshaler(t *itype, seen map[*itype]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	u := underlying(t)
	switch u.cat {
	case ptrT, sliceT, arrayT:
		return unmarshals(u.val) || holdsUnmarshaler(u.val, seen)
	case mapT:
		return unmarshals(u.val) || holdsUnmarshaler(u.val, seen)
	case structT:
		for _, f := range u.field {
			if unmarshals(f.typ) || holdsUnmarshaler(f.typ, seen) {
				return true
			}
		}
	}
	return false
}

type decoder struct {
	p printFix
	f *frame
}

// decode decodes data into dst, of interpreted type t.
func (d decoder) decode(data []byte, dst reflect.Value, t *itype) error {
	if unmarshals(t) {
		if hasMethod(t, "UnmarshalJSON", true) {
			if w, ok := d.p.wrap(dst.Addr(), ptrOf(t), jsonUnmarshalerType, d.f); ok {
				return w.Interface().(json.Unmarshaler).UnmarshalJSON(data)
			}
		} else if w, ok := d.p.wrap(dst.Addr(), ptrOf(t), textUnmarshalerType, d.f); ok {
			if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
				return nil
			}
			var s string
			if err := json.Unmarshal(data, &s); err != nil {
				return err
			}
			return w.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
		}
	}
	if !holdsUnmarshaler(t, map[*itype]bool{}) {
		return json.Unmarshal(data, dst.Addr().Interface())
	}
	null := bytes.Equal(bytes.TrimSpace(data), []byte("null"))
	u := underlying(t)
	switch u.cat {
	case ptrT:
		if null {
			dst.Set(reflect.Zero(dst.Type()))
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return d.decode(data, dst.Elem(), u.val)
	case sliceT, arrayT:
		if null {
			if u.cat == sliceT {
				dst.Set(reflect.Zero(dst.Type()))
			}
			return nil
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			return err
		}
		if u.cat == sliceT {
			dst.Set(reflect.MakeSlice(dst.Type(), len(raws), len(raws)))
		}
		for i, r := range raws {
			if i >= dst.Len() {
				break
			}
			if err := d.decode(r, dst.Index(i), u.val); err != nil {
				return err
			}
		}
		return nil
	case mapT:
		if null {
			dst.Set(reflect.Zero(dst.Type()))
			return nil
		}
		if dst.Type().Key().Kind() != reflect.String {
			return json.Unmarshal(data, dst.Addr().Interface())
		}
		var raws map[string]json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			return err
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(dst.Type(), len(raws)))
		}
		for k, r := range raws {
			e := reflect.New(dst.Type().Elem()).Elem()
			if err := d.decode(r, e, u.val); err != nil {
				return err
			}
			dst.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), e)
		}
		return nil
	case structT:
		rt := dst.Type()
		if len(u.field) != rt.NumField() {
			return json.Unmarshal(data, dst.Addr().Interface())
		}
		fields := make([]reflect.StructField, rt.NumField())
		raw := make([]bool, rt.NumField())
		for i := range fields {
			fields[i] = rt.Field(i)
			if ft := u.field[i].typ; unmarshals(ft) || holdsUnmarshaler(ft, map[*itype]bool{}) {
				fields[i].Type, fields[i].Anonymous, raw[i] = rawMessageType, false, true
			}
		}
		mirror := reflect.New(reflect.StructOf(fields)).Elem()
		for i := range fields {
			if !raw[i] {
				mirror.Field(i).Set(dst.Field(i))
			}
		}
		if err := json.Unmarshal(data, mirror.Addr().Interface()); err != nil {
			return err
		}
		for i := range fields {
			if !raw[i] {
				dst.Field(i).Set(mirror.Field(i))
				continue
			}
			if r := mirror.Field(i).Bytes(); r != nil {
				if err := d.decode(r, dst.Field(i), u.field[i].typ); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return json.Unmarshal(data, dst.Addr().Interface())
}
