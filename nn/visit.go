package nn

import "reflect"

// visitLayers calls fn with every pointer reachable from model through
// exported fields, slices, arrays, maps and interfaces (each once), so a
// method with a pointer receiver (SetTraining) can change the layer.
func visitLayers(model any, fn func(any)) {
	type key struct {
		t reflect.Type
		p uintptr
	}
	seen := map[key]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			k := key{v.Type(), v.Pointer()}
			if v.IsNil() || seen[k] {
				return
			}
			seen[k] = true
			if v.CanInterface() {
				fn(v.Interface())
			}
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			t := v.Type()
			for i := 0; i < t.NumField(); i++ {
				if t.Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Map:
			iter := v.MapRange()
			for iter.Next() {
				walk(iter.Value())
			}
		}
	}
	walk(reflect.ValueOf(model))
}
