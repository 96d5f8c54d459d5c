package serving

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"regexp"
	"sync"

	"github.com/emily-go/emily/models/sample/constrain"
)

// responseFormat reads response_format: {"type": "text"} (the default),
// {"type": "json_object"} (any JSON object) or {"type": "json_schema",
// "json_schema": {"name", "description", "schema", "strict"}}. The
// output of the last two is constrained to the grammar while it is
// sampled (models/sample/constrain), so it always parses; with a schema
// it also validates. A schema the compiler cannot take is a 400 naming
// response_format.json_schema.schema and, in the message, the part.
func (s *Server) responseFormat(b *body, g *genRequest) {
	raw := b.raw("response_format")
	if raw == nil || string(raw) == "null" {
		return
	}
	var rf struct {
		Type       *string         `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rf); err != nil {
		b.fail(BadRequest("response_format", `response_format must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}, not %s (%v)`, clip(raw), err))
		return
	}
	if rf.Type == nil {
		b.fail(BadRequest("response_format.type", `response_format.type is required: "text", "json_object" or "json_schema"`))
		return
	}
	switch *rf.Type {
	case "text":
		if rf.JSONSchema != nil {
			b.fail(BadRequest("response_format.json_schema", `response_format.json_schema goes with "type": "json_schema", not "text"`))
		}
	case "json_object":
		if rf.JSONSchema != nil {
			b.fail(BadRequest("response_format.json_schema", `response_format.json_schema goes with "type": "json_schema", not "json_object"`))
			return
		}
		g.opts.Grammar = jsonObject()
	case "json_schema":
		gr, e := s.grammars.schema(rf.JSONSchema)
		if e != nil {
			b.fail(e)
			return
		}
		g.opts.Grammar = gr
	default:
		b.fail(BadRequest("response_format.type", `response_format.type %q is not one of "text", "json_object", "json_schema"`, *rf.Type))
	}
}

var (
	jsonObjectOnce sync.Once
	jsonObjectG    *constrain.Grammar
)

// jsonObject is the one grammar of json_object, shared by every request
// so its mask cache stays warm.
func jsonObject() *constrain.Grammar {
	jsonObjectOnce.Do(func() { jsonObjectG = constrain.JSONObject(constrain.Options{}) })
	return jsonObjectG
}

// schemaName is OpenAI's rule for json_schema.name.
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// grammarCache keeps the grammars of recent schemas (by their compact
// text): a client sends the same schema request after request, and a
// kept grammar has its automaton and masks built already (cold masks
// cost about ten times warm ones).
type grammarCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cachedGrammar, most recent first
	byKey map[string]*list.Element
}

type cachedGrammar struct {
	key string
	g   *constrain.Grammar
}

// maxGrammars bounds the grammar cache: a grammar holds its NFA and up to
// a few thousand masks of vocab/8 bytes each.
const maxGrammars = 32

func (c *grammarCache) schema(raw json.RawMessage) (*constrain.Grammar, *APIError) {
	const field = "response_format.json_schema"
	if raw == nil || string(raw) == "null" {
		return nil, BadRequest(field, `response_format.json_schema is required with "type": "json_schema": {"name": "...", "schema": {...}}`)
	}
	var js struct {
		Name        *string         `json:"name"`
		Description *string         `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      *bool           `json:"strict"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&js); err != nil {
		return nil, BadRequest(field, `response_format.json_schema must be {"name": "...", "schema": {...}, "strict": true}, not %s (%v)`, clip(raw), err)
	}
	if js.Name != nil && !schemaName.MatchString(*js.Name) {
		return nil, BadRequest(field+".name", "response_format.json_schema.name %q must be 1 to 64 letters, digits, underscores or dashes", *js.Name)
	}
	if js.Schema == nil || string(js.Schema) == "null" {
		return nil, BadRequest(field+".schema", "response_format.json_schema.schema is required: the JSON schema the output must follow")
	}
	var key bytes.Buffer
	if err := json.Compact(&key, js.Schema); err != nil {
		return nil, BadRequest(field+".schema", "response_format.json_schema.schema is not valid JSON: %v", err)
	}
	c.mu.Lock()
	if c.byKey == nil {
		c.order, c.byKey, c.max = list.New(), map[string]*list.Element{}, maxGrammars
	}
	if e, ok := c.byKey[key.String()]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cachedGrammar).g, nil
	}
	c.mu.Unlock()
	// Strict or not, the output is constrained: strict: false would only
	// allow what a schema allows anyway.
	g, err := constrain.Compile(key.Bytes(), constrain.Options{})
	if err != nil {
		var se *constrain.SchemaError
		if errors.As(err, &se) {
			return nil, BadRequest(field+".schema", "response_format.json_schema.schema at %s: %s", se.Path, se.Msg)
		}
		return nil, BadRequest(field+".schema", "response_format.json_schema.schema: %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key.String()]; ok { // compiled meanwhile by another request
		return e.Value.(*cachedGrammar).g, nil
	}
	c.byKey[key.String()] = c.order.PushFront(&cachedGrammar{key.String(), g})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cachedGrammar).key)
	}
	return g, nil
}
