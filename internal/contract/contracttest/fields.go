// Package contracttest walks the wire types' fields for tests: every list
// that names a type's fields by hand (an equality, a signature of what the
// page shows) is tested against the type itself, so a field added to the
// contract and forgotten in a list fails a test rather than going unseen.
package contracttest

import (
	"fmt"
	"reflect"
)

// Changed is a copy of a value with one field changed, and that field's
// path ("Touched[0].Path", "Mutation.DeclaredIntent").
type Changed[T any] struct {
	Field string
	Value T
}

// EachFieldChanged returns, for every field of base down to strings,
// numbers and booleans (into nested structs, each slice's first element
// and every element of an array), a copy of base with that field alone
// changed; a slice of strings also gets a copy with one more element.
// base is never altered.
// A field of a kind it cannot change fails with the field's name, so a
// new kind is taught here, not skipped.
func EachFieldChanged[T any](base T) ([]Changed[T], error) {
	var out []Changed[T]
	var err error
	var walk func(t reflect.Type, path []step, name string)
	walk = func(t reflect.Type, path []step, name string) {
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				sep := "."
				if name == "" {
					sep = ""
				}
				walk(f.Type, append(path[:len(path):len(path)], step{field: i}), name+sep+f.Name)
			}
		case reflect.Slice:
			elem := append(path[:len(path):len(path)], step{elem: true})
			if t.Elem().Kind() == reflect.String {
				out = append(out, Changed[T]{name + "+", change(base, path, grow)})
			}
			walk(t.Elem(), elem, name+"[0]")
		case reflect.Array: // a value: each element changed alone
			for i := range t.Len() {
				walk(t.Elem(), append(path[:len(path):len(path)], step{index: i, array: true}), fmt.Sprintf("%s[%d]", name, i))
			}
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint64:
			out = append(out, Changed[T]{name, change(base, path, leaf)})
		default:
			if err == nil {
				err = fmt.Errorf("field %s of kind %s: teach contracttest to change it", name, t.Kind())
			}
		}
	}
	walk(reflect.TypeFor[T](), nil, "")
	return out, err
}

// step is one step down a value: a struct's field, a slice's first
// element, or an array's element at index.
type step struct {
	field int
	elem  bool
	index int
	array bool
}

func grow(v reflect.Value) {
	v.Set(reflect.Append(v, reflect.ValueOf("added").Convert(v.Type().Elem())))
}

func leaf(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "-changed")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	}
}

// change copies base, copying every slice on the way down (given a first
// element when empty) so base shares nothing changed, and applies f to
// the field at path.
func change[T any](base T, path []step, f func(reflect.Value)) T {
	cp := reflect.New(reflect.TypeFor[T]()).Elem()
	cp.Set(reflect.ValueOf(base))
	v := cp
	for _, s := range path {
		if s.elem {
			fresh := reflect.MakeSlice(v.Type(), v.Len(), v.Len()+1)
			reflect.Copy(fresh, v)
			if fresh.Len() == 0 {
				fresh = reflect.Append(fresh, reflect.Zero(v.Type().Elem()))
			}
			v.Set(fresh)
			v = v.Index(0)
			continue
		}
		if s.array {
			v = v.Index(s.index)
			continue
		}
		v = v.Field(s.field)
	}
	if v.Kind() == reflect.Slice { // grow: a fresh slice, one longer
		fresh := reflect.MakeSlice(v.Type(), v.Len(), v.Len()+1)
		reflect.Copy(fresh, v)
		v.Set(fresh)
	}
	f(v)
	return cp.Interface().(T)
}
