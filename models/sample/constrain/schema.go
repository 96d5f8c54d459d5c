package constrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
)

// SchemaError is a schema the compiler cannot take: Path is the JSON
// pointer of the offending part ("#/properties/age"), Msg what is wrong
// and what to write instead.
type SchemaError struct {
	Path, Msg string
}

func (e *SchemaError) Error() string { return "schema " + e.Path + ": " + e.Msg }

// jvalue is a decoded JSON value that keeps the order of object keys:
// the properties of a schema are generated in the order they are written
// (as OpenAI's structured outputs do), which encoding/json's maps lose.
type jvalue struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*jvalue
	items []*jvalue
	str   string // the string, or the number as written
	b     bool
}

func (v *jvalue) get(key string) *jvalue {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

func parseJSON(data []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the schema's JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (*jvalue, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		if t == '{' {
			v := &jvalue{kind: 'o'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				e, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				key := k.(string)
				if v.get(key) != nil {
					return nil, fmt.Errorf("key %q appears twice in one object", key)
				}
				v.keys, v.vals = append(v.keys, key), append(v.vals, e)
			}
			_, err := dec.Token()
			return v, err
		}
		v := &jvalue{kind: 'a'}
		for dec.More() {
			e, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, e)
		}
		_, err := dec.Token()
		return v, err
	case string:
		return &jvalue{kind: 's', str: t}, nil
	case json.Number:
		return &jvalue{kind: 'n', str: string(t)}, nil
	case bool:
		return &jvalue{kind: 'b', b: t}, nil
	default:
		return &jvalue{kind: 'z'}, nil
	}
}

// encode writes v as compact JSON, keys in their order, without
// encoding/json's HTML escapes (a model writes "<", not "\u003c").
func (v *jvalue) encode(w *bytes.Buffer) {
	switch v.kind {
	case 'o':
		w.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(quote(k))
			w.WriteByte(':')
			v.vals[i].encode(w)
		}
		w.WriteByte('}')
	case 'a':
		w.WriteByte('[')
		for i, e := range v.items {
			if i > 0 {
				w.WriteByte(',')
			}
			e.encode(w)
		}
		w.WriteByte(']')
	case 's':
		w.Write(quote(v.str))
	case 'n':
		w.WriteString(v.str)
	case 'b':
		w.WriteString(strconv.FormatBool(v.b))
	default:
		w.WriteString("null")
	}
}

func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// kind is what a schema node generates.
type kind int

const (
	kAny     kind = iota // any JSON value
	kObject              // props in order; additional for a map
	kArray               // items, minItems … maxItems
	kString              // minLen … maxLen characters
	kNumber              // a JSON number
	kInteger             // an integer: -?(0|[1-9][0-9]*)
	kLiteral             // one of lits (enum, const, true/false/null)
	kAnyOf               // one of alts
)

type prop struct {
	name     string
	n        *node
	required bool
}

// node is a schema reduced to what generation needs.
type node struct {
	kind        kind
	props       []prop
	additional  *node // kObject without props: the values of a map (nil: no other keys)
	items       *node
	minN, maxN  int // kArray items, kString characters; maxN < 0: unbounded
	lits        [][]byte
	alts        []*node
	nonNegative bool           // kNumber, kInteger: no minus sign (minimum ≥ 0)
	pattern     *syntax.Regexp // kString: its characters match (pattern.go)
}

// annotations are keywords that do not constrain a value (or that the
// standard makes annotations, as "format"): skipped.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$schema": true, "$id": true,
	"$comment": true, "format": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"$defs": true, "definitions": true, "strict": true, "contentMediaType": true, "contentEncoding": true,
	"discriminator": true, "nullable": false, // nullable is read (OpenAPI's), not skipped
}

