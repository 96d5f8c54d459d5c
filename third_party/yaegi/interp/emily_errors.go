package interp

import (
	"errors"
	"reflect"
)

// errorsAs is errors.As for the interpreter (emily patch 17). The
// reflect type of a session error type has no methods (reflect cannot
// add them), so errors.As panicked "*target must be interface or
// implement error" for `var nf *NotFound; errors.As(err, &nf)`. For such
// a target, the chain is walked here, and each error's session value
// (behind the wrapper that made it an error for compiled code) is
// compared with the target's type.
func errorsAs(err error, target any) bool {
	if target == nil {
		panic("errors: target cannot be nil")
	}
	tv := reflect.ValueOf(target)
	if tv.Kind() != reflect.Ptr || tv.IsNil() {
		panic("errors: target must be a non-nil pointer")
	}
	if et := tv.Type().Elem(); et.Kind() == reflect.Interface || et.Implements(errorType) {
		return errors.As(err, target)
	}
	return asChain(err, tv.Elem())
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

func asChain(err error, dst reflect.Value) bool {
	for err != nil {
		if v := sessionValue(reflect.ValueOf(err)); v.IsValid() && v.Type() == dst.Type() {
			dst.Set(v)
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if asChain(e, dst) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// sessionValue returns the value behind v's interface wrappers: the
// interpreted value a compiled interface (error) was made of.
func sessionValue(v reflect.Value) reflect.Value {
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Interface:
			v = v.Elem()
		case v.Type() == valueInterfaceType:
			v = v.Interface().(valueInterface).value
		case v.Kind() == reflect.Struct && v.NumField() > 0 && v.Type().Field(0).Name == "IValue":
			v = v.Field(0)
		default:
			return v
		}
	}
	return v
}