// unsupported names the keywords that constrain values in ways the
// compiler does not generate, with the advice given: the output would
// not always validate, so the schema is refused rather than half-obeyed.
var unsupported = map[string]string{
	"patternProperties":     "use properties, or additionalProperties with a schema",
	"propertyNames":         "use properties with additionalProperties: false",
	"minProperties":         "list the properties and make them required",
	"maxProperties":         "list the properties with additionalProperties: false",
	"dependentRequired":     "make the properties required",
	"dependentSchemas":      "use anyOf",
	"maximum":               "numeric bounds other than minimum: 0 are not supported",
	"exclusiveMaximum":      "numeric bounds other than minimum: 0 are not supported",
	"exclusiveMinimum":      "numeric bounds other than minimum: 0 are not supported",
	"multipleOf":            "numeric constraints are not supported",
	"not":                   "use enum or anyOf",
	"oneOf":                 "use anyOf (whose alternatives need not exclude each other)",
	"if":                    "use anyOf",
	"then":                  "use anyOf",
	"else":                  "use anyOf",
	"prefixItems":           "tuples are not supported; use an object",
	"contains":              "use items",
	"minContains":           "use items",
	"maxContains":           "use items",
	"uniqueItems":           "use enum or an object",
	"unevaluatedItems":      "use items",
	"unevaluatedProperties": "use additionalProperties",
	"$dynamicRef":           "use $ref to #/$defs/…",
	"$anchor":               "use $ref to #/$defs/…",
}

// parser turns a schema's jvalue into nodes, inlining $ref (recursion is
// refused: the grammar is regular, with a bounded nesting for any-JSON).
type parser struct {
	root  *jvalue
	o     Options
	inRef map[string]bool
}

// parseSchema reads a schema document.
func parseSchema(data []byte, o Options) (*node, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, &SchemaError{Path: "#", Msg: "not valid JSON: " + err.Error()}
	}
	p := &parser{root: v, o: o, inRef: map[string]bool{}}
	return p.node(v, "#", 0)
}

func (p *parser) fail(path, format string, a ...any) error {
	return &SchemaError{Path: path, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) nonNegInt(v *jvalue, path string) (int, error) {
	if v.kind != 'n' {
		return 0, p.fail(path, "must be a non-negative integer")
	}
	n, err := strconv.Atoi(v.str)
	if err != nil || n < 0 {
		return 0, p.fail(path, "must be a non-negative integer, not %s", v.str)
	}
	return n, nil
}

// node reads the schema v at path. depth counts the $ref expansions and
// nesting, to refuse runaway schemas with a message.
func (p *parser) node(v *jvalue, path string, depth int) (*node, error) {
	if depth > 64 {
		return nil, p.fail(path, "nested more than 64 levels deep")
	}
	switch v.kind {
	case 'b':
		if v.b {
			return &node{kind: kAny}, nil
		}
		return nil, p.fail(path, "the schema false accepts no value")
	case 'o':
	default:
		return nil, p.fail(path, "a schema must be an object (or true)")
	}
	for _, k := range v.keys {
		if why, ok := unsupported[k]; ok {
			return nil, p.fail(path+"/"+k, "%q is not supported: %s", k, why)
		}
	}
	if r := v.get("$ref"); r != nil {
		if len(v.keys) > 1 {
			for _, k := range v.keys {
				if k != "$ref" && !annotations[k] {
					return nil, p.fail(path, "$ref beside %q is not supported: put the constraints in the referenced schema", k)
				}
			}
		}
		return p.ref(r, path+"/$ref", depth)
	}
	if a := v.get("allOf"); a != nil {
		if a.kind != 'a' || len(a.items) != 1 {
			return nil, p.fail(path+"/allOf", "allOf is supported with one schema only (as Pydantic writes it around a $ref)")
		}
		return p.node(a.items[0], path+"/allOf/0", depth+1)
	}
	var n *node
	var err error
	switch {
	case v.get("const") != nil:
		n = &node{kind: kLiteral, lits: [][]byte{encoded(v.get("const"))}}
	case v.get("enum") != nil:
		e := v.get("enum")
		if e.kind != 'a' || len(e.items) == 0 {
			return nil, p.fail(path+"/enum", "enum must be a non-empty list of values")
		}
		n = &node{kind: kLiteral}
		for _, it := range e.items {
			n.lits = append(n.lits, encoded(it))
		}
	case v.get("anyOf") != nil:
		a := v.get("anyOf")
		if a.kind != 'a' || len(a.items) == 0 {
			return nil, p.fail(path+"/anyOf", "anyOf must be a non-empty list of schemas")
		}
		n = &node{kind: kAnyOf}
		for i, it := range a.items {
			c, err := p.node(it, fmt.Sprintf("%s/anyOf/%d", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			n.alts = append(n.alts, c)
		}
	default:
		n, err = p.typed(v, path, depth)
		if err != nil {
			return nil, err
		}
	}
	if nl := v.get("nullable"); nl != nil && nl.kind == 'b' && nl.b {
		n = &node{kind: kAnyOf, alts: []*node{n, {kind: kLiteral, lits: [][]byte{[]byte("null")}}}}
	}
	return n, nil
}

func encoded(v *jvalue) []byte {
	var b bytes.Buffer
	v.encode(&b)
	return b.Bytes()
}

// ref inlines a local reference "#/$defs/Name" (or any JSON pointer into
// the document).
func (p *parser) ref(r *jvalue, path string, depth int) (*node, error) {
	if r.kind != 's' || !strings.HasPrefix(r.str, "#") {
		return nil, p.fail(path, "only local references (\"#/$defs/Name\") are supported")
	}
	if p.inRef[r.str] {
		return nil, p.fail(path, "%s refers to itself: recursive schemas are not supported (the output's nesting must be bounded)", r.str)
	}
	t := p.root
	if ptr := strings.TrimPrefix(r.str, "#"); ptr != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch {
			case t.kind == 'o' && t.get(tok) != nil:
				t = t.get(tok)
			case t.kind == 'a':
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(t.items) {
					return nil, p.fail(path, "%s: no such schema in this document", r.str)
				}
				t = t.items[i]
			default:
				return nil, p.fail(path, "%s: no such schema in this document", r.str)
			}
		}
	}
	p.inRef[r.str] = true
	defer delete(p.inRef, r.str)
	return p.node(t, r.str, depth+1)
}

func (p *parser) typed(v *jvalue, path string, depth int) (*node, error) {
	t := v.get("type")
	var types []string
	switch {
	case t == nil:
		// No type: guess from the keywords present, else any value.
		switch {
		case v.get("properties") != nil || v.get("required") != nil || v.get("additionalProperties") != nil:
			types = []string{"object"}
		case v.get("items") != nil:
			types = []string{"array"}
		default:
			return &node{kind: kAny}, nil
		}
	case t.kind == 's':
		types = []string{t.str}
	case t.kind == 'a' && len(t.items) > 0:
		for _, it := range t.items {
			if it.kind != 's' {
				return nil, p.fail(path+"/type", "type must be a string or a list of strings")
			}
			types = append(types, it.str)
		}
	default:
		return nil, p.fail(path+"/type", "type must be a string or a non-empty list of strings")
	}
	var alts []*node
	for _, ty := range types {
		n, err := p.oneType(v, ty, path, depth)
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{kind: kAnyOf, alts: alts}, nil
}

func (p *parser) oneType(v *jvalue, ty, path string, depth int) (*node, error) {
	switch ty {
	case "null":
		return &node{kind: kLiteral, lits: [][]byte{[]byte("null")}}, nil
	case "boolean":
		return &node{kind: kLiteral, lits: [][]byte{[]byte("true"), []byte("false")}}, nil
	case "integer", "number":
		n := &node{kind: kNumber}
		if ty == "integer" {
			n.kind = kInteger
		}
		if m := v.get("minimum"); m != nil {
			// minimum: 0 (counts, ages, prices) forbids the minus sign,
			// which the grammar can say; other bounds it cannot.
			if f, err := strconv.ParseFloat(m.str, 64); m.kind != 'n' || err != nil || f != 0 {
				return nil, p.fail(path+"/minimum", "only minimum: 0 is supported (it forbids the minus sign), not %s", string(encoded(m)))
			}
			n.nonNegative = true
		}
		return n, nil
	case "string":
		n := &node{kind: kString, maxN: -1}
		if m := v.get("minLength"); m != nil {
			x, err := p.nonNegInt(m, path+"/minLength")
			if err != nil {
				return nil, err
			}
			n.minN = x
		}
		if m := v.get("maxLength"); m != nil {
			x, err := p.nonNegInt(m, path+"/maxLength")
			if err != nil {
				return nil, err
			}
			n.maxN = x
		}
		if n.maxN >= 0 && n.minN > n.maxN {
			return nil, p.fail(path, "minLength %d is over maxLength %d: no string fits", n.minN, n.maxN)
		}
		if pt := v.get("pattern"); pt != nil {
			if pt.kind != 's' {
				return nil, p.fail(path+"/pattern", "pattern must be a string (a regular expression)")
			}
			if v.get("minLength") != nil || v.get("maxLength") != nil {
				return nil, p.fail(path+"/pattern", "pattern with minLength/maxLength is not supported: put the length in the pattern ({m,n})")
			}
			re, err := parsePattern(pt.str)
			if err != nil {
				return nil, p.fail(path+"/pattern", "%v", err)
			}
			n.pattern = re
		}
		if max(n.minN, n.maxN) > maxBoundedLength {
			return nil, p.fail(path, "minLength/maxLength over %d are not supported (each counted character is a state)", maxBoundedLength)
		}
		return n, nil
	case "array":
		n := &node{kind: kArray, maxN: -1}
		if m := v.get("minItems"); m != nil {
			x, err := p.nonNegInt(m, path+"/minItems")
			if err != nil {
				return nil, err
			}
			n.minN = x
		}
		if m := v.get("maxItems"); m != nil {
			x, err := p.nonNegInt(m, path+"/maxItems")
			if err != nil {
				return nil, err
			}
			n.maxN = x
		}
		if n.maxN >= 0 && n.minN > n.maxN {
			return nil, p.fail(path, "minItems %d is over maxItems %d: no array fits", n.minN, n.maxN)
		}
		if max(n.minN, n.maxN) > maxBoundedItems {
			return nil, p.fail(path, "minItems/maxItems over %d are not supported (each counted item is a copy of its grammar)", maxBoundedItems)
		}
		n.items = &node{kind: kAny}
		if it := v.get("items"); it != nil {
			c, err := p.node(it, path+"/items", depth+1)
			if err != nil {
				return nil, err
			}
			n.items = c
		}
		return n, nil
	case "object":
		return p.object(v, path, depth)
	}
	return nil, p.fail(path+"/type", "unknown type %q: want object, array, string, number, integer, boolean or null", ty)
}

func (p *parser) object(v *jvalue, path string, depth int) (*node, error) {
	n := &node{kind: kObject}
	closed := false
	if a := v.get("additionalProperties"); a != nil {
		switch {
		case a.kind == 'b' && !a.b:
			closed = true
		case a.kind == 'b':
			n.additional = &node{kind: kAny}
		default:
			c, err := p.node(a, path+"/additionalProperties", depth+1)
			if err != nil {
				return nil, err
			}
			n.additional = c
		}
	}
	required := map[string]bool{}
	if r := v.get("required"); r != nil {
		if r.kind != 'a' {
			return nil, p.fail(path+"/required", "required must be a list of property names")
		}
		for _, it := range r.items {
			if it.kind != 's' {
				return nil, p.fail(path+"/required", "required must be a list of property names")
			}
			required[it.str] = true
		}
	}
	if ps := v.get("properties"); ps != nil {
		if ps.kind != 'o' {
			return nil, p.fail(path+"/properties", "properties must be an object of schemas")
		}
		for i, k := range ps.keys {
			c, err := p.node(ps.vals[i], path+"/properties/"+pointerEscape(k), depth+1)
			if err != nil {
				return nil, err
			}
			n.props = append(n.props, prop{name: k, n: c, required: required[k]})
			delete(required, k)
		}
	}
	// Required names that properties does not list: any value, unless
	// additionalProperties forbids them (no object fits).
	var extra []string
	for k := range required {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	for _, k := range extra {
		if closed {
			return nil, p.fail(path+"/required", "%q is required but not in properties, and additionalProperties is false: no object fits", k)
		}
		val := n.additional
		if val == nil {
			val = &node{kind: kAny}
		}
		n.props = append(n.props, prop{name: k, n: val, required: true})
	}
	if len(n.props) > 0 {
		// The listed properties are what is generated: extra keys are
		// allowed by the schema, never needed.
		n.additional = nil
	} else if !closed && n.additional == nil {
		n.additional = &node{kind: kAny}
	}
	return n, nil
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
